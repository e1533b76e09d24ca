/**
 * `CorridorLimitRepo` in memory, and the open-notional steps the contract insert and commit run
 * inside their own atomic steps: the insert's takes a lock's notional under the limits
 * (`CorridorLimit.breached`) or fails, the commit's moves it (`CorridorLimit.transitionUsage`).
 */
import { type DateTime, Effect, Exit, HashMap, Option } from "effect"
import { ApiError, type Contract, type Corridor, CorridorLimit, CorridorLimitRepo, Money } from "@ratelock/core"
import type { Partner } from "@ratelock/core"
import { atomically, done, read, type State, type StateRef } from "./state.ts"

const key = (environment: Partner.Environment, direction: Corridor.Direction) => `${environment}|${direction}`

const corridorOf = (state: State, environment: Partner.Environment, direction: Corridor.Direction) =>
  Option.getOrElse(HashMap.get(state.corridors, key(environment, direction)), () =>
    CorridorLimit.unset(environment, direction)
  )

const withCorridor = (state: State, corridor: CorridorLimit.CorridorLimit): State => ({
  ...state,
  corridors: HashMap.set(state.corridors, key(corridor.environment, corridor.direction), corridor)
})

/** The state with a new contract's notional taken from its corridor, or the limit it breaches. */
export const takeCapacity = (
  state: State,
  contract: Contract.ContractRecord
): Exit.Exit<State, ApiError.CorridorCapacityExceeded> => {
  if (!CorridorLimit.holdsCapacity(contract.status)) return Exit.succeed(state)
  const corridor = corridorOf(state, contract.environment, contract.direction)
  const notional = CorridorLimit.lockNotional(contract)
  if (Option.isSome(CorridorLimit.breached(corridor, notional))) {
    return Exit.fail(
      new ApiError.CorridorCapacityExceeded({ message: CorridorLimit.capacityMessage(contract.direction) })
    )
  }
  return Exit.succeed(withCorridor(state, { ...corridor, openNotional: Money.sum(corridor.openNotional, notional) }))
}

/** The state with a committed transition's change of its corridor's open notional. */
export const moveUsage = (
  state: State,
  change: { readonly contract: Contract.ContractRecord; readonly expectedVersion: number }
): State => {
  const usage = CorridorLimit.transitionUsage(change)
  if (Money.isZero(usage)) return state
  const corridor = corridorOf(state, change.contract.environment, change.contract.direction)
  return withCorridor(state, { ...corridor, openNotional: Money.sum(corridor.openNotional, usage) })
}

const byKey = (a: CorridorLimit.CorridorLimit, b: CorridorLimit.CorridorLimit) =>
  a.environment === b.environment ? (a.direction < b.direction ? -1 : 1) : a.environment < b.environment ? -1 : 1

export const makeCorridorLimitRepo = (ref: StateRef): CorridorLimitRepo.CorridorLimitRepoShape => {
  const find = Effect.fn("MemoryStore.corridors.find")(function* (
    environment: Partner.Environment,
    direction: Corridor.Direction
  ) {
    return yield* read(ref, (state) => corridorOf(state, environment, direction))
  })

  const list = Effect.fn("MemoryStore.corridors.list")(function* () {
    return yield* read(ref, (state) => Array.from(HashMap.values(state.corridors)).sort(byKey))
  })

  const set = Effect.fn("MemoryStore.corridors.set")(function* (
    environment: Partner.Environment,
    direction: Corridor.Direction,
    change: CorridorLimit.LimitChange,
    at: DateTime.Utc
  ) {
    return yield* atomically(ref, (state) => {
      const corridor = CorridorLimit.applyChange(corridorOf(state, environment, direction), change, at)
      return done(corridor, withCorridor(state, corridor))
    })
  })

  return CorridorLimitRepo.CorridorLimitRepo.of({ find, list, set })
}
