/**
 * `ReconciliationRepo` in memory: the latest run of each environment and chain (the newest by
 * `(at, id)`, as the SQL store's `latest` picks it from all it keeps), listed by environment then
 * chain in byte order.
 */
import { Effect, HashMap, Option } from "effect"
import { ReconciliationRepo } from "@ratelock/core"
import { atomically, read, type StateRef, write } from "./state.ts"

type Run = ReconciliationRepo.ReconciliationRun

const key = (run: Run) => `${run.environment}|${run.chain}`

/** `a` was run after `b`: later, or at the same instant with a greater id. */
const isNewer = (a: Run, b: Run) =>
  a.at.epochMilliseconds > b.at.epochMilliseconds || (a.at.epochMilliseconds === b.at.epochMilliseconds && a.id > b.id)

export const makeReconciliationRepo = (ref: StateRef): ReconciliationRepo.ReconciliationRepoShape => {
  const save = Effect.fn("MemoryStore.reconciliations.save")(function* (run: Run) {
    return yield* atomically(ref, (state) => {
      const held = HashMap.get(state.reconciliations, key(run))
      if (Option.isSome(held) && !isNewer(run, held.value)) return write(state)
      return write({ ...state, reconciliations: HashMap.set(state.reconciliations, key(run), run) })
    })
  })

  const latest = Effect.fn("MemoryStore.reconciliations.latest")(function* () {
    return yield* read(ref, (state) =>
      Array.from(HashMap.values(state.reconciliations)).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    )
  })

  return ReconciliationRepo.ReconciliationRepo.of({ save, latest })
}
