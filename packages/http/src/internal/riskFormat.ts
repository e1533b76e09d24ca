/**
 * What `ratelock risk report` prints without `--json`: the book of one environment as aligned
 * tables (risk.md's figures), amounts as the report's decimal strings.
 */
import { Money, type RiskDeskReport, type RiskScenario } from "@ratelock/core"
import { DateTime } from "effect"
import { table } from "./table.ts"

const f = (d: Money.Decimal) => Money.format(d)
const iso = (d: DateTime.Utc) => DateTime.formatIso(d)

const section = (title: string, body: string) => `${title}\n${body}`

/** The report of one environment, headline first, then pairs, hedges, currencies, stress, payouts, limits. */
export const report = (r: RiskDeskReport.DeskReport): string => {
  const worst = r.stress[0]
  const headline = [
    `Book of ${r.environment} as of ${iso(r.as_of)} (computed ${iso(r.computed_at)}), market snapshot ${r.snapshot_id ?? "built-in illustrative"} of ${iso(r.snapshot_as_of)}`,
    `  open locks ${r.open_locks}, open notional ${f(r.open_notional_usd)} USD, mtm ${f(r.mtm_usd)} USD, vega ${f(r.vega_usd)} USD, theta ${f(r.theta_usd)} USD`,
    worst === undefined ? "  no stress scenario" : `  worst stress: ${worst.name}, ${f(worst.mtm_change_usd)} USD`,
    `  committed (not yet funded): ${r.committed.locks} locks, ${f(r.committed.notional_usd)} USD`
  ].join("\n")
  const pairs = table(
    ["PAIR", "SPOT", "LOCKS", "OPEN NOTIONAL", "MTM", "MTM USD", "DELTA", "GAMMA", "VEGA", "THETA"],
    r.pairs.map((p) => [
      p.pair,
      f(p.spot),
      String(p.open_locks),
      f(p.open_notional),
      f(p.mtm),
      f(p.mtm_usd),
      f(p.delta),
      f(p.gamma),
      f(p.vega),
      f(p.theta)
    ])
  )
  const hedges = table(
    ["PAIR", "POLICY", "POSITION", "TARGET", "RESIDUAL", "WOULD PLACE", "P&L USD", "TODAY", "PENDING"],
    r.pairs.map((p) => [
      p.pair,
      p.hedge.policy === null ? "none" : `${f(p.hedge.policy.target_ratio)} ± ${f(p.hedge.policy.band)}`,
      f(p.hedge.position),
      p.hedge.target === null ? "-" : f(p.hedge.target),
      f(p.hedge.residual_delta),
      p.hedge.order_needed === null ? "-" : `${p.hedge.order_needed.side} ${f(p.hedge.order_needed.amount)}`,
      f(p.hedge.pnl_usd),
      String(p.hedge.orders_today),
      p.hedge.pending_order ?? "-"
    ])
  )
  const currencies = table(
    ["CURRENCY", "NET EXPOSURE", "USD"],
    r.currencies.map((c) => [c.currency, f(c.net_exposure), f(c.net_exposure_usd)])
  )
  const stress = table(
    ["SCENARIO", "MTM CHANGE USD", "DESCRIPTION"],
    r.stress.map((s) => [s.name, f(s.mtm_change_usd), s.description])
  )
  const payouts =
    r.payouts_due.length === 0
      ? "  none"
      : table(
          ["TOKEN", "CHAIN", "PAYOUTS", "AMOUNT", "USD"],
          r.payouts_due.map((p) => [p.token, p.chain, String(p.payouts), f(p.amount), f(p.amount_usd)])
        )
  const limits = table(
    ["CORRIDOR", "UNIT", "MAX LOCK", "MAX OPEN", "MAX NET DELTA", "OPEN NOTIONAL", "HEADROOM"],
    r.limits.map((l) => [
      l.corridor,
      l.currency,
      l.max_lock_notional ??
        (l.default_max_lock_notional === null ? "-" : `${l.default_max_lock_notional.amount} (default)`),
      l.max_open_notional ?? "unlimited",
      l.max_net_delta ?? "unlimited",
      l.open_notional,
      l.headroom ?? "unlimited"
    ])
  )
  return [
    headline,
    section("Pairs (delta, gamma in BASE; mtm, vega, theta in QUOTE)", pairs),
    section("Hedges (BASE units; residual = delta + position)", hedges),
    section("Net currency exposure", currencies),
    section("Stress, worst first", stress),
    section("Payouts due", payouts),
    section("Limits", limits)
  ].join("\n\n")
}

export const scenarios = (list: ReadonlyArray<RiskScenario.Scenario>, operator: ReadonlySet<string>): string =>
  table(
    ["NAME", "FROM", "SPOT SHOCKS", "VOL SHIFT", "DESCRIPTION"],
    list.map((s) => [
      s.name,
      operator.has(s.name) ? "operator" : "default",
      Object.entries(s.spot_shocks)
        .map(([pair, shock]) => `${pair} ${Money.format(shock)}`)
        .join(", ") || "-",
      Money.format(s.vol_shift),
      s.description
    ])
  )
