/**
 * Port to the chains: funding addresses, confirmed funding, and two-step payouts
 * (prepare and persist, then broadcast; safe to repeat) with lookup by the persisted identity.
 */
import { Context, Effect, Record, Schema } from "effect"
import type { DateTime } from "effect"
import type { Decimal } from "../kernel/Money.ts"
import type { Environment } from "../terms/Partner.ts"
import type { Chain, FundsCurrency } from "../kernel/Rail.ts"

/**
 * Every reason a gateway gives for a failure, with what it means: the one list. A partner sees it
 * as a payout's `failure_code` (`OutboundEvent.payoutFailureCodes`, the OpenAPI description of
 * `payout_failed` and partner-api.md's table are written from it). A new reason is a line here.
 */
export const failureReasons = {
  insufficient_funds: "The hot wallet holds too little of the token, or of the native currency for the fee.",
  reverted: "The chain executed the payout transaction and it failed, or the node's simulation of it failed.",
  nonce_consumed: "EVM: another transaction took the payout's nonce, so it can never be mined; a new one is prepared.",
  nonce_conflict: "EVM: the node holds a different pending transaction with the payout's nonce.",
  fee_too_low: "EVM: the node refused the transaction's fee as too low.",
  blockhash_expired: "Solana: the transaction's blockhash expired before it landed; a new one is prepared.",
  no_hot_wallet: "No hot wallet key is configured for the chain, so nothing can be signed.",
  rpc_unavailable: "The chain's RPC node could not be reached (for the sandbox: its ledger could not be read).",
  rate_limited: "The chain's RPC node rate-limited the call (HTTP 429 or JSON-RPC -32005).",
  rpc_error: "The chain's RPC node answered with an error.",
  invalid_address: "The destination is not a wallet address the chain can pay.",
  invalid_amount: "The amount is not positive, or has more decimals than the token.",
  invalid_index: "Funding only: a deposit address index out of range.",
  invalid_cursor: "Funding only: a funding cursor that is not a block number.",
  invalid_prepared: "The persisted transaction was not prepared by this gateway.",
  unsupported_rail: "The chain is not enabled for the environment.",
  unsupported_token: "The token is not issued, or not configured, on the chain.",
  token_mismatch: "Start-up only: the token's contract or mint on the chain does not match its configuration.",
  chain_mismatch: "Start-up only: the RPC node serves another chain than the one configured.",
  invalid_config: "Start-up only: a setting of the chain (RPC URL, keys) is missing or malformed.",
  unsupported: "Sandbox helpers only: the simulated chain cannot do what was asked of it.",
  rejected: "Sandbox: the simulated chain rejected the payout, as its forced-failure helper asked."
} as const

/** Machine-readable reason of a `ChainError` or a failed payout lookup: a key of {@link failureReasons}. */
export const FailureReason = Schema.Literals(Record.keys(failureReasons))
export type FailureReason = typeof FailureReason.Type

export class ChainError extends Schema.TaggedError<ChainError>()("ChainError", {
  chain: Schema.String,
  /** Machine-readable reason, used as a payout's `failure_code`. */
  reason: FailureReason,
  message: Schema.String
}) {}

export interface Rail {
  readonly chain: Chain
  readonly environment: Environment
  readonly token: FundsCurrency
}

/** A confirmed transfer of the token into a watched address, counted once by (chain, hash, index). */
export interface ConfirmedTransfer {
  readonly transactionHash: string
  readonly index: number
  readonly blockNumber: number
  readonly amount: Decimal
  readonly confirmedAt: DateTime.Utc
}

/**
 * A confirmed transfer into a watched address that does not fund the contract (another token),
 * reported so it is recorded for an operator rather than silently dropped.
 */
export interface StrayTransfer {
  readonly transactionHash: string
  readonly index: number
  readonly blockNumber: number
  /** The token's contract address (EVM) or mint (Solana). */
  readonly token: string
  /** Raw base units of that token (its decimals may be unknown to us). */
  readonly baseUnits: string
}

export interface FundingObservation {
  readonly transfers: ReadonlyArray<ConfirmedTransfer>
  /** Confirmed transfers of other tokens into the address; absent when the chain reports none. */
  readonly stray?: ReadonlyArray<StrayTransfer>
  /** Where the next observation resumes. */
  readonly cursor: string
}

export interface PayoutOrder {
  /** The payout's unique key: preparing twice for one id yields the same transaction. */
  readonly payoutId: string
  readonly rail: Rail
  readonly destination: string
  readonly amount: Decimal
}

export interface PreparedPayout {
  readonly transactionHash: string
  /** Everything needed to broadcast again (signed bytes, nonce / blockhash), serialised. */
  readonly persisted: string
}

export type PayoutLookup =
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Confirmed"; readonly blockNumber: number; readonly confirmedAt: DateTime.Utc }
  | { readonly _tag: "Failed"; readonly reason: FailureReason }
  /** Never seen by the chain (dropped, or expired blockhash): safe to prepare again. */
  | { readonly _tag: "Unknown" }

/** One address to observe, from where its last observation left off. */
export interface FundingTarget {
  readonly address: string
  readonly cursor: string | null
}

export interface ChainGatewayShape {
  readonly fundingAddress: (rail: Rail, index: number) => Effect.Effect<string, ChainError>
  readonly observeFunding: (
    rail: Rail,
    address: string,
    cursor: string | null
  ) => Effect.Effect<FundingObservation, ChainError>
  /**
   * `observeFunding` for several addresses of one rail, in their order: one query or RPC call
   * where the chain allows it, so a funding pass over many contracts costs the chain a few calls,
   * not one per contract and pass. Each observation is what `observeFunding` would answer.
   */
  readonly observeFundingBatch: (
    rail: Rail,
    targets: ReadonlyArray<FundingTarget>
  ) => Effect.Effect<ReadonlyArray<FundingObservation>, ChainError>
  readonly preparePayout: (order: PayoutOrder) => Effect.Effect<PreparedPayout, ChainError>
  readonly broadcastPayout: (rail: Rail, prepared: PreparedPayout) => Effect.Effect<void, ChainError>
  readonly lookupPayout: (rail: Rail, prepared: PreparedPayout) => Effect.Effect<PayoutLookup, ChainError>
}

export class ChainGateway extends Context.Service<ChainGateway, ChainGatewayShape>()("@ratelock/core/ChainGateway") {}

/**
 * `observeFundingBatch` for a chain that can only observe one address per call: `concurrency`
 * calls at a time.
 */
export const observeEach =
  (observe: ChainGatewayShape["observeFunding"], concurrency: number): ChainGatewayShape["observeFundingBatch"] =>
  (rail, targets) =>
    Effect.forEach(targets, (t) => observe(rail, t.address, t.cursor), { concurrency })
