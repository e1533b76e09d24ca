/**
 * Plain-text output of `ratelock audit list`, made from the page `--json` prints (the operator
 * API's answer), so both modes print the same.
 */
import type { AuditLog } from "@ratelock/core"
import { table } from "./table.ts"

const target = (e: AuditLog.AuditEntry) => (e.target_id === null ? e.target_kind : `${e.target_kind} ${e.target_id}`)

export const page = (listed: AuditLog.AuditPage): string => {
  if (listed.items.length === 0) return "No audit records."
  const lines = [
    table(
      ["AT", "ACTOR", "ROLE", "ACTION", "TARGET", "OUTCOME", "REASON"],
      listed.items.map((e) => [
        e.at,
        e.actor,
        e.role ?? "-",
        e.action,
        target(e),
        e.outcome,
        // one line per record, whatever the message holds
        (e.reason ?? "").replace(/\s+/g, " ")
      ])
    )
  ]
  if (listed.next_cursor !== null) lines.push("", `Older records: the same command with --cursor ${listed.next_cursor}`)
  return lines.join("\n")
}
