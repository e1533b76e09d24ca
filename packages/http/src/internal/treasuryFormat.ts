/** Plain-text output of `ratelock treasury show` (`--json` prints the view as it is). */
import type { Treasury, TreasuryFlows } from "@ratelock/core"
import { table } from "./table.ts"

const yesNo = (value: boolean | null) => (value === null ? "-" : value ? "yes" : "NO")

/** Whole seconds as an age: "42s", "3m12s", "2h05m". */
const age = (seconds: number | null) => {
  if (seconds === null) return "-"
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}m`
}

export const treasury = (view: Treasury.TreasuryView): string => {
  const wallets =
    view.wallets.length === 0
      ? "No hot wallet read and no payout due (the workers read each production chain's hot wallet once a minute)."
      : table(
          ["ENVIRONMENT", "CHAIN", "ASSET", "BALANCE", "READ", "MIN", "LOW", "DUE", "DUE_AMOUNT", "CAN_PAY", "ADDRESS"],
          view.wallets.map((w) => [
            w.environment,
            w.chain,
            w.asset,
            w.balance ?? "-",
            w.age_seconds === null ? "never" : `${age(w.age_seconds)} ago`,
            w.min_balance ?? "-",
            w.below_min === true ? "LOW" : w.below_min === false ? "ok" : "-",
            String(w.payouts_due),
            w.payouts_due_amount,
            yesNo(w.can_pay),
            w.address ?? "-"
          ])
        )
  const stuck =
    view.stuck_payouts.length === 0
      ? "No payout stuck."
      : [
          "Stuck payouts:",
          table(
            ["ENVIRONMENT", "CHAIN", "STUCK", "FEE_CAP", "INSUFFICIENT_FUNDS", "OLDEST"],
            view.stuck_payouts.map((s) => [
              s.environment,
              s.chain,
              String(s.stuck),
              String(s.fee_cap),
              String(s.insufficient_funds),
              age(s.oldest_stuck_age_seconds)
            ])
          )
        ].join("\n")
  return [wallets, "", stuck, "", ...moneyLoop(view)].join("\n")
}

/** The sweeps, today's figures, the refunds waiting and the last reconciliations. */
const moneyLoop = (view: Treasury.TreasuryView): ReadonlyArray<string> => [
  view.sweeps.length === 0
    ? "No rail to sweep."
    : table(
        [
          "ENVIRONMENT",
          "CHAIN",
          "TOKEN",
          "KEYS",
          "AWAITING_SWEEP",
          "AMOUNT",
          "MIN",
          "FLOAT",
          "TREASURY",
          "SWEPT_TODAY",
          "REFUNDED_TODAY"
        ],
        view.sweeps.map((w) => [
          w.environment,
          w.chain,
          w.token,
          w.funding_keys ?? "-",
          String(w.awaiting_sweep),
          w.awaiting_sweep_amount,
          w.sweep_min,
          w.hot_wallet_float ?? "-",
          w.treasury_address === null ? "-" : `${w.treasury_balance} at ${w.treasury_address}`,
          w.swept_today,
          w.refunded_today
        ])
      ),
  ...view.fees.map((f) => `Network fees today on ${f.environment} ${f.chain}: ${f.fees_today} ${f.currency}`),
  "",
  view.refunds_waiting.length === 0
    ? "No refund waiting."
    : [
        "Refunds waiting:",
        table(
          ["ENVIRONMENT", "CHAIN", "TOKEN", "PURPOSE", "AMOUNT", "STATUS", "WAITING", "CONTRACT", "LAST_ERROR"],
          view.refunds_waiting.map((r) => [
            r.environment,
            r.chain,
            r.token,
            r.purpose,
            r.amount,
            r.status,
            r.waiting ?? "-",
            r.contract_id,
            r.last_error ?? "-"
          ])
        )
      ].join("\n"),
  "",
  reconciliation(view.reconciliation)
]

/** `treasury reconcile`: the runs it made. */
export const reconciled = (view: { readonly reconciliation: ReadonlyArray<TreasuryFlows.ReconciliationRow> }): string =>
  reconciliation(view.reconciliation)

/** The last reconciliation of each chain, and every difference it found. */
export const reconciliation = (runs: ReadonlyArray<TreasuryFlows.ReconciliationRow>): string =>
  runs.length === 0
    ? "Not reconciled yet (`ratelock treasury reconcile`)."
    : runs
        .map((r) =>
          [
            `Reconciliation of ${r.environment} ${r.chain} at ${r.at}: ${r.checked} balances, ${r.chain_calls} chain calls, ` +
              (r.error !== null
                ? `the chain could not be read (${r.error})`
                : r.differences.length === 0
                  ? "no difference"
                  : `${r.differences.length} difference(s):`),
            ...(r.differences.length === 0
              ? []
              : [
                  table(
                    ["WALLET", "ADDRESS", "CURRENCY", "LEDGER", "ON_CHAIN", "DIFFERENCE", "SINCE"],
                    r.differences.map((d) => [
                      d.wallet,
                      d.address,
                      d.currency,
                      d.ledger,
                      d.on_chain,
                      d.difference,
                      d.since
                    ])
                  )
                ])
          ].join("\n")
        )
        .join("\n")
