/**
 * Port to the chains: funding addresses, confirmed funding, and two-step payouts
 * (prepare and persist, then broadcast; safe to repeat) with lookup by the persisted identity.
 */
import { Context, Effect, Schema } from "effect"
import type { DateTime } from "effect"
import type { Decimal } from "../kernel/Money.ts"
import { FailureReason } from "../terms/PayoutFailure.ts"
import type { Environment } from "../terms/Partner.ts"
import type { Chain, FundsCurrency } from "../kernel/Rail.ts"

// the reasons are wire terms (a payout's `failure_code`), defined below the lifecycle; re-exported so
// `ChainGateway.failureReasons` and `ChainGateway.FailureReason` keep naming them where gateways use them
export { FailureReason, failureReasons } from "../terms/PayoutFailure.ts"

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
