/**
 * `HedgePolicyRepo` and `HedgeOrderRepo` in memory, on the store's one state: policies leased per
 * pair as the SQL claim leases them; an intended order stored only while its pair's lease holds
 * and no order of the pair is outstanding; a fill written with its ledger entries in one step.
 */
import { DateTime, Duration, Effect, HashMap, Option } from "effect"
import {
  type HedgeLedger,
  HedgeOrder,
  HedgeOrderRepo,
  type HedgePolicy,
  HedgePolicyRepo,
  type Lease,
  type Partner
} from "@ratelock/core"
import { requireBalanced } from "../rules.ts"
import { compareKeys } from "./keyset.ts"
import { isFree } from "./lease.ts"
import { atomically, done, read, type State, type StateRef } from "./state.ts"

const keyOf = (environment: Partner.Environment, pair: string) => `${environment}|${pair}`

const byKey = (a: HedgePolicy.HedgePolicy, b: HedgePolicy.HedgePolicy) =>
  a.environment.localeCompare(b.environment) || (a.pair < b.pair ? -1 : a.pair > b.pair ? 1 : 0)

const holds = (state: State, environment: Partner.Environment, pair: string, lease: HedgePolicyRepo.PairLease) => {
  const held = Option.getOrUndefined(HashMap.get(state.hedgePolicies, keyOf(environment, pair)))?.lease
  return (
    held !== undefined && held !== null && held.owner === lease.owner && held.until === lease.until.epochMilliseconds
  )
}

const ordersOf = (state: State, environment: Partner.Environment, pair: string) =>
  Array.from(HashMap.values(state.hedgeOrders)).filter((o) => o.environment === environment && o.pair === pair)

export const makeHedgePolicyRepo = (ref: StateRef): HedgePolicyRepo.HedgePolicyRepoShape => {
  const upsert = Effect.fn("MemoryStore.hedgePolicies.upsert")(function* (policy: HedgePolicy.HedgePolicy) {
    const key = keyOf(policy.environment, policy.pair)
    yield* atomically(ref, (state) => {
      const lease = Option.getOrUndefined(HashMap.get(state.hedgePolicies, key))?.lease ?? null
      return done(undefined, { ...state, hedgePolicies: HashMap.set(state.hedgePolicies, key, { row: policy, lease }) })
    })
  })

  const find = Effect.fn("MemoryStore.hedgePolicies.find")(function* (environment: Partner.Environment, pair: string) {
    return yield* read(ref, (state) =>
      Option.map(HashMap.get(state.hedgePolicies, keyOf(environment, pair)), (leased) => leased.row)
    )
  })

  const list = Effect.fn("MemoryStore.hedgePolicies.list")(function* (environment?: Partner.Environment) {
    return yield* read(ref, (state) =>
      Array.from(HashMap.values(state.hedgePolicies))
        .map((leased) => leased.row)
        .filter((p) => environment === undefined || p.environment === environment)
        .sort(byKey)
    )
  })

  const claim = Effect.fn("MemoryStore.hedgePolicies.claim")(function* (claim: Lease.Claim) {
    const until = claim.now.epochMilliseconds + Duration.toMillis(claim.leaseFor)
    return yield* atomically(ref, (state) => {
      const free = Array.from(HashMap.values(state.hedgePolicies))
        .filter((leased) => isFree(leased.lease, claim))
        .map((leased) => leased.row)
        .sort(byKey)
        .slice(0, claim.limit)
      const lease = { owner: claim.owner, until }
      const hedgePolicies = HashMap.mutate(state.hedgePolicies, (m) => {
        for (const policy of free) HashMap.set(m, keyOf(policy.environment, policy.pair), { row: policy, lease })
      })
      const claimed = free.map((policy) => ({
        policy,
        lease: { owner: claim.owner, until: DateTime.makeUnsafe(until) }
      }))
      return done(claimed, { ...state, hedgePolicies })
    })
  })

  const release = Effect.fn("MemoryStore.hedgePolicies.release")(function* (
    environment: Partner.Environment,
    pair: string,
    lease: HedgePolicyRepo.PairLease
  ) {
    yield* atomically(ref, (state) => {
      if (!holds(state, environment, pair, lease)) return done(undefined, state)
      const key = keyOf(environment, pair)
      const row = Option.getOrThrow(HashMap.get(state.hedgePolicies, key)).row
      return done(undefined, { ...state, hedgePolicies: HashMap.set(state.hedgePolicies, key, { row, lease: null }) })
    })
  })

  return HedgePolicyRepo.HedgePolicyRepo.of({ upsert, find, list, claim, release })
}

export const makeHedgeOrderRepo = (ref: StateRef): HedgeOrderRepo.HedgeOrderRepoShape => {
  const insertIntended = Effect.fn("MemoryStore.hedgeOrders.insertIntended")(function* (
    order: HedgeOrder.HedgeOrder,
    lease: HedgePolicyRepo.PairLease
  ) {
    return yield* atomically(ref, (state) => {
      const ok =
        holds(state, order.environment, order.pair, lease) &&
        !HashMap.has(state.hedgeOrders, order.id) &&
        !ordersOf(state, order.environment, order.pair).some(HedgeOrder.isOutstanding)
      return ok
        ? done(true, { ...state, hedgeOrders: HashMap.set(state.hedgeOrders, order.id, order) })
        : done(false, state)
    })
  })

  const update = Effect.fn("MemoryStore.hedgeOrders.update")(function* (
    order: HedgeOrder.HedgeOrder,
    expected: HedgeOrderRepo.Expected,
    ledger: ReadonlyArray<HedgeLedger.HedgeLedgerEntry> = []
  ) {
    yield* requireBalanced(ledger, `hedge order ${order.id}`)
    return yield* atomically(ref, (state) => {
      const stored = Option.getOrUndefined(HashMap.get(state.hedgeOrders, order.id))
      const current =
        stored !== undefined &&
        stored.status === expected.status &&
        stored.updatedAt.epochMilliseconds === expected.updatedAt.epochMilliseconds
      if (!current) return done(false, state)
      const entries = [...Option.getOrElse(HashMap.get(state.hedgeLedger, order.id), () => []), ...ledger]
      return done(true, {
        ...state,
        hedgeOrders: HashMap.set(state.hedgeOrders, order.id, order),
        hedgeLedger: ledger.length === 0 ? state.hedgeLedger : HashMap.set(state.hedgeLedger, order.id, entries)
      })
    })
  })

  const find = Effect.fn("MemoryStore.hedgeOrders.find")(function* (id: string) {
    return yield* read(ref, (state) => HashMap.get(state.hedgeOrders, id))
  })

  const outstanding = Effect.fn("MemoryStore.hedgeOrders.outstanding")(function* (
    environment: Partner.Environment,
    pair: string
  ) {
    return yield* read(ref, (state) => ordersOf(state, environment, pair).filter(HedgeOrder.isOutstanding))
  })

  const position = Effect.fn("MemoryStore.hedgeOrders.position")(function* (
    environment: Partner.Environment,
    pair: string
  ) {
    return yield* read(ref, (state) => HedgeOrder.position(ordersOf(state, environment, pair)))
  })

  const list = Effect.fn("MemoryStore.hedgeOrders.list")(function* (filter: HedgeOrderRepo.ListFilter) {
    return yield* read(ref, (state) =>
      Array.from(HashMap.values(state.hedgeOrders))
        .filter(
          (o) =>
            (filter.environment === undefined || o.environment === filter.environment) &&
            (filter.pair === undefined || o.pair === filter.pair) &&
            (filter.statuses === undefined || filter.statuses.includes(o.status)) &&
            (filter.since === undefined || o.createdAt.epochMilliseconds >= filter.since.epochMilliseconds)
        )
        .sort((a, b) => compareKeys(b, a))
        .slice(0, filter.limit)
    )
  })

  const ledgerEntries = Effect.fn("MemoryStore.hedgeOrders.ledgerEntries")(function* (orderId: string) {
    return yield* read(ref, (state) => Option.getOrElse(HashMap.get(state.hedgeLedger, orderId), () => []))
  })

  return HedgeOrderRepo.HedgeOrderRepo.of({ insertIntended, update, find, outstanding, position, list, ledgerEntries })
}
