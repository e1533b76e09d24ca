/**
 * `POST /api/v1/fx/quotes` request body, with the spec's field names, enumerations and limits.
 * Cross-field and time rules (window order, rate age ...) live in `QuoteRules`.
 */
import { Schema } from "effect"
import { Direction, NotionalCurrency } from "../kernel/Corridor.ts"
import { BoundedString, Datetime } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { Chain, SettlementCurrency } from "../kernel/Rail.ts"

export const ContractType = Schema.Literals(["forward", "option"])
export type ContractType = typeof ContractType.Type

/**
 * The terms every record of a lock keeps under the same names (`QuoteRecord`, `ContractRecord`):
 * what kind of lock, on which direction, for how much.
 */
export const lockTermFields = {
  contractType: ContractType,
  direction: Direction,
  notionalCurrency: NotionalCurrency,
  notionalAmount: Schema.BigDecimal
}

export const StrikeMode = Schema.Literals(["cip_fair", "live_spot", "custom"])
export type StrikeMode = typeof StrikeMode.Type

export const QuoteRequest = Schema.Struct({
  customer_reference_id: BoundedString(256),
  customer_name: BoundedString(256),
  contract_type: ContractType,
  direction: Direction,
  notional_currency: NotionalCurrency,
  notional_amount: Money.PositiveDecimalString,
  provider_rate: Money.PositiveDecimalString,
  market_rate: Money.PositiveDecimalString,
  market_rate_timestamp: Datetime,
  provider_extra_spread: Schema.optionalKey(Schema.NullOr(Money.NonNegativeDecimalString)),
  strike_mode: Schema.optionalKey(StrikeMode),
  target_strike: Schema.optionalKey(Schema.NullOr(Money.PositiveDecimalString)),
  window_start: Datetime,
  window_end: Datetime,
  chain: Chain,
  settlement_currency: SettlementCurrency
}).annotate({ identifier: "QuoteRequest" })
export type QuoteRequest = typeof QuoteRequest.Type
export type QuoteRequestEncoded = typeof QuoteRequest.Encoded
