/**
 * A contract (lock): its statuses, the wire responses (`FxContractResponse`, `FxLockResponse`)
 * and the record the service keeps, as a schema (stores decode their rows into it).
 */
import { Schema } from "effect"
import { Datetime, Uuid } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { type Environment, ownedFields } from "./Partner.ts"
import { Chain, FundsCurrency, SettlementCurrency } from "../kernel/Rail.ts"
import { pricedTermFields, pricedTermsResponse } from "./Quote.ts"
import { lockTermFields } from "./QuoteRequest.ts"

export const ContractStatus = Schema.Literals([
  "quote_created",
  "funds_in_route",
  "active",
  "exercised",
  "settled",
  "expired",
  "failed",
  "defaulted",
  "deposit_forfeited"
])
export type ContractStatus = typeof ContractStatus.Type

/** The statuses in which a contract waits for its funding: the funding pass watches them. */
export const awaitingFunds: ReadonlyArray<ContractStatus> = ["quote_created", "funds_in_route"]

export const isAwaitingFunds = (status: ContractStatus): boolean => awaitingFunds.includes(status)

const contractFields = {
  id: Uuid,
  service_contract_reference: Schema.String,
  locked_rate: Money.DecimalString,
  provider_rate_at_lock: Money.DecimalString,
  market_rate_at_lock: Money.DecimalString,
  premium_amount: Money.DecimalString,
  deposit_amount: Schema.optionalKey(Schema.NullOr(Money.DecimalString)),
  total_amount: Money.DecimalString,
  window_start: Schema.optionalKey(Schema.NullOr(Datetime)),
  window_end: Schema.optionalKey(Schema.NullOr(Datetime)),
  chain: Chain,
  settlement_currency: SettlementCurrency,
  funding_wallet_address: Schema.String,
  created_at: Datetime,
  max_transaction_amount: Money.DecimalString
}

export const ContractResponse = Schema.Struct(contractFields).annotate({ identifier: "FxContractResponse" })
export type ContractResponse = typeof ContractResponse.Type

export const LockResponse = Schema.Struct({
  ...contractFields,
  status: ContractStatus,
  quote_id: Uuid,
  customer_reference_id: Schema.String,
  partner_transaction_reference: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "FxLockResponse" })
export type LockResponse = typeof LockResponse.Type

/** The chain, environment and token a contract is funded and paid on. */
export const railOf = (c: {
  readonly chain: Chain
  readonly environment: Environment
  readonly settlementCurrency: SettlementCurrency
}) => ({ chain: c.chain, environment: c.environment, token: c.settlementCurrency })

/** One entry of a contract's history, written with every transition. */
export const HistoryEntry = Schema.Struct({
  status: ContractStatus,
  at: Schema.DateTimeUtc,
  cause: Schema.String
}).annotate({ identifier: "HistoryEntry" })
export type HistoryEntry = typeof HistoryEntry.Type

/** The exercise reported by the partner, kept on the contract once accepted. */
export const Exercise = Schema.Struct({
  executedAt: Schema.DateTimeUtc,
  liveExecutionRate: Schema.BigDecimal,
  payoutWalletAddress: Schema.String,
  /** The settlement token, or BRLA when the partner asked for it on a BRL corridor. */
  payoutCurrency: FundsCurrency
}).annotate({ identifier: "Exercise" })
export type Exercise = typeof Exercise.Type

/** The contract the service keeps (stores decode their rows into it). */
export const ContractRecord = Schema.Struct({
  ...ownedFields,
  quoteId: Schema.String,
  serviceContractReference: Schema.String,
  customerReferenceId: Schema.String,
  partnerTransactionReference: Schema.NullOr(Schema.String),
  ...lockTermFields,
  lockedRate: Schema.BigDecimal,
  providerRateAtLock: Schema.BigDecimal,
  marketRateAtLock: Schema.BigDecimal,
  ...pricedTermFields,
  fundingWalletAddress: Schema.String,
  /** The HD index the funding address derives from, which a sweep signs with; null for contracts made before it was kept. */
  fundingIndex: Schema.NullOr(Schema.Int),
  /** Confirmed on-chain funding so far (partial payments add up). */
  fundedAmount: Schema.BigDecimal,
  fundingDeadline: Schema.DateTimeUtc,
  status: ContractStatus,
  exercise: Schema.NullOr(Exercise),
  /** Number of outbound events emitted so far: the next event carries `sequence + 1`. */
  eventSequence: Schema.Int,
  history: Schema.Array(HistoryEntry),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}).annotate({ identifier: "ContractRecord" })
export type ContractRecord = typeof ContractRecord.Type

export const toResponse = (c: ContractRecord): ContractResponse => ({
  id: c.id,
  service_contract_reference: c.serviceContractReference,
  locked_rate: c.lockedRate,
  provider_rate_at_lock: c.providerRateAtLock,
  market_rate_at_lock: c.marketRateAtLock,
  ...pricedTermsResponse(c),
  funding_wallet_address: c.fundingWalletAddress,
  created_at: c.createdAt,
  max_transaction_amount: c.maxTransactionAmount
})

export const toLockResponse = (c: ContractRecord): LockResponse => ({
  ...toResponse(c),
  status: c.status,
  quote_id: c.quoteId,
  customer_reference_id: c.customerReferenceId,
  partner_transaction_reference: c.partnerTransactionReference
})
