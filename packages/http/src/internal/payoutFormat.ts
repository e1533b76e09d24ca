/** The payout commands' text: a table of payouts, one payout's versions, a bump or cancellation. */
import type { PayoutDesk } from "@ratelock/core"
import type { ReplacedPayout } from "../api/OperatorMoney.ts"
import { table } from "./table.ts"

const age = (seconds: number) =>
  seconds < 120 ? `${seconds}s` : seconds < 7200 ? `${Math.floor(seconds / 60)}m` : `${Math.floor(seconds / 3600)}h`

export const list = ({ items: payouts }: { readonly items: ReadonlyArray<PayoutDesk.PayoutView> }): string =>
  payouts.length === 0
    ? "No payouts."
    : table(
        ["CONTRACT", "ENV", "CHAIN", "AMOUNT", "STATUS", "WAITING", "NONCE", "VERSIONS", "AGE", "LAST ERROR"],
        payouts.map((p) => [
          p.contract_id,
          p.environment,
          p.chain,
          `${p.amount} ${p.currency}`,
          p.status,
          p.waiting === null ? "-" : p.stuck ? `${p.waiting} (stuck)` : p.waiting,
          p.nonce === null ? "-" : String(p.nonce),
          p.transaction_hash === null ? "0" : String(p.replacements + 1),
          age(p.age_seconds),
          p.last_error ?? ""
        ])
      )

const fees = (f: Readonly<Record<string, string>>) =>
  Object.entries(f)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ")

export const detail = (p: PayoutDesk.PayoutDetail): string =>
  [
    `Payout ${p.payout_id} of contract ${p.contract_id} (${p.environment}, ${p.chain})`,
    `  ${p.amount} ${p.currency} to ${p.destination}`,
    `  status ${p.status}${p.waiting === null ? "" : `, waiting: ${p.waiting}${p.stuck ? " (stuck)" : ""}`}`,
    `  attempts ${p.attempts}, replacements ${p.replacements}, nonce ${p.nonce ?? "-"}`,
    ...(p.last_error === null ? [] : [`  last error: ${p.last_error}`]),
    ...(p.versions.length === 0
      ? ["  No version signed yet."]
      : [
          "",
          table(
            ["#", "KIND", "TRANSACTION", "NONCE", "FEES", "SIGNED"],
            p.versions.map((v, i) => [
              String(i),
              v.kind,
              v.transaction_hash,
              v.nonce === null ? "-" : String(v.nonce),
              fees(v.fees),
              v.signed_at
            ])
          )
        ]),
    ...(p.chain_asks === null ? [] : ["", `The chain asks now: ${fees(p.chain_asks)}`]),
    ...(p.chain_error === null ? [] : ["", `The chain did not answer: ${p.chain_error}`])
  ].join("\n")

export const replaced = (what: "bump" | "cancel", p: typeof ReplacedPayout.Type): string =>
  what === "bump"
    ? `Payout of contract ${p.contract_id} replaced: ${p.transaction_hash} sent (version ${p.replacements + 1}).`
    : `Cancellation of the payout of contract ${p.contract_id} sent: ${p.transaction_hash}. Once it is mined the payout is sent again as a new transaction.`
