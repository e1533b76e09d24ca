/**
 * One hedging pass as the workers run it with `RATELOCK_HEDGING=manual`, the book's delta of `pair` in
 * `environment` given: the orders it places wait, `sent`, for a trader.
 */
import {
  BookDelta,
  type HedgeOrderRepo,
  type HedgePolicyRepo,
  Hedging,
  type IdGenerator,
  ManualHedgeVenue,
  Money,
  type Partner,
  type StoreError
} from "@ratelock/core"
import { DateTime, Effect, Layer } from "effect"

export const manualHedgingPass = (
  environment: Partner.Environment,
  pair: string,
  delta: string
): Effect.Effect<
  number,
  StoreError.StoreError,
  HedgeOrderRepo.HedgeOrderRepo | HedgePolicyRepo.HedgePolicyRepo | IdGenerator.IdGenerator
> =>
  Hedging.pass().pipe(
    Effect.provide(
      Layer.merge(
        ManualHedgeVenue.layer,
        Layer.succeed(BookDelta.BookDelta, {
          deltas: (asked) =>
            Effect.map(DateTime.now, (asOf) =>
              asked === environment ? [{ pair, delta: Money.unsafe(delta), snapshotId: null, asOf }] : []
            )
        })
      )
    )
  )
