/**
 * Lifecycle programs for quotes: create (validate, price, store), get and list.
 */
import { DateTime, Effect, Option } from "effect"
import { QuoteNotFound } from "../kernel/ApiError.ts"
import { CorridorLimitRepo } from "../limits/CorridorLimitRepo.ts"
import { position, pageSize, slice } from "./internal/paginate.ts"
import type { ListQuotesQuery } from "../terms/ListQuery.ts"
import { MarketData } from "../market/MarketData.ts"
import * as Metrics from "./Metrics.ts"
import type { PartnerScope } from "../terms/Partner.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as Quote from "../terms/Quote.ts"
import * as QuotePricer from "../pricing/QuotePricer.ts"
import { QuotePolicy } from "../pricing/QuotePolicy.ts"
import { QuoteRepo } from "./QuoteRepo.ts"
import type { QuoteRequest } from "../terms/QuoteRequest.ts"
import * as QuoteRules from "../pricing/QuoteRules.ts"
import { SettlementRails } from "./SettlementRails.ts"

/** Validates, prices and stores a quote. Pricing failures are stored too, as `status: failed`. */
export const create = Effect.fn("Quotes.create")(function* (scope: PartnerScope, request: QuoteRequest) {
  yield* QuoteRules.check(request).pipe(
    Effect.tapError((refused) => Metrics.quote(scope.environment, "refused", refused.code))
  )
  const now = yield* DateTime.now
  const policy = yield* QuotePolicy
  const market = yield* MarketData
  // the snapshot in force for the partner's environment (MarketFreshness): production refuses a stale one
  const inForce = yield* market.inForce(scope.environment)
  const railSupported = (yield* SettlementRails).supports(scope.environment, request.chain, request.settlement_currency)
  // the corridor's limits and use now: a quote that would breach one if accepted fails (contract
  // creation checks again, atomically with its insert)
  const corridor = yield* (yield* CorridorLimitRepo).find(scope.environment, request.direction)
  const { snapshotId, inputs, ...priced } = QuotePricer.price({
    request,
    market: inForce,
    notionalLimits: market.notionalLimits,
    corridor,
    now,
    policy,
    railSupported
  })
  const ids = yield* IdGenerator
  const record: Quote.QuoteRecord = {
    ...priced,
    id: yield* ids.uuid,
    partnerId: scope.partnerId,
    environment: scope.environment,
    customerReferenceId: request.customer_reference_id,
    customerName: request.customer_name,
    contractType: request.contract_type,
    direction: request.direction,
    notionalCurrency: request.notional_currency,
    notionalAmount: request.notional_amount,
    providerRate: request.provider_rate,
    marketRate: request.market_rate,
    marketRateTimestamp: request.market_rate_timestamp,
    strikeMode: request.strike_mode ?? "cip_fair",
    targetStrike: request.strike_mode === "custom" ? (request.target_strike ?? null) : null,
    windowStart: request.window_start,
    windowEnd: request.window_end,
    chain: request.chain,
    settlementCurrency: request.settlement_currency,
    expiresAt: DateTime.addDuration(now, policy.quoteTtl),
    createdAt: now,
    acceptedAt: null,
    // what priced it, so the premium can be examined and reproduced (`ratelock quote explain`)
    snapshotId,
    pricingInputs: inputs
  }
  yield* (yield* QuoteRepo).insert(record)
  yield* Metrics.quote(scope.environment, record.status, record.failureReason?.code ?? "none")
  return Quote.toResponse(record, now)
})

export const get = Effect.fn("Quotes.get")(function* (scope: PartnerScope, id: string) {
  const found = yield* (yield* QuoteRepo).find(scope, id)
  if (Option.isNone(found)) return yield* new QuoteNotFound({ message: `quote ${id} not found` })
  return Quote.toResponse(found.value, yield* DateTime.now)
})

export const list = Effect.fn("Quotes.list")(function* (scope: PartnerScope, query: ListQuotesQuery) {
  const after = yield* position(query.cursor)
  const limit = pageSize(query.limit)
  const now = yield* DateTime.now
  const rows = yield* (yield* QuoteRepo).list(scope, {
    status: query.status,
    customerReferenceId: query.customer_reference_id,
    limit: limit + 1,
    after,
    now
  })
  const page = slice(rows, limit)
  return { items: page.items.map((q) => Quote.toResponse(q, now)), next_cursor: page.nextCursor }
})
