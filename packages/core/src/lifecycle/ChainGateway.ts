/**
 * Port to the chains: funding addresses, confirmed funding, two-step payouts (sign and persist,
 * then broadcast; safe to repeat) with lookup by the persisted identity, replacements of a payout
 * that waits (a higher fee at the same nonce, a new blockhash), and the hot wallet's balances.
 *
 * Two depths. What the books are set against is read at the confirmation depth funding counts at
 * (`observeFunding`, `balances`, `nativeBalances`): the books record a transfer, payout, sweep or
 * refund only once it is confirmed there, so a reading at the latest block would differ from them
 * for every movement mined and not yet deep. `hotWallet` reads the latest block (Solana:
 * `confirmed`): what the hot wallet can pay with now (the treasury view, the alerts), and where it is.
 *
 * A persisted payout holds every version the gateway signed for it (the first, its replacements,
 * a cancellation); a lookup answers for all of them, so whichever was mined settles the payout.
 */
import { Context, Effect, Schema } from "effect"
import type { DateTime } from "effect"
import type { Decimal } from "../kernel/Money.ts"
import type { PayoutWait } from "../terms/PayoutWait.ts"
import { FailureReason } from "../terms/PayoutFailure.ts"
import type { Environment } from "../terms/Partner.ts"
import type { Chain, FundsCurrency } from "../kernel/Rail.ts"
import type { NativeMovement } from "./TreasuryLedger.ts"

// the reasons are wire terms (a payout's `failure_code`), defined below the lifecycle; re-exported so
// `ChainGateway.failureReasons` and `ChainGateway.FailureReason` keep naming them where gateways use them
export { FailureReason, failureReasons } from "../terms/PayoutFailure.ts"
export { PayoutWait, payoutWaits } from "../terms/PayoutWait.ts"

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
  /**
   * The payout's unique key. Preparing twice may sign two transactions (the chain's fees moved):
   * at most once comes from core persisting one before it broadcasts, and from their shared nonce.
   */
  readonly payoutId: string
  readonly rail: Rail
  readonly destination: string
  readonly amount: Decimal
  /**
   * What the hot wallet has already promised in this token on this rail: the amounts of the
   * payouts signed and not yet confirmed (this one excluded), which will draw on the same balance.
   * A gateway refuses the draft with `insufficient_funds` unless the token balance covers
   * `committed + amount`: a payout that waits for funds is safe, one mined without them reverts
   * and burns its fee. Zero where nothing is owed (a caller without a store).
   */
  readonly committed: Decimal
}

export interface PreparedPayout {
  readonly transactionHash: string
  /** Everything needed to broadcast again (signed bytes, nonce / blockhash), serialised. */
  readonly persisted: string
}

/**
 * The account whose nonces order a payout's transactions (an EVM hot wallet). The store hands out
 * its nonces: the lowest at or above `floor` that no recorded transaction holds.
 */
export interface NonceAccount {
  /** The signing address, lowercase. */
  readonly signer: string
  /** The account's transaction count at the latest block: every nonce below it is consumed. */
  readonly floor: number
  /** The node's pending count: the nonce a caller without a store (a test, an embedder) may sign at. */
  readonly pending: number
}

/**
 * A payout checked and priced, not yet signed. `sign` does no I/O where the chain has nonces, so
 * the store runs it inside the transaction that allocates the nonce and records what was signed:
 * two workers never sign two transactions with one nonce.
 */
export interface PayoutDraft {
  /** The account whose nonce the payout takes; null where the chain has none (Solana, simulated). */
  readonly nonceAccount: NonceAccount | null
  /** Signs at `nonce` (null without a nonce account). */
  readonly sign: (nonce: number | null) => Effect.Effect<PreparedPayout, ChainError>
}

/**
 * What to make of a prepared payout that is not mined: `due`, a replacement if the chain's pace
 * calls for one (the replace-after time passed and the fee is below what the chain asks; on Solana,
 * the blockhash expired); `bump`, a replacement now (an operator's); `cancel`, a transaction that
 * takes the payout's nonce and pays nothing (EVM only).
 */
export type ReplaceMode = "due" | "bump" | "cancel"

export type Replacement =
  /** A new version, to be persisted (with the earlier ones) before it is broadcast. */
  | { readonly _tag: "Replaced"; readonly prepared: PreparedPayout }
  /** Nothing new to sign: why the payout waits. */
  | { readonly _tag: "Waiting"; readonly reason: PayoutWait; readonly message: string }

/** One signed version of a payout, for an operator. */
export interface PayoutVersion {
  readonly transactionHash: string
  /** EVM: the nonce (every version of a payout shares it). */
  readonly nonce: number | null
  /** `transfer` pays the customer; `cancel` takes the nonce and pays nothing. */
  readonly kind: "transfer" | "cancel"
  /** The fees it was signed with, by name (`max_fee_per_gas_gwei`, `compute_unit_price_micro_lamports`, ...). */
  readonly fees: Readonly<Record<string, string>>
  readonly signedAt: DateTime.Utc
}

/** A prepared payout as the chain sees it now: its versions and what the chain asks. */
export interface PayoutInspection {
  readonly versions: ReadonlyArray<PayoutVersion>
  /** The fees a transaction signed now would carry, by the same names, and the operator's cap. */
  readonly chainAsks: Readonly<Record<string, string>>
}

/** A hot wallet's balances, at the latest block: its native currency (`NATIVE`, for fees and rent) and each token served. */
export interface HotWallet {
  readonly address: string
  readonly balances: ReadonlyArray<{ readonly asset: "NATIVE" | FundsCurrency; readonly amount: Decimal }>
}

export type PayoutLookup =
  | { readonly _tag: "Pending" }
  | {
      readonly _tag: "Confirmed"
      readonly blockNumber: number
      readonly confirmedAt: DateTime.Utc
      /** The version that was mined. */
      readonly transactionHash: string
      /** The mined version was a cancellation: nothing was paid and the nonce is spent. */
      readonly cancelled: boolean
      /**
       * What the mined transactions moved in the chain's native currency (fees, a sweep's gas
       * top-up, rent), for the ledger; absent where nothing is (the simulated chain).
       */
      readonly native?: NativeMovement | undefined
    }
  | {
      readonly _tag: "Failed"
      readonly reason: FailureReason
      /**
       * What a transaction that was executed and failed still cost in the native currency (its
       * fee, a sweep's top-up already sent), for the ledger; absent when none ran (a nonce taken by
       * another transaction).
       */
      readonly native?: NativeMovement | undefined
    }
  /** Never seen by the chain (dropped, or expired blockhash): safe to prepare again. */
  | { readonly _tag: "Unknown" }

/**
 * A sweep: the whole `amount` of the rail's token on a funding address (derived at `fundingIndex`)
 * to `destination`, or to the rail's hot wallet when it is null. Signed as one persisted job the
 * payout calls broadcast, look up and replace: on EVM a gas top-up from the hot wallet (at its
 * nonce, `PayoutDraft.nonceAccount`) and the token transfer signed with the funding key, the
 * transfer broadcast once the top-up is mined; on Solana one transaction, the hot wallet paying
 * the fee and receiving the closed token account's rent.
 */
export interface SweepOrder {
  readonly sweepId: string
  readonly rail: Rail
  readonly source: string
  readonly fundingIndex: number
  readonly destination: string | null
  readonly amount: Decimal
}

/** Whether the rail's funding keys are held (sweeps can be signed) or only watched (an xpub). */
export type FundingKeys = "held" | "watch_only"

/** One address to observe, from where its last observation left off. */
export interface FundingTarget {
  readonly address: string
  readonly cursor: string | null
}

export interface ChainGatewayShape {
  /**
   * The address a payout could be sent to on the rail's chain and environment, by the very rule a
   * payout's destination is checked with, as it is to be stored (EVM lowercase, Solana as given);
   * `invalid_address` with the rule in the message otherwise. No I/O: nothing is asked of the chain.
   */
  readonly checkAddress: (rail: Omit<Rail, "token">, address: string) => Effect.Effect<string, ChainError>
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
  /** Checks and prices a payout; core signs it through the store (see {@link PayoutDraft}). */
  readonly draftPayout: (order: PayoutOrder) => Effect.Effect<PayoutDraft, ChainError>
  /** `draftPayout` signed at once, at the node's pending nonce: for callers without a store. */
  readonly preparePayout: (order: PayoutOrder) => Effect.Effect<PreparedPayout, ChainError>
  /** Broadcasts the latest version (again is harmless). */
  readonly broadcastPayout: (rail: Rail, prepared: PreparedPayout) => Effect.Effect<void, ChainError>
  readonly lookupPayout: (rail: Rail, prepared: PreparedPayout) => Effect.Effect<PayoutLookup, ChainError>
  /**
   * A new version of a payout that is not mined, or why it waits. The answer holds every earlier
   * version too: core persists it before it broadcasts.
   */
  readonly replacePayout: (
    rail: Rail,
    prepared: PreparedPayout,
    mode: ReplaceMode
  ) => Effect.Effect<Replacement, ChainError>
  readonly inspectPayout: (rail: Rail, prepared: PreparedPayout) => Effect.Effect<PayoutInspection, ChainError>
  /**
   * Token balances of `addresses` on the rail at the confirmation depth, in their order, exact: a
   * few calls for many addresses where the chain allows it (a reconciliation reads thousands).
   */
  readonly balances: (rail: Rail, addresses: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Decimal>, ChainError>
  /**
   * `balances` of the chain's native currency (ETH, POL: 18 decimals; SOL: 9), at the same depth:
   * what the books track of it (fees, gas top-ups, rent), set against the same block. Zeros on a
   * chain without one (the simulated chains).
   */
  readonly nativeBalances: (
    rail: Omit<Rail, "token">,
    addresses: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<Decimal>, ChainError>
  /** Whether sweeps of the rail's funding addresses can be signed here. */
  readonly fundingKeys: (rail: Omit<Rail, "token">) => Effect.Effect<FundingKeys, ChainError>
  /** Checks and prices a sweep; core signs it through the store, as a payout. */
  readonly draftSweep: (order: SweepOrder) => Effect.Effect<PayoutDraft, ChainError>
  /**
   * The rail's chain and environment's hot wallet, when one is configured: its address, and its
   * balances at the latest block (Solana: `confirmed`), not at the books' depth (`balances` and
   * `nativeBalances` are).
   */
  readonly hotWallet: (rail: Omit<Rail, "token">) => Effect.Effect<HotWallet | null, ChainError>
}

export class ChainGateway extends Context.Service<ChainGateway, ChainGatewayShape>()("@ratelock/core/ChainGateway") {}

/** `preparePayout` from `draftPayout`: signed at the node's pending nonce, when the chain has nonces. */
export const signAtPending =
  (draft: ChainGatewayShape["draftPayout"]): ChainGatewayShape["preparePayout"] =>
  (order) =>
    Effect.flatMap(draft(order), (d) => d.sign(d.nonceAccount === null ? null : d.nonceAccount.pending))

/** A draft for a chain without nonces: signing is `prepare` itself. */
export const withoutNonce = (prepare: Effect.Effect<PreparedPayout, ChainError>): PayoutDraft => ({
  nonceAccount: null,
  sign: () => prepare
})

/**
 * `observeFundingBatch` for a chain that can only observe one address per call: `concurrency`
 * calls at a time.
 */
export const observeEach =
  (observe: ChainGatewayShape["observeFunding"], concurrency: number): ChainGatewayShape["observeFundingBatch"] =>
  (rail, targets) =>
    Effect.forEach(targets, (t) => observe(rail, t.address, t.cursor), { concurrency })
