/**
 * A contract (lock): its statuses, the wire responses (`FxContractResponse`, `FxLockResponse`)
 * and the record the service keeps.
 */
import { Schema } from "effect"
import type { DateTime } from "effect"
import type { Direction, NotionalCurrency } from "./Corridor.ts"
import { Datetime, Uuid } from "./Fields.ts"
import * as Money from "./Money.ts"
import type { Environment } from "./Partner.ts"
import { Chain, SettlementCurrency } from "./Rail.ts"
import type { ContractType } from "./QuoteRequest.ts"

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
export interface HistoryEntry {
  readonly status: ContractStatus
  readonly at: DateTime.Utc
  readonly cause: string
}

/** The exercise reported by the partner, kept on the contract once accepted. */
export interface Exercise {
  readonly executedAt: DateTime.Utc
  readonly liveExecutionRate: Money.Decimal
  readonly payoutWalletAddress: string
  /** The settlement token, or BRLA when the partner asked for it on a BRL corridor. */
  readonly payoutCurrency: SettlementCurrency | "BRLA"
}

export interface ContractRecord {
  readonly id: string
  readonly partnerId: string
  readonly environment: Environment
  readonly quoteId: string
  readonly serviceContractReference: string
  readonly customerReferenceId: string
  readonly partnerTransactionReference: string | null
  readonly contractType: ContractType
  readonly direction: Direction
  readonly notionalCurrency: NotionalCurrency
  readonly notionalAmount: Money.Decimal
  readonly lockedRate: Money.Decimal
  readonly providerRateAtLock: Money.Decimal
  readonly marketRateAtLock: Money.Decimal
  readonly premiumAmount: Money.Decimal
  readonly depositAmount: Money.Decimal | null
  readonly totalAmount: Money.Decimal
  readonly maxTransactionAmount: Money.Decimal
  readonly windowStart: DateTime.Utc
  readonly windowEnd: DateTime.Utc
  readonly chain: Chain
  readonly settlementCurrency: SettlementCurrency
  readonly fundingWalletAddress: string
  /** Confirmed on-chain funding so far (partial payments add up). */
  readonly fundedAmount: Money.Decimal
  readonly fundingDeadline: DateTime.Utc
  readonly status: ContractStatus
  readonly exercise: Exercise | null
  /** Number of outbound events emitted so far: the next event carries `sequence + 1`. */
  readonly eventSequence: number
  readonly history: ReadonlyArray<HistoryEntry>
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export const toResponse = (c: ContractRecord): ContractResponse => ({
  id: c.id,
  service_contract_reference: c.serviceContractReference,
  locked_rate: c.lockedRate,
  provider_rate_at_lock: c.providerRateAtLock,
  market_rate_at_lock: c.marketRateAtLock,
  premium_amount: c.premiumAmount,
  deposit_amount: c.depositAmount,
  total_amount: c.totalAmount,
  window_start: c.windowStart,
  window_end: c.windowEnd,
  chain: c.chain,
  settlement_currency: c.settlementCurrency,
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
