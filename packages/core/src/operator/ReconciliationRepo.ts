/**
 * Persistence port for reconciliations: each run of one environment and chain, with every
 * difference it found between the books and the chain. The latest run of each (environment,
 * chain) is what the treasury view, the status and the gauge read; a difference carries the time
 * it was first seen, continued from run to run while it lasts.
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"
import { Chain } from "../kernel/Rail.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import { TreasuryCurrency } from "../lifecycle/TreasuryLedger.ts"
import { Environment } from "../terms/Partner.ts"

/** Which wallet a difference is at: a contract's funding address, the hot wallet, the treasury. */
export const ReconciledWallet = Schema.Literals(["funding_address", "hot_wallet", "treasury"])
export type ReconciledWallet = typeof ReconciledWallet.Type

export const ReconciliationDifference = Schema.Struct({
  wallet: ReconciledWallet,
  address: Schema.String,
  /** The contract whose funding address it is; null for the hot wallet and the treasury. */
  contractId: Schema.NullOr(Schema.String),
  currency: TreasuryCurrency,
  /** By the books. */
  ledger: Schema.BigDecimal,
  /** On the chain, at a block deep enough to stay. */
  onChain: Schema.BigDecimal,
  /** `onChain - ledger`: positive, more on chain than booked (an unrecorded inflow). */
  difference: Schema.BigDecimal,
  /** When a run first found this difference at this address and currency. */
  since: Schema.DateTimeUtc
}).annotate({ identifier: "ReconciliationDifference" })
export type ReconciliationDifference = typeof ReconciliationDifference.Type

export const ReconciliationRun = Schema.Struct({
  id: Schema.String,
  environment: Environment,
  chain: Chain,
  at: Schema.DateTimeUtc,
  /** How many balances were compared (addresses × currencies). */
  checked: Schema.Int,
  /** How many calls the gateway made of the chain for them. */
  chainCalls: Schema.Int,
  /** Why the run could not read the chain, when it could not (no differences are then claimed). */
  error: Schema.NullOr(Schema.String),
  differences: Schema.Array(ReconciliationDifference)
}).annotate({ identifier: "ReconciliationRun" })
export type ReconciliationRun = typeof ReconciliationRun.Type

export interface ReconciliationRepoShape {
  readonly save: (run: ReconciliationRun) => Effect.Effect<void, StoreError>
  /** The latest run of each environment and chain, by environment then chain. */
  readonly latest: () => Effect.Effect<ReadonlyArray<ReconciliationRun>, StoreError>
}

export class ReconciliationRepo extends Context.Service<ReconciliationRepo, ReconciliationRepoShape>()(
  "@ratelock/core/ReconciliationRepo"
) {}
