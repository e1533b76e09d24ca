/**
 * The money loop as the treasury view shows it (`Treasury.view`): per environment, chain and token,
 * what waits on funding addresses for a sweep (and whether it can be swept: watch-only funding
 * cannot), the hot wallet's float, the treasury's balance by the books, and today's sweeps,
 * refunds and network fees (UTC day); the refunds that wait and why; the last reconciliation of
 * each chain and its differences. Amounts exact, as decimal strings.
 */
import { DateTime, Effect } from "effect"
import * as Environments from "../kernel/Environment.ts"
import * as Money from "../kernel/Money.ts"
import { Chain, SettlementCurrency } from "../kernel/Rail.ts"
import { ChainGateway, type FundingKeys } from "../lifecycle/ChainGateway.ts"
import { MovementRepo } from "../lifecycle/MovementRepo.ts"
import { SettlementRails } from "../lifecycle/SettlementRails.ts"
import type { TreasuryEntry } from "../lifecycle/TreasuryLedger.ts"
import type { Environment } from "../terms/Partner.ts"
import { type ReconciledWallet, ReconciliationRepo, type ReconciliationRun } from "./ReconciliationRepo.ts"
import { isCandidate, minimumOf, SweepSettings } from "./Sweeps.ts"

export interface SweepRow {
  readonly environment: Environment
  readonly chain: Chain
  readonly token: SettlementCurrency
  /** `held`, or `watch_only` (only an xpub is configured: nothing can sign a sweep); null when no gateway answered. */
  readonly funding_keys: FundingKeys | null
  /** Funding addresses that would be swept (no longer awaiting funds, at least the minimum), and what they hold by the books. */
  readonly awaiting_sweep: number
  readonly awaiting_sweep_amount: string
  readonly sweep_min: string
  readonly hot_wallet_float: string | null
  readonly treasury_address: string | null
  /** The treasury's balance by the books. */
  readonly treasury_balance: string
  readonly swept_today: string
  readonly refunded_today: string
}

export interface FeeRow {
  readonly environment: Environment
  readonly chain: Chain
  readonly currency: string
  /** Network fees paid today (payouts, sweeps with their gas top-ups, refunds), in the chain's own currency. */
  readonly fees_today: string
}

export interface RefundWaiting {
  readonly id: string
  readonly environment: Environment
  readonly chain: Chain
  readonly token: SettlementCurrency
  readonly partner_id: string
  readonly contract_id: string
  readonly purpose: string
  readonly amount: string
  readonly status: string
  readonly waiting: string | null
  readonly last_error: string | null
  readonly created_at: string
}

export interface ReconciliationRow {
  readonly environment: Environment
  readonly chain: Chain
  readonly at: string
  readonly checked: number
  readonly chain_calls: number
  readonly error: string | null
  readonly differences: ReadonlyArray<{
    readonly wallet: ReconciledWallet
    readonly address: string
    readonly contract_id: string | null
    readonly currency: string
    readonly ledger: string
    readonly on_chain: string
    readonly difference: string
    readonly since: string
  }>
}

export interface Flows {
  readonly sweeps: ReadonlyArray<SweepRow>
  readonly fees: ReadonlyArray<FeeRow>
  readonly refunds_waiting: ReadonlyArray<RefundWaiting>
  readonly reconciliation: ReadonlyArray<ReconciliationRow>
}

/** A reconciliation run as the view and `treasury reconcile` write it. */
export const reconciliationRow = (r: ReconciliationRun): ReconciliationRow => ({
  environment: r.environment,
  chain: r.chain,
  at: DateTime.formatIso(r.at),
  checked: r.checked,
  chain_calls: r.chainCalls,
  error: r.error,
  differences: r.differences.map((d) => ({
    wallet: d.wallet,
    address: d.address,
    contract_id: d.contractId,
    currency: d.currency,
    ledger: Money.format(d.ledger),
    on_chain: Money.format(d.onChain),
    difference: Money.format(d.difference),
    since: DateTime.formatIso(d.since)
  }))
})

const total = (amounts: ReadonlyArray<Money.Decimal>) => amounts.reduce((s, a) => Money.sum(s, a), Money.zero)
const sumOf = (entries: ReadonlyArray<TreasuryEntry>) => total(entries.map((e) => e.amount))

/** The money loop of `environment` (every environment when none is named), as of now. */
export const flows = Effect.fn("TreasuryFlows.flows")(function* (environment?: Environment) {
  const now = yield* DateTime.now
  const rails = yield* SettlementRails
  const settings = yield* SweepSettings
  const repo = yield* MovementRepo
  // the keys are the gateway's configuration, asked of no chain; a host without gateways (a
  // command on the database alone) shows them unknown
  const gateway = yield* Effect.serviceOption(ChainGateway)
  const today = yield* repo.entriesSince({ since: DateTime.startOf(now, "day"), environment })
  const sweeps: Array<SweepRow> = []
  const fees: Array<FeeRow> = []
  for (const env of Environments.productionFirst) {
    if (environment !== undefined && env !== environment) continue
    for (const chain of Chain.literals) {
      const tokens = SettlementCurrency.literals.filter((token) => rails.supports(env, chain, token))
      if (tokens.length === 0) continue
      const keys =
        gateway._tag === "None"
          ? null
          : yield* gateway.value
              .fundingKeys({ environment: env, chain })
              .pipe(Effect.catchTag("ChainError", () => Effect.succeed(null)))
      const balances = yield* repo.fundingBalances({ environment: env, chain })
      const wallets = yield* repo.walletBalances({ environment: env, chain })
      const onRail = today.filter((e) => e.environment === env && e.chain === chain)
      const treasury = settings.treasury[chain] ?? null
      for (const token of tokens) {
        const waiting = balances.filter((b) => b.currency === token && isCandidate(settings, chain)(b))
        const float = settings.float[chain]?.[token]
        sweeps.push({
          environment: env,
          chain,
          token,
          funding_keys: keys,
          awaiting_sweep: waiting.length,
          awaiting_sweep_amount: Money.format(total(waiting.map((b) => b.balance))),
          sweep_min: Money.format(minimumOf(settings, chain, token)),
          hot_wallet_float: float === undefined ? null : Money.format(float),
          treasury_address: treasury,
          treasury_balance: Money.format(
            total(wallets.filter((w) => w.account === "treasury" && w.currency === token).map((w) => w.balance))
          ),
          // what left funding addresses today, and what the hot wallet paid back to partners
          swept_today: Money.format(
            Money.subtract(
              Money.zero,
              sumOf(onRail.filter((e) => e.kind === "sweep" && e.account === "funding_wallet" && e.currency === token))
            )
          ),
          refunded_today: Money.format(
            Money.subtract(
              Money.zero,
              sumOf(onRail.filter((e) => e.kind === "refund" && e.account === "payout_wallet" && e.currency === token))
            )
          )
        })
      }
      const native = onRail.filter((e) => e.account === "network_fees")
      if (native.length > 0) {
        fees.push({ environment: env, chain, currency: native[0]!.currency, fees_today: Money.format(sumOf(native)) })
      }
    }
  }
  const refunds = yield* repo.list({
    kinds: ["refund"],
    statuses: ["pending", "prepared", "failed"],
    environment,
    limit: 1000
  })
  return {
    sweeps,
    fees,
    refunds_waiting: refunds.map(
      (m): RefundWaiting => ({
        id: m.id,
        environment: m.environment,
        chain: m.chain,
        token: m.currency,
        partner_id: m.partnerId,
        contract_id: m.contractId,
        purpose: m.purpose,
        amount: Money.format(m.amount),
        status: m.status,
        waiting: m.waiting,
        last_error: m.lastError,
        created_at: DateTime.formatIso(m.createdAt)
      })
    )
  } satisfies Omit<Flows, "reconciliation">
})

/** The last reconciliation of each chain of `environment` (of every environment when none is named). */
export const reconciliations = Effect.fn("TreasuryFlows.reconciliations")(function* (environment?: Environment) {
  const runs = yield* (yield* ReconciliationRepo).latest()
  return runs.filter((r) => environment === undefined || r.environment === environment).map(reconciliationRow)
})
