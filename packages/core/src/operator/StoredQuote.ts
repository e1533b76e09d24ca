/**
 * A stored quote as an operator reads it: any partner's, found by id (`find`), shown in the operator API's
 * snake_case (`View`; its JSON `read`, `GET /operator/v1/quotes/:quote_id`). `ratelock simulate lock --quote-id`
 * simulates it (`lock`): the quote's own locked rate, premium and deposit, not a new price.
 */
import { Effect, Option, Schema } from "effect"
import { QuoteNotFound } from "../kernel/ApiError.ts"
import { Direction, NotionalCurrency } from "../kernel/Corridor.ts"
import { Environment } from "../kernel/Environment.ts"
import { Datetime } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { Chain, SettlementCurrency } from "../kernel/Rail.ts"
import { QuoteRepo } from "../lifecycle/QuoteRepo.ts"
import type { StoredLock } from "../simulation/LockSimulation.ts"
import { FailureReason, pricedTermsResponse, type QuoteRecord, QuoteStatus } from "../terms/Quote.ts"
import { ContractType } from "../terms/QuoteRequest.ts"

/** The quote, any partner's; `QuoteNotFound` (404) when there is none. */
export const find = Effect.fn("StoredQuote.find")(function* (quoteId: string) {
  const found = yield* (yield* QuoteRepo).findForOperator(quoteId)
  if (Option.isNone(found)) return yield* new QuoteNotFound({ message: `quote ${quoteId} not found` })
  return found.value
})

/** What the operator reads of it: its terms, its price, the snapshot that priced it. */
export const View = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  status: QuoteStatus,
  failure_reason: Schema.NullOr(FailureReason),
  customer_reference_id: Schema.String,
  contract_type: ContractType,
  direction: Direction,
  notional_currency: NotionalCurrency,
  notional_amount: Money.DecimalString,
  market_rate: Money.DecimalString,
  locked_rate: Money.DecimalString,
  premium_amount: Money.DecimalString,
  deposit_amount: Schema.NullOr(Money.DecimalString),
  total_amount: Money.DecimalString,
  max_transaction_amount: Money.DecimalString,
  window_start: Datetime,
  window_end: Datetime,
  chain: Chain,
  settlement_currency: SettlementCurrency,
  snapshot_id: Schema.NullOr(Schema.String),
  created_at: Datetime,
  expires_at: Datetime
}).annotate({ identifier: "OperatorQuote" })
export type View = typeof View.Type

export const view = (quote: QuoteRecord): View => ({
  id: quote.id,
  partner_id: quote.partnerId,
  environment: quote.environment,
  status: quote.status,
  failure_reason: quote.failureReason,
  customer_reference_id: quote.customerReferenceId,
  contract_type: quote.contractType,
  direction: quote.direction,
  notional_currency: quote.notionalCurrency,
  notional_amount: quote.notionalAmount,
  market_rate: quote.marketRate,
  locked_rate: quote.lockedRate,
  ...pricedTermsResponse(quote),
  max_transaction_amount: quote.maxTransactionAmount,
  snapshot_id: quote.snapshotId,
  created_at: quote.createdAt,
  expires_at: quote.expiresAt
})

const encode = Schema.encodeSync(View)

/** The quote's view as JSON (decimals and instants as strings): the route's answer, and the CLI's on the database. */
export const read = Effect.fn("StoredQuote.read")(function* (quoteId: string) {
  return encode(view(yield* find(quoteId)))
})

/** The lock a simulation takes from it (`LockSimulation.monteCarlo`'s `quote`). */
export const lock = (quote: View): StoredLock => ({
  status: quote.status,
  contractType: quote.contract_type,
  direction: quote.direction,
  notionalCurrency: quote.notional_currency,
  notionalAmount: quote.notional_amount,
  marketRate: quote.market_rate,
  lockedRate: quote.locked_rate,
  premiumAmount: quote.premium_amount,
  depositAmount: quote.deposit_amount,
  maxTransactionAmount: quote.max_transaction_amount,
  windowStart: quote.window_start,
  windowEnd: quote.window_end,
  settlementCurrency: quote.settlement_currency
})
