/** Plain-text output of `ratelock treasury show` (`--json` prints the view as it is). */
import type { Treasury } from "@ratelock/core"
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
  return [wallets, "", stuck].join("\n")
}
