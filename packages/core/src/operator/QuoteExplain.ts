/**
 * `ratelock quote explain`: what priced a quote (its snapshot and the engine's inputs, as stored)
 * and whether repricing from those inputs gives its premium to the token unit.
 */
import { Effect, Option, Result, Schema } from "effect"
import * as MarketSnapshot from "../market/MarketSnapshot.ts"
import { MarketSnapshotRepo } from "../market/MarketSnapshotRepo.ts"
import * as Money from "../kernel/Money.ts"
import { PricingInputs } from "../terms/PricingInputs.ts"
import { QuotePolicy } from "../pricing/QuotePolicy.ts"
import * as QuotePricer from "../pricing/QuotePricer.ts"
import * as StoredQuote from "./StoredQuote.ts"

/** What `quote explain` answers (`--json`, the operator API), decimals as strings once encoded. */
export const Explanation = Schema.Struct({
  quote_id: Schema.String,
  /** The stored snapshot that priced it; null for the built-in illustrative one (or no pricing). */
  snapshot_id: Schema.NullOr(Schema.String),
  inputs: Schema.NullOr(PricingInputs),
  premium_amount: Schema.String,
  /** Null when there is nothing to reprice from (see `note`). */
  repriced_premium_amount: Schema.NullOr(Schema.String),
  reproduced: Schema.Boolean,
  /** Why it was not reproduced, when it was not. */
  note: Schema.NullOr(Schema.String)
}).annotate({ identifier: "QuoteExplanation" })
export type Explanation = typeof Explanation.Type

/** The explanation as JSON: the inputs' spot a decimal string, not a decimal object. */
export const encode = Schema.encodeSync(Explanation)

export const explain = Effect.fn("QuoteExplain.explain")(function* (quoteId: string) {
  const quote = yield* StoredQuote.find(quoteId)
  const base = {
    quote_id: quote.id,
    snapshot_id: quote.snapshotId,
    inputs: quote.pricingInputs,
    premium_amount: Money.format(quote.premiumAmount)
  }
  if (quote.pricingInputs === null) {
    const note =
      quote.status === "failed"
        ? `the quote failed before it was priced (${quote.failureReason?.code ?? "failed"})`
        : "priced before market data was recorded with quotes: no inputs kept"
    return { ...base, repriced_premium_amount: null, reproduced: false, note } satisfies Explanation
  }
  // a settlement fiat on neither side of the corridor converts at the quote's own snapshot's mid
  const snapshot =
    quote.snapshotId === null
      ? MarketSnapshot.illustrative
      : Option.match(yield* (yield* MarketSnapshotRepo).find(quote.snapshotId), {
          onNone: () => MarketSnapshot.illustrative,
          onSome: (stored) => stored.document
        })
  const repriced = QuotePricer.reprice({
    inputs: quote.pricingInputs,
    quote,
    fiatPerQuote: QuotePricer.fiatPerQuote(snapshot, quote.direction, quote.settlementCurrency),
    policy: yield* QuotePolicy
  })
  if (Result.isFailure(repriced)) {
    return {
      ...base,
      repriced_premium_amount: null,
      reproduced: false,
      note: repriced.failure.message
    } satisfies Explanation
  }
  const premium = repriced.success.premiumAmount
  const reproduced = Money.equals(premium, quote.premiumAmount)
  return {
    ...base,
    repriced_premium_amount: Money.format(premium),
    reproduced,
    note: reproduced
      ? null
      : `differs by ${Money.format(Money.subtract(premium, quote.premiumAmount))} (the quote policy changed since?)`
  } satisfies Explanation
})
