/**
 * The operator's hedging programs (`ratelock hedge …`): set and show the policies, list the
 * orders, and, for the manual venue, record a trader's fill or rejection; and a pair's hedge as the
 * risk report shows it (`pairHedge`). Hosts parse the input and print what these return.
 */
import { Data, DateTime, Effect, Option, Result, Schema } from "effect"
import { marketPairCurrencies } from "../kernel/Corridor.ts"
import * as HedgeMarks from "./HedgeMarks.ts"
import * as HedgeOrder from "./HedgeOrder.ts"
import { HedgeOrderRepo } from "./HedgeOrderRepo.ts"
import * as HedgePolicy from "./HedgePolicy.ts"
import { HedgePolicyRepo } from "./HedgePolicyRepo.ts"
import * as Hedging from "./Hedging.ts"
import * as IssueDetail from "../kernel/IssueDetail.ts"
import * as ManualHedgeVenue from "./ManualHedgeVenue.ts"
import * as MarketSnapshot from "../market/MarketSnapshot.ts"
import * as Money from "../kernel/Money.ts"
import type { Environment } from "../terms/Partner.ts"
import type { StoreError } from "../kernel/StoreError.ts"

export class HedgeDeskError extends Data.TaggedError("HedgeDeskError")<{
  readonly reason: "invalid_policy" | "order_not_found" | "order_not_open" | "not_manual" | "invalid_fill"
  readonly message: string
}> {}

/** What a hedging program can fail with. */
export type Failure = HedgeDeskError | StoreError

const fail = (reason: HedgeDeskError["reason"], message: string) => Effect.fail(new HedgeDeskError({ reason, message }))

/** The operator's names of the policy's fields (the JSON of `policy show`). */
const fieldNames: Record<string, string> = { targetRatio: "target_ratio", valueDays: "value_days" }

const decodePolicy = Schema.decodeUnknownResult(HedgePolicy.HedgePolicy, { errors: "all" })

export interface PolicyInput {
  readonly environment: Environment
  readonly pair: string
  readonly targetRatio?: Money.Decimal | undefined
  readonly band: Money.Decimal
  readonly instrument: HedgePolicy.Instrument
  readonly valueDays?: number | undefined
}

/** Creates or replaces the policy of a pair; every rule it breaks is in the error's message. */
export const setPolicy = Effect.fn("HedgeDesk.setPolicy")(function* (input: PolicyInput) {
  const candidate = {
    environment: input.environment,
    pair: input.pair,
    targetRatio: input.targetRatio ?? HedgePolicy.defaultTargetRatio,
    band: input.band,
    instrument: input.instrument,
    valueDays: input.valueDays ?? null,
    updatedAt: yield* DateTime.now
  }
  const decoded = decodePolicy(candidate)
  if (Result.isFailure(decoded)) {
    const items = IssueDetail.flatten(decoded.failure.issue, [], candidate)
    const lines = items.map((i) => `${i.loc.map((k) => fieldNames[String(k)] ?? String(k)).join(".")}: ${i.msg}`)
    return yield* fail("invalid_policy", `Policy refused: ${lines.join("; ")}`)
  }
  yield* (yield* HedgePolicyRepo).upsert(decoded.success)
  return decoded.success
})

/** A policy with where its pair stands: the hedge position and the order waiting for an outcome, if any. */
export interface PolicyStatus {
  readonly policy: HedgePolicy.HedgePolicy
  readonly position: Money.Decimal
  readonly outstanding: HedgeOrder.HedgeOrder | null
}

/** A policy with where its pair stands, as an operator sees it (`hedge policy show --json`, the operator API). */
export const PolicyStatusView = Schema.Struct({
  ...HedgePolicy.HedgePolicyView.fields,
  position: Money.DecimalString.annotate({
    description: "The signed sum of the pair's fills, BASE units (buys positive)"
  }),
  outstanding_order: Schema.NullOr(HedgeOrder.HedgeOrderView).annotate({
    description: "The order waiting for an outcome (intended or sent), if any"
  })
}).annotate({ identifier: "HedgePolicyStatus" })

/** The policy's status, encoded (JSON-ready). */
export const statusView = (s: PolicyStatus): typeof PolicyStatusView.Encoded => ({
  ...HedgePolicy.view(s.policy),
  position: Money.format(s.position),
  outstanding_order: s.outstanding === null ? null : HedgeOrder.view(s.outstanding)
})

/** Every policy (of one environment, when given) with its pair's position. */
export const policies = Effect.fn("HedgeDesk.policies")(function* (environment?: Environment) {
  const orders = yield* HedgeOrderRepo
  const list = yield* (yield* HedgePolicyRepo).list(environment)
  return yield* Effect.forEach(
    list,
    (policy): Effect.Effect<PolicyStatus, StoreError> =>
      Effect.map(standing(orders, policy.environment, policy.pair), (where) => ({ policy, ...where }))
  )
})

/** Where a pair's hedge stands: the position its fills add up to and the order waiting for an outcome. */
const standing = (orders: HedgeOrderRepo["Service"], environment: Environment, pair: string) =>
  Effect.all({
    position: orders.position(environment, pair),
    outstanding: Effect.map(orders.outstanding(environment, pair), (o) => o[0] ?? null)
  })

const Figure = Money.DecimalString

/** A pair's hedge (risk.md, Hedging): BASE units, buys positive; the residual is `delta + position`. */
export const PairHedge = Schema.Struct({
  /** Null: the pair has no policy (nothing is hedged). */
  policy: Schema.NullOr(
    Schema.Struct({
      target_ratio: Figure,
      band: Figure,
      instrument: HedgePolicy.Instrument,
      value_days: Schema.NullOr(Schema.Int)
    })
  ),
  /** Σ of the filled hedge orders. */
  position: Figure,
  /** The position the policy aims at, `−target_ratio × delta`; null without a policy. */
  target: Schema.NullOr(Figure),
  /** What the book's delta leaves once hedged: `delta + position`. */
  residual_delta: Figure,
  /** The order the policy would place now (also when hedging is off); null inside the band. */
  order_needed: Schema.NullOr(Schema.Struct({ side: HedgePolicy.Side, amount: Figure })),
  /** The fills marked at the snapshot's forward to each value date, in the pair's QUOTE and in USD. */
  pnl: Figure,
  pnl_usd: Figure,
  /** Orders created since midnight UTC. */
  orders_today: Schema.Int,
  /** The order waiting for an outcome (intended or sent), if any. */
  pending_order: Schema.NullOr(Schema.String)
}).annotate({ identifier: "RiskPairHedge" })
export type PairHedge = typeof PairHedge.Type

const startOfDay = (now: DateTime.Utc) =>
  DateTime.makeUnsafe(Math.floor(now.epochMilliseconds / 86_400_000) * 86_400_000)

/**
 * A pair's hedge against its book delta, as the risk report shows it: the policy, the position and
 * what the policy aims at, the residual, the order it would place now, and the fills' P&L marked at
 * `snapshot`.
 */
export const pairHedge = Effect.fn("HedgeDesk.pairHedge")(function* (
  environment: Environment,
  book: { readonly pair: string; readonly delta: Money.Decimal },
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc
) {
  const policy = yield* (yield* HedgePolicyRepo).find(environment, book.pair)
  const orders = yield* HedgeOrderRepo
  const { position, outstanding } = yield* standing(orders, environment, book.pair)
  const filled = yield* orders.list({ environment, pair: book.pair, statuses: ["filled"], limit: 100_000 })
  const today = yield* orders.list({ environment, pair: book.pair, since: startOfDay(now), limit: 100_000 })
  const quote = marketPairCurrencies(book.pair).quote
  const pnl = HedgeMarks.pnl(snapshot, filled)
  const usdPerQuote = Option.getOrElse(MarketSnapshot.midRate(snapshot, quote, "USD"), () => Money.zero)
  const needed = Option.flatMap(policy, (p) => HedgePolicy.decide({ delta: book.delta, position, policy: p, now }))
  return {
    policy: Option.getOrNull(
      Option.map(policy, (p) => ({
        target_ratio: p.targetRatio,
        band: p.band,
        instrument: p.instrument,
        value_days: p.valueDays
      }))
    ),
    position,
    target: Option.getOrNull(Option.map(policy, (p) => HedgePolicy.target(book.delta, p))),
    residual_delta: HedgePolicy.residual(book.delta, position),
    order_needed: Option.getOrNull(Option.map(needed, (o) => ({ side: o.side, amount: o.amount }))),
    pnl: Money.figure(pnl),
    pnl_usd: Money.figure(pnl * Money.toModel(usdPerQuote)),
    orders_today: today.length,
    pending_order: outstanding?.id ?? null
  } satisfies PairHedge
})

/** `pending` is every order waiting for an outcome (`intended` or `sent`). */
export type StatusFilter = HedgeOrder.HedgeOrderStatus | "pending"

export interface OrdersQuery {
  readonly environment?: Environment | undefined
  readonly status?: StatusFilter | undefined
  readonly limit: number
}

/** Orders, newest first. */
export const orders = Effect.fn("HedgeDesk.orders")(function* (query: OrdersQuery) {
  const statuses =
    query.status === undefined
      ? undefined
      : query.status === "pending"
        ? HedgeOrder.outstandingStatuses
        : [query.status]
  return yield* (yield* HedgeOrderRepo).list({ environment: query.environment, statuses, limit: query.limit })
})

/**
 * An outstanding order a trader's outcome may be recorded for: a manual one, or with
 * `overrideVenue` one sent to another venue (an order left at the simulated venue when the host
 * changed to manual, which no pass resolves any more), its outcome confirmed at that venue.
 */
const openManualOrder = Effect.fnUntraced(function* (orderId: string, overrideVenue: boolean) {
  const found = yield* (yield* HedgeOrderRepo).find(orderId)
  if (Option.isNone(found)) return yield* fail("order_not_found", `no hedge order ${orderId}`)
  const order = found.value
  if (order.venue !== ManualHedgeVenue.name && !overrideVenue) {
    return yield* fail(
      "not_manual",
      `hedge order ${orderId} went to the ${order.venue} venue: only manual orders take a trader's outcome ` +
        "(one no pass resolves any more: confirm its outcome at that venue, then record it with --override-venue)"
    )
  }
  if (!HedgeOrder.isOutstanding(order)) {
    return yield* fail("order_not_open", `hedge order ${orderId} is already ${order.status}`)
  }
  return order
})

/** The outcome was written, or someone else's was first. */
const written = (orderId: string) => (result: Option.Option<HedgeOrder.HedgeOrder>) =>
  Option.match(result, {
    onNone: () => fail("order_not_open", `hedge order ${orderId} changed meanwhile: look at it again`),
    onSome: Effect.succeed
  })

/**
 * Records a trader's fill of a manual order (another venue's with `overrideVenue`): at `rate`
 * (QUOTE per BASE, above 0), for `amount` BASE units (above 0, at most the order's; the whole
 * order when absent), now. What was not filled is decided anew by the next pass.
 */
export const fill = Effect.fn("HedgeDesk.fill")(function* (
  orderId: string,
  rate: Money.Decimal,
  amount?: Money.Decimal | undefined,
  options: { readonly overrideVenue?: boolean } = {}
) {
  const order = yield* openManualOrder(orderId, options.overrideVenue === true)
  const filled = amount ?? order.amount
  if (!Money.isPositive(rate)) return yield* fail("invalid_fill", "the rate must be above 0")
  if (!Money.isPositive(filled) || Money.greaterThan(filled, order.amount)) {
    return yield* fail(
      "invalid_fill",
      `the amount must be above 0 and at most the order's ${Money.format(order.amount)} ${marketPairCurrencies(order.pair).base}`
    )
  }
  const result = yield* Hedging.recordFill(order, { rate, amount: filled, at: yield* DateTime.now })
  return yield* written(orderId)(result)
})

/**
 * Records a trader's rejection of a manual order (another venue's with `overrideVenue`); the next
 * pass decides anew, under a new id.
 */
export const reject = Effect.fn("HedgeDesk.reject")(function* (
  orderId: string,
  reason: string,
  options: { readonly overrideVenue?: boolean } = {}
) {
  const order = yield* openManualOrder(orderId, options.overrideVenue === true)
  if (reason.trim() === "") return yield* fail("invalid_fill", "a rejection needs its reason")
  const result = yield* Hedging.recordRejection(order, reason.trim())
  return yield* written(orderId)(result)
})
