/**
 * Valid requests with sensible defaults, overridable field by field, in their wire form (the
 * JSON a partner sends: rates and amounts as decimal strings, datetimes as ISO strings): for
 * partners' tests and simulations, the testkit (which re-exports this module) and our own tests.
 *
 * The default quote: an option on 10,000 USD, `USD_TO_BRL`, provider rate 5.40, market rate 5.41
 * observed now, a 30-day window from now, settled in USDC on polygon. Times come from the `Clock`
 * (`quote`) or from an instant you give (`quoteAt`).
 */
import { DateTime, Duration, Effect } from "effect"
import type * as ContractRequest from "./ContractRequest.ts"
import type * as InboundEvent from "./InboundEvent.ts"
import type * as QuoteRequest from "./QuoteRequest.ts"
import type * as Rail from "../kernel/Rail.ts"

export type QuoteRequestBody = QuoteRequest.QuoteRequestEncoded
export type ContractRequestBody = typeof ContractRequest.ContractRequest.Encoded
export type FundsInRouteBody = typeof InboundEvent.FundsInRoute.Encoded
export type ContractExercisedBody = typeof InboundEvent.ContractExercised.Encoded

/** The window of a quote relative to now, used where `window_start` / `window_end` are not given. */
export interface Timing {
  /** From now to `window_start` (default 0: the window opens now). */
  readonly startsIn?: Duration.Input
  /** From `window_start` to `window_end` (default 30 days). */
  readonly window?: Duration.Input
}

const iso = DateTime.formatIso

/** A valid quote request at `now`. */
export const quoteAt = (
  now: DateTime.Utc,
  overrides: Partial<QuoteRequestBody> = {},
  timing: Timing = {}
): QuoteRequestBody => {
  const start = DateTime.addDuration(now, Duration.fromInputUnsafe(timing.startsIn ?? 0))
  const end = DateTime.addDuration(start, Duration.fromInputUnsafe(timing.window ?? "30 days"))
  return {
    customer_reference_id: "customer-1",
    customer_name: "Ana Souza",
    contract_type: "option",
    direction: "USD_TO_BRL",
    notional_currency: "USD",
    notional_amount: "10000",
    provider_rate: "5.40",
    market_rate: "5.41",
    market_rate_timestamp: iso(now),
    window_start: iso(start),
    window_end: iso(end),
    chain: "polygon",
    settlement_currency: "USDC",
    ...overrides
  }
}

/** A valid quote request now (by the `Clock`). */
export const quote = (
  overrides: Partial<QuoteRequestBody> = {},
  timing: Timing = {}
): Effect.Effect<QuoteRequestBody> => Effect.map(DateTime.now, (now) => quoteAt(now, overrides, timing))

/** A contract request for the quote. */
export const contract = (quoteId: string, overrides: Partial<ContractRequestBody> = {}): ContractRequestBody => ({
  quote_id: quoteId,
  ...overrides
})

/** A customer's payout wallet on each chain: well-formed, owned by nobody. */
export const payoutWallets: Readonly<Record<Rail.Chain, string>> = {
  ethereum: "0x1111111111111111111111111111111111111111",
  polygon: "0x1111111111111111111111111111111111111111",
  solana: "29d2S7vB453rNYFdR5Ycwt7y9haRT5fwVwL9zTmBhfV2"
}

/** An inbound `funds_in_route` for the contract (every optional field left out unless given). */
export const fundsInRoute = (contractId: string, overrides: Partial<FundsInRouteBody> = {}): FundsInRouteBody => ({
  event_type: "funds_in_route",
  fx_contract_id: contractId,
  ...overrides
})

/**
 * An inbound `contract_exercised` at `now` for a contract on `chain`: at live rate 5.10 (below
 * the default quote's locked rate, so a payout is owed), paid to `payoutWallets[chain]`.
 */
export const contractExercisedAt = (
  now: DateTime.Utc,
  contract: { readonly id: string; readonly chain: Rail.Chain },
  overrides: Partial<ContractExercisedBody> = {}
): ContractExercisedBody => ({
  event_type: "contract_exercised",
  fx_contract_id: contract.id,
  executed_at: iso(now),
  live_execution_rate: "5.10",
  payout_wallet_address: payoutWallets[contract.chain],
  chain: contract.chain,
  ...overrides
})

/** An inbound `contract_exercised` now (by the `Clock`). */
export const contractExercised = (
  contract: { readonly id: string; readonly chain: Rail.Chain },
  overrides: Partial<ContractExercisedBody> = {}
): Effect.Effect<ContractExercisedBody> =>
  Effect.map(DateTime.now, (now) => contractExercisedAt(now, contract, overrides))
