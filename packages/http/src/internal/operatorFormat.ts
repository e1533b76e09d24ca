/**
 * Plain-text output of the operator CLI (`--json` prints the records as they are instead).
 */
import type { Partners } from "@ratelock/core"
import type * as UnmatchedFunds from "../UnmatchedFunds.ts"

const field = (name: string, value: string) => `  ${name.padEnd(15)} ${value}`

export const createdPartner = (created: Partners.CreatedPartner): string => {
  const lines = [`Partner created: ${created.name}`, field("partner_id", created.partner_id), ""]
  lines.push("Secrets below are shown only this once: store them now.")
  for (const [environment, c] of Object.entries(created.environments)) {
    lines.push("", `${environment}:`)
    lines.push(field("api_key_id", c.api_key_id), field("api_key_secret", c.api_key_secret))
    lines.push(field("webhook_url", c.webhook_url ?? "(none)"))
    lines.push(
      field(
        "webhook_secret",
        c.webhook_secret ??
          `(none until a URL is set: pnpm ratelock webhook set --partner ${created.partner_id} --environment ${environment} --url URL)`
      )
    )
  }
  return lines.join("\n")
}

export const partnerList = (partners: ReadonlyArray<Partners.PartnerListing>): string => {
  if (partners.length === 0) return "No partners yet. Create one: pnpm ratelock partner create --name NAME"
  return partners
    .map((p) => {
      const lines = [`${p.partner_id}  ${p.name}  (created ${p.created_at})`]
      for (const key of p.keys) {
        const state = key.revoked_at === null ? "live" : `revoked ${key.revoked_at}`
        lines.push(`  key ${key.api_key_id}  ${key.environment.padEnd(10)}  created ${key.created_at}  ${state}`)
      }
      for (const [environment, url] of Object.entries(p.webhook_urls)) {
        lines.push(`  webhook ${environment.padEnd(10)}  ${url}`)
      }
      return lines.join("\n")
    })
    .join("\n\n")
}

export const issuedKey = (key: Partners.IssuedKey): string =>
  [
    `API key created for partner ${key.partner_id} (${key.environment}). The secret is shown only this once.`,
    field("api_key_id", key.api_key_id),
    field("api_key_secret", key.api_key_secret)
  ].join("\n")

export const revokedKey = (r: { readonly api_key_id: string; readonly already_revoked: boolean }): string =>
  r.already_revoked ? `API key ${r.api_key_id} was already revoked.` : `API key ${r.api_key_id} revoked.`

export const webhookSet = (w: {
  readonly partner_id: string
  readonly environment: string
  readonly webhook_url: string
  readonly webhook_secret: string
}): string =>
  [
    `Webhook URL set for partner ${w.partner_id} (${w.environment}). The secret is shown only this once;`,
    "the previous secret, if any, keeps signing alongside it for 24 hours.",
    field("webhook_url", w.webhook_url),
    field("webhook_secret", w.webhook_secret)
  ].join("\n")

export const unmatchedFunds = (transfers: ReadonlyArray<UnmatchedFunds.UnmatchedListing>): string =>
  transfers.length === 0
    ? "No unmatched funds."
    : transfers
        .map((t) =>
          [
            `${t.observed_at}  ${t.chain} ${t.transaction_hash} #${t.index}`,
            field("contract", `${t.fx_contract_id} (${t.contract_status}, ${t.environment})`),
            field("partner", t.partner_id),
            field("amount", `${t.amount} ${t.unit === "token" ? t.token : `base units of ${t.token}`}`),
            field("reason", t.reason)
          ].join("\n")
        )
        .join("\n\n")
