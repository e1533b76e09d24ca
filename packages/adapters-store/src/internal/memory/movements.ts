/**
 * `MovementRepo` in memory: one movement per key and at most one sweep in flight per funding
 * address, written and signed as the payouts are (`signing.ts`: the same compare-and-set, the same
 * hot wallet nonces), claimed with leases; the treasury ledger (`treasury.ts`), and the balances
 * read from it and from the contracts' ledger as the SQL store's statements read them.
 */
import { Effect, Exit, HashMap, Option, type Semaphore } from "effect"
import { Money, MovementRepo, StoreError, type TreasuryLedger } from "@ratelock/core"
import type { Lease } from "@ratelock/core"
import { requireBalancedBookings } from "../rules.ts"
import { newestFirst, oldestFirst, self } from "./keyset.ts"
import { dueAt, take, unleased } from "./lease.ts"
import { signedJobs } from "./signing.ts"
import { atomically, done, read, type State, type StateRef, type Step, write } from "./state.ts"
import { allEntries, bookEntries } from "./treasury.ts"

type Movement = MovementRepo.Movement

const inFlight = (m: Movement) => m.status === "pending" || m.status === "prepared"

/** A sweep of the same funding address, pending or prepared (`movements_sweeping`). */
const sweeping = (state: State, chain: string, source: string | null): boolean => {
  for (const { row } of HashMap.values(state.movements)) {
    if (row.kind === "sweep" && inFlight(row) && row.chain === chain && row.source === source) return true
  }
  return false
}

const insertStep =
  (movement: Movement) =>
  (state: State): Step<void, MovementRepo.MovementExists | StoreError.StoreError> => {
    if (
      HashMap.has(state.movementByKey, movement.key) ||
      (movement.kind === "sweep" && inFlight(movement) && sweeping(state, movement.chain, movement.source))
    ) {
      return Exit.fail(new MovementRepo.MovementExists({ key: movement.key }))
    }
    if (HashMap.has(state.movements, movement.id)) {
      return Exit.fail(new StoreError.StoreError({ message: `movement ${movement.id} already exists` }))
    }
    return write({
      ...state,
      movements: HashMap.set(state.movements, movement.id, unleased(movement)),
      movementByKey: HashMap.set(state.movementByKey, movement.key, movement.id)
    })
  }

const claimStep = (claim: Lease.Claim) => (state: State) => {
  const [taken, movements] = take(state.movements, claim, (m) => inFlight(m) && dueAt(m.nextAttemptAt, claim))
  return done(taken, { ...state, movements })
}

/** Adds `amount` to the sum kept under `key`. */
const add = <K>(sums: Map<K, Money.Decimal>, key: K, amount: Money.Decimal) =>
  sums.set(key, Money.sum(sums.get(key) ?? Money.zero, amount))

/** Byte order, as `COLLATE "C"`; null first. */
const compareText = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1

const fundingBalancesOf = (state: State, rail: MovementRepo.RailScope): Array<MovementRepo.FundingBalance> => {
  // the treasury's books of each funding address, and the addresses being swept
  const atAddress = new Map<string, Money.Decimal>()
  for (const e of allEntries(state)) {
    if (e.account === "funding_wallet") add(atAddress, `${e.chain}|${e.address}|${e.currency}`, e.amount)
  }
  const swept = new Set<string>()
  for (const { row } of HashMap.values(state.movements)) {
    if (row.kind === "sweep" && inFlight(row)) swept.add(`${row.chain}|${row.source}`)
  }
  const contracts = Array.from(HashMap.values(state.contracts), (job) => job.row).filter(
    (c) => c.environment === rail.environment && c.chain === rail.chain
  )
  return oldestFirst(contracts, self, { limit: contracts.length }).flatMap((c) => {
    let balance = atAddress.get(`${c.chain}|${c.fundingWalletAddress}|${c.settlementCurrency}`) ?? Money.zero
    for (const { entry: e } of Option.getOrElse(HashMap.get(state.ledger, c.id), () => [])) {
      if (e.account === "funding_wallet" && e.currency === c.settlementCurrency) balance = Money.sum(balance, e.amount)
    }
    if (Money.isZero(balance)) return []
    return [
      {
        contractId: c.id,
        partnerId: c.partnerId,
        address: c.fundingWalletAddress,
        fundingIndex: c.fundingIndex,
        currency: c.settlementCurrency,
        status: c.status,
        balance,
        sweeping: swept.has(`${c.chain}|${c.fundingWalletAddress}`)
      }
    ]
  })
}

const walletBalancesOf = (state: State, rail: MovementRepo.RailScope): Array<MovementRepo.WalletBalance> => {
  const hotWallet = new Map<TreasuryLedger.TreasuryCurrency, Money.Decimal>()
  for (const { row: c } of HashMap.values(state.contracts)) {
    if (c.environment !== rail.environment || c.chain !== rail.chain) continue
    for (const { entry: e } of Option.getOrElse(HashMap.get(state.ledger, c.id), () => [])) {
      if (e.account === "payout_wallet") add(hotWallet, e.currency, e.amount)
    }
  }
  const treasury = new Map<string, MovementRepo.WalletBalance>()
  for (const e of allEntries(state)) {
    if (e.environment !== rail.environment || e.chain !== rail.chain) continue
    if (e.account === "payout_wallet") add(hotWallet, e.currency, e.amount)
    if (e.account === "treasury") {
      const key = `${e.address}|${e.currency}`
      const held = treasury.get(key)?.balance ?? Money.zero
      treasury.set(key, { ...e, account: "treasury", balance: Money.sum(held, e.amount) })
    }
  }
  const hot = Array.from(
    hotWallet,
    ([currency, balance]): MovementRepo.WalletBalance => ({
      account: "payout_wallet",
      address: null,
      currency,
      balance
    })
  )
  return [...hot, ...treasury.values()]
    .filter((b) => !Money.isZero(b.balance))
    .map(({ account, address, currency, balance }) => ({ account, address, currency, balance }))
    .sort(
      (a, b) =>
        compareText(a.account, b.account) || compareText(a.address, b.address) || compareText(a.currency, b.currency)
    )
}

export const makeMovementRepo = (ref: StateRef, nonces: Semaphore.Semaphore): MovementRepo.MovementRepoShape => {
  const insert = Effect.fn("MemoryStore.movements.insert")(function* (movement: Movement) {
    return yield* atomically(ref, insertStep(movement))
  })

  const findById = Effect.fn("MemoryStore.movements.findById")(function* (id: string) {
    return yield* read(ref, (state) => Option.map(HashMap.get(state.movements, id), (job) => job.row))
  })

  const findByKey = Effect.fn("MemoryStore.movements.findByKey")(function* (key: string) {
    return yield* read(ref, (state) =>
      HashMap.get(state.movementByKey, key).pipe(
        Option.flatMap((id) => HashMap.get(state.movements, id)),
        Option.map((job) => job.row)
      )
    )
  })

  // the compare-and-set writes and the hot wallet's nonces, shared with the payouts; refunds alone
  // draw on the hot wallet's tokens
  const { written, update, recordSigned, committed } = signedJobs(ref, nonces, {
    holder: "movement",
    rows: (state) => state.movements,
    withRows: (state, movements) => ({ ...state, movements }),
    signed: MovementRepo.signedMovement,
    repository: "MemoryStore.movements",
    committing: (m) => m.kind === "refund"
  })

  const confirm = Effect.fn("MemoryStore.movements.confirm")(function* (
    movement: Movement,
    expected: MovementRepo.Expected,
    entries: ReadonlyArray<TreasuryLedger.TreasuryEntry>
  ) {
    yield* requireBalancedBookings(entries)
    return yield* atomically(ref, (state) => {
      const next = written(state, movement, expected)
      return next === undefined ? done(false, state) : done(true, bookEntries(next, entries)[1])
    })
  })

  const book = Effect.fn("MemoryStore.movements.book")(function* (
    entries: ReadonlyArray<TreasuryLedger.TreasuryEntry>
  ) {
    yield* requireBalancedBookings(entries)
    return yield* atomically(ref, (state) => {
      const [booked, next] = bookEntries(state, entries)
      return done(booked, next)
    })
  })

  const claimDue = Effect.fn("MemoryStore.movements.claimDue")(function* (claim: Lease.Claim) {
    return yield* atomically(ref, claimStep(claim))
  })

  const list = Effect.fn("MemoryStore.movements.list")(function* (
    query: Parameters<MovementRepo.MovementRepoShape["list"]>[0]
  ) {
    const kinds = query.kinds === undefined ? undefined : new Set<string>(query.kinds)
    const statuses = query.statuses === undefined ? undefined : new Set<string>(query.statuses)
    return yield* read(ref, (state) =>
      newestFirst(
        Array.from(HashMap.values(state.movements), (job) => job.row).filter(
          (m) =>
            (kinds === undefined || kinds.has(m.kind)) &&
            (statuses === undefined || statuses.has(m.status)) &&
            (query.environment === undefined || m.environment === query.environment) &&
            (query.since === undefined || m.createdAt.epochMilliseconds >= query.since.epochMilliseconds)
        ),
        self,
        { limit: query.limit }
      )
    )
  })

  const fundingBalances = Effect.fn("MemoryStore.movements.fundingBalances")(function* (rail: MovementRepo.RailScope) {
    return yield* read(ref, (state) => fundingBalancesOf(state, rail))
  })

  const walletBalances = Effect.fn("MemoryStore.movements.walletBalances")(function* (rail: MovementRepo.RailScope) {
    return yield* read(ref, (state) => walletBalancesOf(state, rail))
  })

  const entriesOf = Effect.fn("MemoryStore.movements.entriesOf")(function* (source: string) {
    return yield* read(ref, (state) =>
      Option.match(HashMap.get(state.treasury, source), { onNone: () => [], onSome: (b) => b.entries })
    )
  })

  const entriesSince = Effect.fn("MemoryStore.movements.entriesSince")(function* (
    query: Parameters<MovementRepo.MovementRepoShape["entriesSince"]>[0]
  ) {
    return yield* read(ref, (state) =>
      allEntries(state).filter(
        (e) =>
          e.at.epochMilliseconds >= query.since.epochMilliseconds &&
          (query.environment === undefined || e.environment === query.environment)
      )
    )
  })

  return MovementRepo.MovementRepo.of({
    insert,
    findById,
    findByKey,
    update,
    recordSigned,
    confirm,
    book,
    claimDue,
    list,
    committed,
    fundingBalances,
    walletBalances,
    entriesOf,
    entriesSince
  })
}
