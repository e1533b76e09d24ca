/**
 * `MarketSnapshotRepo` in memory: snapshots by id and by hash, one per hash; `latest` orders as
 * the SQL index does (`as_of`, then `imported_at`, then id, each newest or greatest first).
 */
import { Effect, Exit, HashMap, Option } from "effect"
import { MarketSnapshotRepo, StoreError } from "@ratelock/core"
import { atomically, done, read } from "./state.ts"
import type { StateRef } from "./state.ts"

type Stored = MarketSnapshotRepo.StoredSnapshot

/** Whether `a` is in force over `b`. */
const newer = (a: Stored, b: Stored): boolean =>
  a.asOf.epochMilliseconds !== b.asOf.epochMilliseconds
    ? a.asOf.epochMilliseconds > b.asOf.epochMilliseconds
    : a.importedAt.epochMilliseconds !== b.importedAt.epochMilliseconds
      ? a.importedAt.epochMilliseconds > b.importedAt.epochMilliseconds
      : a.id > b.id

export const makeMarketSnapshotRepo = (ref: StateRef): MarketSnapshotRepo.MarketSnapshotRepoShape => {
  const insert = Effect.fn("MemoryStore.snapshots.insert")(function* (snapshot: Stored) {
    return yield* atomically(ref, (state) => {
      const existing = HashMap.get(state.snapshotByHash, snapshot.hash).pipe(
        Option.flatMap((id) => HashMap.get(state.snapshots, id))
      )
      if (Option.isSome(existing)) return done({ snapshot: existing.value, created: false }, state)
      if (HashMap.has(state.snapshots, snapshot.id)) {
        return Exit.fail(new StoreError.StoreError({ message: `snapshot ${snapshot.id} already exists` }))
      }
      return done(
        { snapshot, created: true },
        {
          ...state,
          snapshots: HashMap.set(state.snapshots, snapshot.id, snapshot),
          snapshotByHash: HashMap.set(state.snapshotByHash, snapshot.hash, snapshot.id)
        }
      )
    })
  })

  const latest = Effect.fn("MemoryStore.snapshots.latest")(function* () {
    return yield* read(ref, (state) => {
      let best: Stored | undefined
      for (const snapshot of HashMap.values(state.snapshots)) {
        if (best === undefined || newer(snapshot, best)) best = snapshot
      }
      return Option.fromNullishOr(best)
    })
  })

  const find = Effect.fn("MemoryStore.snapshots.find")(function* (id: string) {
    return yield* read(ref, (state) => HashMap.get(state.snapshots, id))
  })

  return MarketSnapshotRepo.MarketSnapshotRepo.of({ insert, latest, find })
}
