/**
 * Events the service delivers to the partner's webhook URL. Partners decode deliveries with
 * `OutboundEvent` after verifying the signature (`WebhookSignature`).
 *
 * `sequence` (1, 2, 3 … per contract) is an addition of api-decisions.md so a receiver can order
 * deliveries and detect gaps.
 */
import { Record, Schema } from "effect"
import { failureReasons } from "./PayoutFailure.ts"
import { Datetime, Uuid } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { Chain, FundsCurrency, SettlementCurrency } from "../kernel/Rail.ts"
import { ContractType } from "./QuoteRequest.ts"

/**
 * The token a payout was made in: the settlement currency, or BRLA when the partner asked for it
 * on a BRL corridor (api-decisions.md), a value beyond the spec's settlement enumeration.
 */
const PayoutCurrency = FundsCurrency

/**
 * Why a payout attempt failed, with what each code means: the chain's reasons
 * (`PayoutFailure.failureReasons`) and the one core adds.
 */
export const payoutFailureCodes = {
  ...failureReasons,
  no_conversion_rate: "No market rate to convert the delta into the payout currency."
} as const

/** A payout's `failure_code`: a key of {@link payoutFailureCodes}. */
export const PayoutFailureCode = Schema.Literals(Record.keys(payoutFailureCodes))
export type PayoutFailureCode = typeof PayoutFailureCode.Type

const common = {
  event_id: Schema.String,
  delivered_at: Datetime,
  fx_contract_id: Uuid,
  sequence: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
}

export const FundsReceived = Schema.Struct({
  event_type: Schema.Literal("funds_received"),
  ...common,
  service_contract_reference: Schema.String,
  funds: Schema.Struct({
    amount: Money.DecimalString,
    currency: SettlementCurrency,
    chain: Chain,
    funding_wallet_address: Schema.String,
    transaction_hash: Schema.String,
    block_number: Schema.Int,
    confirmed_at: Datetime
  }),
  contract_status: Schema.Literal("active")
}).annotate({ identifier: "FundsReceivedEvent" })
export type FundsReceived = typeof FundsReceived.Type

export const PayoutSettled = Schema.Struct({
  event_type: Schema.Literal("payout_settled"),
  ...common,
  service_contract_reference: Schema.String,
  partner_transaction_reference: Schema.NullOr(Schema.String),
  payout: Schema.Struct({
    status: Schema.Literal("settled"),
    amount: Money.DecimalString,
    currency: PayoutCurrency,
    chain: Chain,
    destination_wallet_address: Schema.String,
    // null for a zero payout: nothing was sent on-chain (api-decisions.md)
    transaction_hash: Schema.NullOr(Schema.String),
    block_number: Schema.NullOr(Schema.Int),
    settled_at: Datetime
  }),
  contract: Schema.optionalKey(
    Schema.Struct({
      locked_rate: Money.DecimalString,
      live_execution_rate: Money.DecimalString,
      notional_amount: Money.DecimalString,
      fx_delta_in_quote_currency: Money.DecimalString
    })
  )
}).annotate({ identifier: "PayoutSettledEvent" })
export type PayoutSettled = typeof PayoutSettled.Type

export const PayoutFailed = Schema.Struct({
  event_type: Schema.Literal("payout_failed"),
  ...common,
  payout: Schema.Struct({
    status: Schema.Literal("failed"),
    failure_code: PayoutFailureCode,
    failure_message: Schema.String,
    will_retry: Schema.Boolean,
    next_retry_at: Schema.NullOr(Datetime),
    destination_wallet_address: Schema.String,
    amount: Money.DecimalString,
    currency: PayoutCurrency,
    chain: Chain
  })
}).annotate({ identifier: "PayoutFailedEvent" })
export type PayoutFailed = typeof PayoutFailed.Type

export const ContractExpired = Schema.Struct({
  event_type: Schema.Literal("contract_expired"),
  ...common,
  service_contract_reference: Schema.String,
  partner_transaction_reference: Schema.NullOr(Schema.String),
  contract: Schema.Struct({ contract_type: ContractType, expired_at: Datetime }),
  deposit_outcome: Schema.NullOr(
    Schema.Struct({
      status: Schema.Literal("forfeited"),
      amount: Money.DecimalString,
      currency: SettlementCurrency,
      chain: Chain,
      forfeited_at: Datetime
    })
  )
}).annotate({ identifier: "ContractExpiredEvent" })
export type ContractExpired = typeof ContractExpired.Type

export const OutboundEvent = Schema.Union([FundsReceived, PayoutSettled, PayoutFailed, ContractExpired]).annotate({
  identifier: "OutboundEvent"
})
export type OutboundEvent = typeof OutboundEvent.Type
export type OutboundEventType = OutboundEvent["event_type"]

/** What a transition emits: the event without the fields the outbox fills in when it is queued and sent. */
export type OutboundEventDraft = DraftOf<OutboundEvent>
type DraftOf<E> = E extends unknown ? Omit<E, "event_id" | "delivered_at" | "sequence"> : never

/** Decodes a delivery body (a JSON string, already verified) into a typed event. */
export const decodeJson = Schema.decodeUnknownEffect(Schema.fromJsonString(OutboundEvent))
