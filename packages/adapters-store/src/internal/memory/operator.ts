/**
 * The operator's records in memory: `OperatorTokenRepo` (one token per secret hash, as the SQL
 * unique key), `WorkerHeartbeatRepo` (one heartbeat per owner and pass) and `BacklogRepo` (the
 * same counts and failing deliveries as the SQL statements, over the memory tables).
 */
import { Effect, Exit, HashMap, Option } from "effect"
import type { DateTime } from "effect"
import {
  BacklogRepo,
  Environment,
  type EventRepo,
  OperatorTokenRepo,
  type Partner,
  StoreError,
  WorkerHeartbeatRepo
} from "@ratelock/core"
import { compareKeys } from "./keyset.ts"
import { atomically, read, type StateRef, write } from "./state.ts"

type Token = OperatorTokenRepo.OperatorTokenRecord

export const makeOperatorTokenRepo = (ref: StateRef): OperatorTokenRepo.OperatorTokenRepoShape => {
  const insert = Effect.fn("MemoryStore.operatorTokens.insert")(function* (token: Token) {
    return yield* atomically(ref, (state) => {
      const taken = [...HashMap.values(state.operatorTokens)].some((t) => t.secretHash === token.secretHash)
      if (HashMap.has(state.operatorTokens, token.id) || taken) {
        return Exit.fail(new StoreError.StoreError({ message: `operator token ${token.id} already exists` }))
      }
      return write({ ...state, operatorTokens: HashMap.set(state.operatorTokens, token.id, token) })
    })
  })

  const find = Effect.fn("MemoryStore.operatorTokens.find")(function* (id: string) {
    return yield* read(ref, (state) => HashMap.get(state.operatorTokens, id))
  })

  const findByHash = Effect.fn("MemoryStore.operatorTokens.findByHash")(function* (secretHash: string) {
    return yield* read(ref, (state) =>
      Option.map(
        HashMap.findFirst(state.operatorTokens, (t) => t.secretHash === secretHash),
        ([, token]) => token
      )
    )
  })

  const list = Effect.fn("MemoryStore.operatorTokens.list")(function* () {
    return yield* read(ref, (state) => [...HashMap.values(state.operatorTokens)].sort(compareKeys))
  })

  const revoke = Effect.fn("MemoryStore.operatorTokens.revoke")(function* (id: string, at: DateTime.Utc) {
    return yield* atomically(ref, (state) => {
      const token = HashMap.get(state.operatorTokens, id)
      if (token._tag === "None" || token.value.revokedAt !== null) return write(state)
      return write({
        ...state,
        operatorTokens: HashMap.set(state.operatorTokens, id, { ...token.value, revokedAt: at })
      })
    })
  })

  const touch = Effect.fn("MemoryStore.operatorTokens.touch")(function* (id: string, at: DateTime.Utc) {
    return yield* atomically(ref, (state) => {
      const token = HashMap.get(state.operatorTokens, id)
      // the latest use stands, as SQL's greatest(last_used_at, at)
      if (token._tag === "None") return write(state)
      const last = token.value.lastUsedAt
      if (last !== null && last.epochMilliseconds >= at.epochMilliseconds) return write(state)
      return write({
        ...state,
        operatorTokens: HashMap.set(state.operatorTokens, id, { ...token.value, lastUsedAt: at })
      })
    })
  })

  return OperatorTokenRepo.OperatorTokenRepo.of({ insert, find, findByHash, list, revoke, touch })
}

const heartbeatKey = (h: WorkerHeartbeatRepo.WorkerHeartbeat) => `${h.owner}|${h.pass}`

export const makeWorkerHeartbeatRepo = (ref: StateRef): WorkerHeartbeatRepo.WorkerHeartbeatRepoShape => {
  const beat = Effect.fn("MemoryStore.heartbeats.beat")(function* (
    beats: ReadonlyArray<WorkerHeartbeatRepo.WorkerHeartbeat>
  ) {
    return yield* atomically(ref, (state) => {
      let heartbeats = state.heartbeats
      for (const h of beats) heartbeats = HashMap.set(heartbeats, heartbeatKey(h), h)
      return write({ ...state, heartbeats })
    })
  })

  const list = Effect.fn("MemoryStore.heartbeats.list")(function* (since: DateTime.Utc) {
    return yield* read(ref, (state) =>
      [...HashMap.values(state.heartbeats)]
        .filter((h) => h.lastPassAt.epochMilliseconds >= since.epochMilliseconds)
        .sort((a, b) => (a.owner !== b.owner ? (a.owner < b.owner ? -1 : 1) : a.pass < b.pass ? -1 : 1))
    )
  })

  const prune = Effect.fn("MemoryStore.heartbeats.prune")(function* (before: DateTime.Utc) {
    return yield* atomically(ref, (state) => {
      const old = HashMap.filter(state.heartbeats, (h) => h.lastPassAt.epochMilliseconds < before.epochMilliseconds)
      const heartbeats = HashMap.filter(
        state.heartbeats,
        (h) => h.lastPassAt.epochMilliseconds >= before.epochMilliseconds
      )
      return Exit.succeed([HashMap.size(old), { ...state, heartbeats }] as const)
    })
  })

  return WorkerHeartbeatRepo.WorkerHeartbeatRepo.of({ beat, list, prune })
}

/** The earlier of two instants, either possibly missing. */
const earliest = (a: DateTime.Utc | null, b: DateTime.Utc): DateTime.Utc =>
  a === null || b.epochMilliseconds < a.epochMilliseconds ? b : a

export const makeBacklogRepo = (ref: StateRef): BacklogRepo.BacklogRepoShape => {
  const backlog = Effect.fn("MemoryStore.backlog")(function* () {
    return yield* read(ref, (state) =>
      Environment.all.map((environment) => {
        const counts: {
          -readonly [K in keyof BacklogRepo.EnvironmentBacklog]: BacklogRepo.EnvironmentBacklog[K]
        } = {
          environment,
          undeliveredEvents: 0,
          oldestUndeliveredAt: null,
          payoutsAwaitingConfirmation: 0,
          oldestAwaitingPayoutAt: null,
          payoutsFailed: 0,
          unmatchedFunds: 0
        }
        for (const { row } of HashMap.values(state.outgoing)) {
          if (row.environment !== environment || (row.status !== "pending" && row.status !== "retrying")) continue
          counts.undeliveredEvents++
          counts.oldestUndeliveredAt = earliest(counts.oldestUndeliveredAt, row.createdAt)
        }
        for (const { row } of HashMap.values(state.payouts)) {
          if (row.environment !== environment) continue
          if (row.status === "failed") counts.payoutsFailed++
          else if (row.status === "pending" || row.status === "prepared") {
            counts.payoutsAwaitingConfirmation++
            counts.oldestAwaitingPayoutAt = earliest(counts.oldestAwaitingPayoutAt, row.createdAt)
          }
        }
        for (const transfer of HashMap.values(state.unmatched)) {
          if (transfer.environment === environment) counts.unmatchedFunds++
        }
        return counts
      })
    )
  })

  const failingDeliveries = Effect.fn("MemoryStore.failingDeliveries")(function* (environment: Partner.Environment) {
    return yield* read(ref, (state) => {
      const newestFirst = [...HashMap.values(state.outgoing)]
        .map(({ row }) => row)
        .filter((e) => e.environment === environment && (e.status === "retrying" || e.status === "failed"))
        .sort((a, b) => compareKeys(b, a))
      const byPartner = new Map<string, Array<EventRepo.OutgoingEvent>>()
      for (const event of newestFirst) {
        const events = byPartner.get(event.partnerId) ?? []
        events.push(event)
        byPartner.set(event.partnerId, events)
      }
      // as the SQL join: events of a partner that is not stored are not listed
      return [...byPartner]
        .flatMap(([partnerId, events]): Array<BacklogRepo.FailingDeliveries> => {
          const partner = HashMap.get(state.partners, partnerId)
          if (Option.isNone(partner)) return []
          const retrying = events.filter((e) => e.status === "retrying")
          const failed = events.filter((e) => e.status === "failed")
          return [
            {
              partnerId,
              partnerName: partner.value.name,
              retrying: retrying.length,
              oldestRetryingAt: retrying.at(-1)?.createdAt ?? null,
              failed: failed.length,
              lastError: retrying[0]?.lastError ?? failed[0]?.lastError ?? null
            }
          ]
        })
        .sort(
          (a, b) =>
            b.retrying - a.retrying ||
            b.failed - a.failed ||
            (a.partnerName !== b.partnerName
              ? a.partnerName < b.partnerName
                ? -1
                : 1
              : a.partnerId < b.partnerId
                ? -1
                : 1)
        )
    })
  })

  return BacklogRepo.BacklogRepo.of({ backlog, failingDeliveries })
}
