/**
 * Port to where hedge orders are executed (a liquidity provider, a trader's desk, the simulated
 * venue). The order id is the venue's idempotency key: executing one id twice executes it once
 * and answers its outcome again, which is what makes sending again after a crash safe.
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect } from "effect"
import { marketPairCurrencies, marketPairDecimals } from "../kernel/Corridor.ts"
import type { HedgeOrder } from "./HedgeOrder.ts"
import type { Side } from "./HedgePolicy.ts"
import * as Money from "../kernel/Money.ts"

/**
 * Why a venue call failed. `rejected`: the venue refused the order, for good (the hedger decides
 * anew next pass). `timeout`: no answer in time; the order may or may not have been executed, so
 * it is looked up next pass. `unavailable`: the venue could not be reached; looked up next pass.
 */
export const VenueErrorReason = Schema.Literals(["rejected", "timeout", "unavailable"])
export type VenueErrorReason = typeof VenueErrorReason.Type

export class VenueError extends Schema.TaggedError<VenueError>()("VenueError", {
  venue: Schema.String,
  reason: VenueErrorReason,
  message: Schema.String
}) {}

/** What the venue filled: `amount` BASE units at `rate` QUOTE per BASE, at `at`. */
export interface Fill {
  readonly rate: Money.Decimal
  readonly amount: Money.Decimal
  readonly at: DateTime.Utc
}

/** What `execute` answers: filled at once, or accepted and working (a trader's desk). */
export type Execution = { readonly _tag: "Filled"; readonly fill: Fill } | { readonly _tag: "Pending" }

/** What the venue knows of an order id. */
export type Lookup =
  | { readonly _tag: "Filled"; readonly fill: Fill }
  | { readonly _tag: "Rejected"; readonly reason: string }
  /** Accepted, not yet filled or rejected. */
  | { readonly _tag: "Pending" }
  /** Never received: safe to execute (under the same id). */
  | { readonly _tag: "Unknown" }

export interface HedgeVenueShape {
  /** Kept on every order sent here (`HedgeOrder.venue`). */
  readonly name: string
  readonly execute: (order: HedgeOrder) => Effect.Effect<Execution, VenueError>
  readonly lookup: (orderId: string) => Effect.Effect<Lookup, VenueError>
}

export class HedgeVenue extends Context.Service<HedgeVenue, HedgeVenueShape>()("@ratelock/core/HedgeVenue") {}

/**
 * The simulated venue's price: the mid plus a spread of `spreadBps` for a buy, minus it for a
 * sell, rounded against the service to the pair's quoting decimals (a buy up, a sell down).
 */
export const spreadRate = (pair: string, mid: Money.Decimal, side: Side, spreadBps: Money.Decimal): Money.Decimal => {
  const spread = Money.divide(spreadBps, Money.unsafe("10000"))
  const decimals = marketPairDecimals(marketPairCurrencies(pair))
  return side === "buy"
    ? Money.roundUp(Money.multiply(mid, Money.sum(Money.one, spread)), decimals)
    : Money.roundDown(Money.multiply(mid, Money.subtract(Money.one, spread)), decimals)
}
