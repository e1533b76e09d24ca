/**
 * The treasury an operator watches (`ratelock treasury show`, `GET /operator/v1/treasury`): per
 * environment, chain and asset, the hot wallet's balance as the workers last read it (with its
 * age), the operator's low threshold (`Thresholds`), the payouts due on that chain and token and
 * what they need, and whether the balance covers them; per environment and chain, the payouts
 * stuck (waiting on the fee cap or on funds). The status's alerts (`alerts`) come from the same view.
 *
 * Every amount is exact (`Money`), written as a decimal string with the scale it was read or summed
 * with. Nothing here asks a chain: the balances are the hot-wallet pass's (`HotWallets.watch`).
 *
 * - A row exists for every asset read on a rail, and for every token with payouts due (the sandbox's
 *   simulated chains have no hot wallet: their rows have payouts and no balance).
 * - `can_pay`, a token: its balance is at least what the payouts due on it add up to. `NATIVE`, which
 *   pays the fees: no payout is due on the chain, or its balance is above zero and not under its
 *   threshold (the operator's measure of the fees the wallet needs). Null without a reading.
 * - `below_min`: the balance is under the threshold; null without a threshold or a reading.
 */
import { Context, DateTime, Effect } from "effect"
import * as Money from "../kernel/Money.ts"
import type { Chain } from "../kernel/Rail.ts"
import { PayoutRepo, type PayoutRecord, type PayoutStatus } from "../lifecycle/PayoutRepo.ts"
import type { Environment } from "../terms/Partner.ts"
import { isStuck } from "../terms/PayoutWait.ts"
import * as TreasuryFlows from "./TreasuryFlows.ts"
import { compare, type HotWalletAsset, type HotWalletReading, HotWalletRepo } from "./HotWalletRepo.ts"

/** The operator's low thresholds per chain and asset (`RATELOCK_<CHAIN>_HOT_WALLET_MIN_<ASSET>`), in every environment. */
export type ThresholdsShape = Readonly<Partial<Record<Chain, Readonly<Partial<Record<HotWalletAsset, Money.Decimal>>>>>>

/** None unless the host reads them from its settings. */
export const Thresholds = Context.Reference<ThresholdsShape>("@ratelock/core/Treasury/Thresholds", {
  defaultValue: () => ({})
})

/** The setting that holds a chain's threshold for an asset: `RATELOCK_POLYGON_HOT_WALLET_MIN_USDC`. */
export const thresholdVariable = (chain: Chain, asset: HotWalletAsset): string =>
  `RATELOCK_${chain.toUpperCase()}_HOT_WALLET_MIN_${asset}`

/** The statuses of a payout the hot wallet still has to pay: not signed yet, or signed and not mined. */
export const dueStatuses: ReadonlyArray<PayoutStatus> = ["pending", "prepared"]

/** How many payouts due the view reads per environment, oldest first. */
export const dueLimit = 10_000

export interface WalletRow {
  readonly environment: Environment
  readonly chain: Chain
  readonly asset: HotWalletAsset
  /** The hot wallet read; null when none was (a simulated chain, or not read yet). */
  readonly address: string | null
  /** Its balance at the last reading; null when none. */
  readonly balance: string | null
  readonly read_at: string | null
  readonly age_seconds: number | null
  /** The operator's threshold; null when none is set. */
  readonly min_balance: string | null
  readonly below_min: boolean | null
  /** Payouts due (pending or prepared) on this chain, in this token; for `NATIVE`, every payout due on the chain (each pays a fee). */
  readonly payouts_due: number
  /** What those payouts add up to in this token; `NATIVE` pays none of it: "0". */
  readonly payouts_due_amount: string
  readonly can_pay: boolean | null
}

export interface StuckPayouts {
  readonly environment: Environment
  readonly chain: Chain
  /** Payouts waiting on the fee cap or on funds. */
  readonly stuck: number
  readonly fee_cap: number
  readonly insufficient_funds: number
  readonly oldest_stuck_age_seconds: number
}

/** The hot wallets and the payouts they owe (`build`). */
export interface TreasuryWallets {
  readonly checked_at: string
  /** By environment, chain, then `NATIVE` before the tokens. */
  readonly wallets: ReadonlyArray<WalletRow>
  /** Only the chains with a payout stuck. */
  readonly stuck_payouts: ReadonlyArray<StuckPayouts>
}

/** The whole view: the wallets, and the money loop (sweeps, fees, refunds waiting, reconciliations). */
export type TreasuryView = TreasuryWallets & TreasuryFlows.Flows

export interface Alert {
  readonly kind: "hot_wallet_low" | "payouts_stuck" | "reconciliation_differences"
  readonly environment: Environment
  readonly chain: Chain
  /** The asset under its threshold (`hot_wallet_low` only). */
  readonly asset?: HotWalletAsset
  readonly message: string
}

/** Whole seconds from `then` to `now`, never negative. */
const ageSeconds = (then: DateTime.Utc, now: DateTime.Utc): number =>
  Math.max(0, Math.floor((now.epochMilliseconds - then.epochMilliseconds) / 1000))

const key = (environment: Environment, chain: Chain, asset: HotWalletAsset) => `${environment}|${chain}|${asset}`

/** The payouts due of the environments asked for (every environment when none is named). */
const payoutsDue = (environment: Environment | undefined) =>
  PayoutRepo.use((repo) => repo.list({ statuses: dueStatuses, environment, limit: dueLimit }))

/**
 * The treasury from the stored readings, the thresholds and the payouts due, as of `now`; pure, for
 * `view` and for tests.
 */
export const build = (input: {
  readonly now: DateTime.Utc
  readonly readings: ReadonlyArray<HotWalletReading>
  readonly thresholds: ThresholdsShape
  readonly payouts: ReadonlyArray<PayoutRecord>
}): TreasuryWallets => {
  const { now, thresholds } = input
  const due = input.payouts.filter((p) => dueStatuses.includes(p.status))
  // what each (environment, chain, token) owes, and how many payouts each chain has due
  const owed = new Map<string, { count: number; amount: Money.Decimal }>()
  const perChain = new Map<string, number>()
  for (const p of due) {
    const k = key(p.environment, p.chain, p.currency)
    const o = owed.get(k) ?? { count: 0, amount: Money.zero }
    owed.set(k, { count: o.count + 1, amount: Money.sum(o.amount, p.amount) })
    perChain.set(`${p.environment}|${p.chain}`, (perChain.get(`${p.environment}|${p.chain}`) ?? 0) + 1)
  }
  const rows = new Map<
    string,
    { environment: Environment; chain: Chain; asset: HotWalletAsset; reading: HotWalletReading | null }
  >()
  for (const r of input.readings) rows.set(key(r.environment, r.chain, r.asset), { ...r, reading: r })
  for (const p of due) {
    const k = key(p.environment, p.chain, p.currency)
    if (!rows.has(k)) rows.set(k, { environment: p.environment, chain: p.chain, asset: p.currency, reading: null })
  }
  const wallets = [...rows.values()].sort(compare).map(({ environment, chain, asset, reading }): WalletRow => {
    const minimum = thresholds[chain]?.[asset]
    const o = asset === "NATIVE" ? undefined : owed.get(key(environment, chain, asset))
    const count = asset === "NATIVE" ? (perChain.get(`${environment}|${chain}`) ?? 0) : (o?.count ?? 0)
    const amount = o?.amount ?? Money.zero
    const below = reading === null || minimum === undefined ? null : Money.lessThan(reading.amount, minimum)
    const canPay =
      reading === null
        ? null
        : asset === "NATIVE"
          ? count === 0 || (Money.isPositive(reading.amount) && below !== true)
          : !Money.lessThan(reading.amount, amount)
    return {
      environment,
      chain,
      asset,
      address: reading?.address ?? null,
      balance: reading === null ? null : Money.format(reading.amount),
      read_at: reading === null ? null : DateTime.formatIso(reading.readAt),
      age_seconds: reading === null ? null : ageSeconds(reading.readAt, now),
      min_balance: minimum === undefined ? null : Money.format(minimum),
      below_min: below,
      payouts_due: count,
      payouts_due_amount: Money.format(amount),
      can_pay: canPay
    }
  })
  const stuck = new Map<
    string,
    { environment: Environment; chain: Chain; fee_cap: number; insufficient_funds: number; oldest: number }
  >()
  for (const p of due) {
    // the second test only names the two stuck waits for the counters below
    if (!isStuck(p) || (p.waiting !== "fee_cap" && p.waiting !== "insufficient_funds")) continue
    const k = `${p.environment}|${p.chain}`
    const s = stuck.get(k) ?? {
      environment: p.environment,
      chain: p.chain,
      fee_cap: 0,
      insufficient_funds: 0,
      oldest: 0
    }
    s[p.waiting]++
    s.oldest = Math.max(s.oldest, ageSeconds(p.createdAt, now))
    stuck.set(k, s)
  }
  const stuck_payouts = [...stuck.values()]
    .sort((a, b) =>
      a.environment !== b.environment ? (a.environment < b.environment ? -1 : 1) : a.chain < b.chain ? -1 : 1
    )
    .map(
      (s): StuckPayouts => ({
        environment: s.environment,
        chain: s.chain,
        stuck: s.fee_cap + s.insufficient_funds,
        fee_cap: s.fee_cap,
        insufficient_funds: s.insufficient_funds,
        oldest_stuck_age_seconds: s.oldest
      })
    )
  return { checked_at: DateTime.formatIso(now), wallets, stuck_payouts }
}

/**
 * The hot wallets, the payouts they owe and the last reconciliations of `environment` (or of every
 * environment), from stored readings and runs only: what the status and the gauges read, often.
 */
export const glance = Effect.fn("Treasury.glance")(function* (
  options: { readonly environment?: Environment | undefined } = {}
) {
  const now = yield* DateTime.now
  const readings = (yield* (yield* HotWalletRepo).list()).filter(
    (r) => options.environment === undefined || r.environment === options.environment
  )
  const payouts = yield* payoutsDue(options.environment)
  const built = build({ now, readings, thresholds: yield* Thresholds, payouts })
  return { ...built, reconciliation: yield* TreasuryFlows.reconciliations(options.environment) }
})

/** The whole treasury of `environment`, or of every environment: the glance and the money loop. */
export const view = Effect.fn("Treasury.view")(function* (
  options: { readonly environment?: Environment | undefined } = {}
) {
  const glanced = yield* glance(options)
  return { ...glanced, ...(yield* TreasuryFlows.flows(options.environment)) } satisfies TreasuryView
})

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** What makes the service degraded in a treasury: a wallet under its threshold, payouts stuck. */
export const alerts = (treasury: TreasuryWallets & Partial<TreasuryFlows.Flows>): ReadonlyArray<Alert> => [
  ...treasury.wallets.flatMap(
    (w): ReadonlyArray<Alert> =>
      w.below_min === true
        ? [
            {
              kind: "hot_wallet_low",
              environment: w.environment,
              chain: w.chain,
              asset: w.asset,
              message:
                `The ${w.environment} ${w.chain} hot wallet holds ${w.balance} ${w.asset}, under its minimum of ` +
                `${w.min_balance} (${thresholdVariable(w.chain, w.asset)}): fund it.`
            }
          ]
        : []
  ),
  ...(treasury.reconciliation ?? []).flatMap(
    (r): ReadonlyArray<Alert> =>
      r.differences.length === 0
        ? []
        : [
            {
              kind: "reconciliation_differences",
              environment: r.environment,
              chain: r.chain,
              message:
                `${plural(r.differences.length, "difference", "differences")} between the books and ${r.environment} ` +
                `${r.chain} at the last reconciliation (${r.at}): see \`ratelock treasury show\`; an inflow is recorded with ` +
                "`ratelock treasury record-inflow`."
            }
          ]
  ),
  ...treasury.stuck_payouts.map(
    (s): Alert => ({
      kind: "payouts_stuck",
      environment: s.environment,
      chain: s.chain,
      message:
        `${plural(s.stuck, "payout", "payouts")} stuck on ${s.environment} ${s.chain}` +
        ` (${s.fee_cap} over the fee cap, ${s.insufficient_funds} short of funds), the oldest created ` +
        `${s.oldest_stuck_age_seconds} s ago.`
    })
  )
]
