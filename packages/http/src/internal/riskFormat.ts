/**
 * What `ratelock risk report` and `risk scenario list` print without `--json`: the book of one
 * environment as aligned tables (risk.md's figures), and the scenarios. Both are made from the
 * JSON `--json` prints, which is the operator API's answer, so the text reads the same in both
 * modes; amounts are the report's decimal strings as they are.
 */
import type { RiskDesk, RiskDeskReport } from "@ratelock/core"
import { table } from "./table.ts"

const section = (title: string, body: string) => `${title}\n${body}`

/** The report of one environment, headline first, then pairs, hedges, currencies, stress, payouts, limits. */
export const report = (r: typeof RiskDeskReport.DeskReport.Encoded): string => {
  const worst = r.stress[0]
  const headline = [
    `Book of ${r.environment} as of ${r.as_of} (computed ${r.computed_at}), market snapshot ${r.snapshot_id ?? "built-in illustrative"} of ${r.snapshot_as_of}`,
    `  open locks ${r.open_locks}, open notional ${r.open_notional_usd} USD, mtm ${r.mtm_usd} USD, vega ${r.vega_usd} USD, theta ${r.theta_usd} USD`,
    worst === undefined ? "  no stress scenario" : `  worst stress: ${worst.name}, ${worst.mtm_change_usd} USD`,
    `  committed (not yet funded): ${r.committed.locks} locks, ${r.committed.notional_usd} USD`
  ].join("\n")
  const pairs = table(
    ["PAIR", "SPOT", "LOCKS", "OPEN NOTIONAL", "MTM", "MTM USD", "DELTA", "GAMMA", "VEGA", "THETA"],
    r.pairs.map((p) => [
      p.pair,
      p.spot,
      String(p.open_locks),
      p.open_notional,
      p.mtm,
      p.mtm_usd,
      p.delta,
      p.gamma,
      p.vega,
      p.theta
    ])
  )
  const hedges = table(
    ["PAIR", "POLICY", "POSITION", "TARGET", "RESIDUAL", "WOULD PLACE", "P&L USD", "TODAY", "PENDING"],
    r.pairs.map((p) => [
      p.pair,
      p.hedge.policy === null ? "none" : `${p.hedge.policy.target_ratio} ± ${p.hedge.policy.band}`,
      p.hedge.position,
      p.hedge.target === null ? "-" : p.hedge.target,
      p.hedge.residual_delta,
      p.hedge.order_needed === null ? "-" : `${p.hedge.order_needed.side} ${p.hedge.order_needed.amount}`,
      p.hedge.pnl_usd,
      String(p.hedge.orders_today),
      p.hedge.pending_order ?? "-"
    ])
  )
  const currencies = table(
    ["CURRENCY", "NET EXPOSURE", "USD"],
    r.currencies.map((c) => [c.currency, c.net_exposure, c.net_exposure_usd])
  )
  const stress = table(
    ["SCENARIO", "MTM CHANGE USD", "DESCRIPTION"],
    r.stress.map((s) => [s.name, s.mtm_change_usd, s.description])
  )
  const payouts =
    r.payouts_due.length === 0
      ? "  none"
      : table(
          ["TOKEN", "CHAIN", "PAYOUTS", "AMOUNT", "USD"],
          r.payouts_due.map((p) => [p.token, p.chain, String(p.payouts), p.amount, p.amount_usd])
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

export const scenarios = (shown: { readonly items: ReadonlyArray<RiskDesk.ScenarioListing> }): string =>
  table(
    ["NAME", "FROM", "SPOT SHOCKS", "VOL SHIFT", "DESCRIPTION"],
    shown.items.map((s) => [
      s.name,
      s.source,
      Object.entries(s.spot_shocks)
        .map(([pair, shock]) => `${pair} ${shock}`)
        .join(", ") || "-",
      s.vol_shift,
      s.description
    ])
  )
