/**
 * Port to the simulated hedge venue's controls (`ratelock hedge simulate`): what it does to the
 * next new order it receives. The venue keeps its books in the store (adapters-store's
 * `SimulatedHedgeVenue`), so arming it is a change of the store, and an operator's action
 * (`OperatorActions.armSimulatedVenue`).
 *
 * A reference: a process that was given no venue's controls (a memory store keeps no venue's
 * books) refuses to arm one, rather than arming nothing and saying it did.
 */
import { Context, Data, Effect, Schema } from "effect"
import type { StoreError } from "../kernel/StoreError.ts"

/** `reject`: the next new order is rejected; `timeout`: it is filled, but the venue answers with a timeout. */
export const Action = Schema.Literals(["reject", "timeout"])
export type Action = typeof Action.Type

export class NoSimulatedVenue extends Data.TaggedError("NoSimulatedVenue")<{ readonly message: string }> {
  get reason() {
    return "no_simulated_venue" as const
  }
}

export interface SimulatedVenueControlShape {
  /** Arms one action for the next new order (armed actions queue up: rejections first). */
  readonly arm: (action: Action) => Effect.Effect<void, StoreError | NoSimulatedVenue>
}

export const SimulatedVenueControl = Context.Reference<SimulatedVenueControlShape>(
  "@ratelock/core/SimulatedVenueControl",
  {
    defaultValue: () => ({
      arm: () => Effect.fail(new NoSimulatedVenue({ message: "this process keeps no simulated hedge venue to arm" }))
    })
  }
)
