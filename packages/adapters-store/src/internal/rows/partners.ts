/**
 * `partners`, `api_keys`, `webhook_endpoints`, `webhook_secrets` and `partner_refund_addresses` rows and `PartnerRepo`
 * records: the one place their columns are named, in the schemas reads decode and the mappings
 * writes bind.
 */
import { Partner, PartnerRepo, Rail } from "@ratelock/core"
import { Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { EpochMillis, fromMillisOrNull, rowSchema, Timestamp, timestamp, timestampOrNull, utc } from "./columns.ts"
import { RevocableColumns, revocableOf, revocableRow } from "./revocable.ts"

const PartnerColumns = Schema.Struct({ id: Schema.String, name: Schema.String, created_at: Timestamp })

/** The row a partner is written as. */
export const partnerRow = (p: PartnerRepo.PartnerRecord): typeof PartnerColumns.Type => ({
  id: p.id,
  name: p.name,
  created_at: timestamp(p.createdAt)
})

/** A `partners` row → `PartnerRecord`. */
export const PartnerRow = rowSchema("PartnerRow", PartnerColumns, PartnerRepo.PartnerRecord, (r) => ({
  id: r.id,
  name: r.name,
  createdAt: utc(r.created_at)
}))

const ApiKeyColumns = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  ...RevocableColumns.fields
})

/** The row an API key is written as. */
export const apiKeyRow = (k: PartnerRepo.ApiKeyRecord): typeof ApiKeyColumns.Type => ({
  id: k.id,
  partner_id: k.partnerId,
  environment: k.environment,
  ...revocableRow(k)
})

/** An `api_keys` row → `ApiKeyRecord`. */
export const ApiKeyRow = rowSchema("ApiKeyRow", ApiKeyColumns, PartnerRepo.ApiKeyRecord, (r) => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment,
  ...revocableOf(r)
}))

/** Secret rows in the endpoint's order (newest first), `position` 0, 1, … (read back through `EndpointRow`). */
export const secretRows = (e: PartnerRepo.WebhookEndpoint) =>
  e.secrets.map((s, position) => ({
    partner_id: e.partnerId,
    environment: e.environment,
    position,
    secret: s.secret,
    valid_until: timestampOrNull(s.validUntil)
  }))

/** A secret inside a selected endpoint: JSON, `valid_until` in epoch milliseconds. */
const SecretJson = Schema.Struct({ secret: Schema.String, valid_until: Schema.NullOr(EpochMillis) })

/** A selected `webhook_endpoints` row with its secrets (`selectEndpoint`) → `WebhookEndpoint`. */
const EndpointColumns = Schema.Struct({
  partner_id: Schema.String,
  environment: Partner.Environment,
  url: Schema.String,
  /** Aggregated by `selectEndpoint`, newest first. */
  secrets: Schema.NullOr(Schema.Array(SecretJson))
})

export const EndpointRow = rowSchema("EndpointRow", EndpointColumns, PartnerRepo.WebhookEndpoint, (r) => ({
  partnerId: r.partner_id,
  environment: r.environment,
  url: r.url,
  secrets: (r.secrets ?? []).map((s) => ({ secret: s.secret, validUntil: fromMillisOrNull(s.valid_until) }))
}))

/** `SELECT` list of an endpoint with its secrets (one statement, one snapshot), over `webhook_endpoints e`. */
export const selectEndpoint = (sql: SqlClient.SqlClient) =>
  sql`e.partner_id, e.environment, e.url, (SELECT json_agg(json_build_object(
      'secret', s.secret, 'valid_until', (extract(epoch FROM s.valid_until) * 1000)::bigint) ORDER BY s.position)
    FROM webhook_secrets s WHERE s.partner_id = e.partner_id AND s.environment = e.environment) AS secrets`

const RefundAddressColumns = Schema.Struct({
  partner_id: Schema.String,
  environment: Partner.Environment,
  chain: Rail.Chain,
  address: Schema.String,
  updated_at: Timestamp
})

/** The row a refund address is written as. */
export const refundAddressRow = (r: PartnerRepo.RefundAddress): typeof RefundAddressColumns.Type => ({
  partner_id: r.partnerId,
  environment: r.environment,
  chain: r.chain,
  address: r.address,
  updated_at: timestamp(r.updatedAt)
})

/** A `partner_refund_addresses` row → `RefundAddress`. */
export const RefundAddressRow = rowSchema("RefundAddressRow", RefundAddressColumns, PartnerRepo.RefundAddress, (r) => ({
  partnerId: r.partner_id,
  environment: r.environment,
  chain: r.chain,
  address: r.address,
  updatedAt: utc(r.updated_at)
}))
