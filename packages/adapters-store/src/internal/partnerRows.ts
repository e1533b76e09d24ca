/**
 * `partners`, `api_keys`, `webhook_endpoints` and `webhook_secrets` rows ↔ `PartnerRepo` records.
 */
import type { Partner, PartnerRepo } from "@ratelock/core"
import { DateTime } from "effect"
import { timestamp, timestampOrNull, utc, utcOrNull } from "./codec.ts"

export type PartnerRow = { readonly id: string; readonly name: string; readonly created_at: Date }

export type ApiKeyRow = {
  readonly id: string
  readonly partner_id: string
  readonly environment: string
  readonly secret_hash: string
  readonly created_at: Date
  readonly revoked_at: Date | null
}

/** An endpoint with its secrets aggregated as JSON, `valid_until` in epoch milliseconds. */
export type EndpointRow = {
  readonly url: string
  readonly secrets: ReadonlyArray<{ readonly secret: string; readonly valid_until: number | null }> | null
}

export const partnerToRow = (p: PartnerRepo.PartnerRecord): PartnerRow => ({
  id: p.id,
  name: p.name,
  created_at: timestamp(p.createdAt)
})

export const partnerFromRow = (r: PartnerRow): PartnerRepo.PartnerRecord => ({
  id: r.id,
  name: r.name,
  createdAt: utc(r.created_at)
})

export const apiKeyToRow = (k: PartnerRepo.ApiKeyRecord): ApiKeyRow => ({
  id: k.id,
  partner_id: k.partnerId,
  environment: k.environment,
  secret_hash: k.secretHash,
  created_at: timestamp(k.createdAt),
  revoked_at: timestampOrNull(k.revokedAt)
})

export const apiKeyFromRow = (r: ApiKeyRow): PartnerRepo.ApiKeyRecord => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment as Partner.Environment,
  secretHash: r.secret_hash,
  createdAt: utc(r.created_at),
  revokedAt: utcOrNull(r.revoked_at)
})

/** Secret rows in the endpoint's order (newest first), `position` 0, 1, … */
export const secretRows = (e: PartnerRepo.WebhookEndpoint): ReadonlyArray<Record<string, unknown>> =>
  e.secrets.map((s, position) => ({
    partner_id: e.partnerId,
    environment: e.environment,
    position,
    secret: s.secret,
    valid_until: timestampOrNull(s.validUntil)
  }))

export const endpointFromRow = (scope: Partner.PartnerScope, r: EndpointRow): PartnerRepo.WebhookEndpoint => ({
  partnerId: scope.partnerId,
  environment: scope.environment,
  url: r.url,
  secrets: (r.secrets ?? []).map((s) => ({
    secret: s.secret,
    validUntil: s.valid_until === null ? null : DateTime.makeUnsafe(s.valid_until)
  }))
})
