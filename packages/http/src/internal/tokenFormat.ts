/**
 * Plain-text output of `ratelock operator token …`, made from the JSON the command prints with
 * `--json` (the operator API's answer), so both modes print the same.
 */
import { OperatorTokens } from "@ratelock/core"
import { DateTime } from "effect"
import { table } from "./table.ts"

const field = (name: string, value: string) => `  ${name.padEnd(15)} ${value}`

export const createdToken = (t: OperatorTokens.CreatedToken): string =>
  [
    `Operator token created: ${t.name} (${t.role}). The token is shown only this once: store it now.`,
    field("token_id", t.token_id),
    field("role", t.role),
    field("expires_at", t.expires_at ?? "never (until revoked)"),
    field("token", t.token),
    "",
    "Use it as Authorization: Bearer <token> on the operator API (/metrics, /operator/v1/...)."
  ].join("\n")

/** `live`, `expired` (at `now`) or `revoked`: core's rule, on the listing's instants. */
const state = (t: OperatorTokens.TokenListing, now: number): string => {
  const at = (iso: string | null) => (iso === null ? null : DateTime.makeUnsafe(iso))
  return OperatorTokens.stateAt({ revokedAt: at(t.revoked_at), expiresAt: at(t.expires_at) }, DateTime.makeUnsafe(now))
}

export const tokenList = (
  list: { readonly items: ReadonlyArray<OperatorTokens.TokenListing> },
  now: number = Date.now()
): string =>
  list.items.length === 0
    ? "No operator tokens yet. Create one: pnpm ratelock operator token create --name NAME --role viewer"
    : table(
        ["TOKEN_ID", "NAME", "ROLE", "STATE", "CREATED", "EXPIRES", "REVOKED", "LAST USED"],
        list.items.map((t) => [
          t.token_id,
          t.name,
          t.role,
          state(t, now),
          t.created_at,
          t.expires_at ?? "never",
          t.revoked_at ?? "-",
          t.last_used_at ?? "never"
        ])
      )

export const revokedToken = (r: OperatorTokens.RevokedToken): string =>
  r.already_revoked
    ? `Operator token ${r.token_id} (${r.name}) was already revoked.`
    : `Operator token ${r.token_id} (${r.name}) revoked.`
