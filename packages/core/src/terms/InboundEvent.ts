/**
 * Events the partner posts to `POST /api/v1/fx/webhooks/inbound`, and the acknowledgement.
 */
import { Schema } from "effect"
import { BoundedString, Datetime, Uuid } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { Chain, FundsCurrency, PayoutCurrency } from "../kernel/Rail.ts"

/** Addresses and transaction hashes: no chain uses more than a few dozen characters. */
const ChainString = BoundedString(256)

export const PaymentType = Schema.Literals(["premium", "deposit"])
export type PaymentType = typeof PaymentType.Type

export const FundsInRoute = Schema.Struct({
  event_type: Schema.Literal("funds_in_route"),
  fx_contract_id: Uuid,
  payment_type: Schema.optionalKey(Schema.NullOr(PaymentType)),
  amount: Schema.optionalKey(Schema.NullOr(Money.DecimalString)),
  currency: Schema.optionalKey(Schema.NullOr(FundsCurrency)),
  chain: Schema.optionalKey(Schema.NullOr(Chain)),
  transaction_hash: Schema.optionalKey(Schema.NullOr(ChainString)),
  source_wallet_address: Schema.optionalKey(Schema.NullOr(ChainString))
}).annotate({ identifier: "FundsInRouteEvent" })
export type FundsInRoute = typeof FundsInRoute.Type

export const ContractExercised = Schema.Struct({
  event_type: Schema.Literal("contract_exercised"),
  fx_contract_id: Uuid,
  executed_at: Datetime,
  live_execution_rate: Money.PositiveDecimalString,
  payout_wallet_address: ChainString,
  payout_currency: Schema.optionalKey(PayoutCurrency),
  chain: Chain
}).annotate({ identifier: "ContractExercisedEvent" })
export type ContractExercised = typeof ContractExercised.Type

export const InboundEvent = Schema.Union([FundsInRoute, ContractExercised]).annotate({ identifier: "InboundEvent" })
export type InboundEvent = typeof InboundEvent.Type

export const AckStatus = Schema.Literals(["processed", "duplicate", "queued"])
export type AckStatus = typeof AckStatus.Type

export const InboundAck = Schema.Struct({
  webhook_event_id: Uuid,
  status: AckStatus
}).annotate({ identifier: "InboundAck" })
export type InboundAck = typeof InboundAck.Type
