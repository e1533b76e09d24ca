/**
 * Where a program commits an operator's change when it then acts on the world: a payout's bump is
 * stored, then broadcast. Such a program wraps the statement that stores the change in `commit`,
 * and the audit (`operator/Audit.ts`, with `external`) writes its record in the same transaction
 * as that statement, before anything is broadcast. Outside an audited action `commit` runs the
 * statement as it is.
 */
import { Context, Effect, type Option } from "effect"
import type { StoreError } from "./StoreError.ts"

export interface AuditedChangeShape {
  /**
   * Runs `change`; `after` says what it changed (written in the audit record), or none when it
   * changed nothing (a compare-and-set that lost: no record then).
   */
  readonly commit: <A, E, R>(
    change: Effect.Effect<A, E, R>,
    after: (result: A) => Option.Option<unknown>
  ) => Effect.Effect<A, E | StoreError, R>
}

export const AuditedChange = Context.Reference<AuditedChangeShape>("@ratelock/core/AuditedChange", {
  defaultValue: () => ({ commit: (change) => change })
})

/** `change`, committed with the audit record of the operator's action around it, if any. */
export const commit = <A, E, R>(
  change: Effect.Effect<A, E, R>,
  after: (result: A) => Option.Option<unknown>
): Effect.Effect<A, E | StoreError, R> =>
  Effect.gen(function* () {
    return yield* (yield* AuditedChange).commit(change, after)
  })
