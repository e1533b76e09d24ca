/**
 * `partners`, `api_keys`, `webhook_endpoints` and `webhook_secrets` rows ↔ `PartnerRepo` records:
 * the one place their columns are named.
 */
import { Partner, PartnerRepo } from "@ratelock/core"
import { Schema, SchemaGetter } from "effect"
import type { SqlClient } from "effect/sql"
import { compiled, EpochMillis, Timestamp } from "./columns.ts"

const PartnerColumns = Schema.Struct({ id: Schema.String, name: Schema.String, created_at: Timestamp })

export const PartnerRow = compiled(
  PartnerColumns.pipe(
    Schema.decodeTo(PartnerRepo.PartnerRecord, {
      decode: SchemaGetter.transform(
        (r): PartnerRepo.PartnerRecord => ({ id: r.id, name: r.name, createdAt: r.created_at })
      ),
      encode: SchemaGetter.transform((p: PartnerRepo.PartnerRecord): typeof PartnerColumns.Type => ({
        id: p.id,
        name: p.name,
        created_at: p.createdAt
      }))
    })
  ).annotate({ identifier: "PartnerRow" })
)

const ApiKeyColumns = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  secret_hash: Schema.String,
  created_at: Timestamp,
  revoked_at: Schema.NullOr(Timestamp)
})

export const ApiKeyRow = compiled(
  ApiKeyColumns.pipe(
    Schema.decodeTo(PartnerRepo.ApiKeyRecord, {
      decode: SchemaGetter.transform(
        (r): PartnerRepo.ApiKeyRecord => ({
          id: r.id,
          partnerId: r.partner_id,
          environment: r.environment,
          secretHash: r.secret_hash,
          createdAt: r.created_at,
          revokedAt: r.revoked_at
        })
      ),
      encode: SchemaGetter.transform((k: PartnerRepo.ApiKeyRecord): typeof ApiKeyColumns.Type => ({
        id: k.id,
        partner_id: k.partnerId,
        environment: k.environment,
        secret_hash: k.secretHash,
        created_at: k.createdAt,
        revoked_at: k.revokedAt
      }))
    })
  ).annotate({ identifier: "ApiKeyRow" })
)

/** A `webhook_secrets` row: the secret at `position` (0 newest) of its endpoint. */
export const SecretRow = compiled(
  Schema.Struct({
    partner_id: Schema.String,
    environment: Partner.Environment,
    position: Schema.Int,
    secret: Schema.String,
    valid_until: Schema.NullOr(Timestamp)
  }).annotate({ identifier: "SecretRow" })
)

/** Secret rows in the endpoint's order (newest first), `position` 0, 1, … */
export const secretRows = (e: PartnerRepo.WebhookEndpoint) =>
  e.secrets.map((s, position): typeof SecretRow.Type => ({
    partner_id: e.partnerId,
    environment: e.environment,
    position,
    secret: s.secret,
    valid_until: s.validUntil
  }))

/** A secret inside a selected endpoint: JSON, `valid_until` in epoch milliseconds. */
const SecretJson = Schema.Struct({ secret: Schema.String, valid_until: Schema.NullOr(EpochMillis) })

const EndpointColumns = Schema.Struct({
  partner_id: Schema.String,
  environment: Partner.Environment,
  url: Schema.String,
  /** Aggregated by `selectEndpoint`, newest first. */
  secrets: Schema.NullOr(Schema.Array(SecretJson))
})

/** A selected `webhook_endpoints` row with its secrets ↔ `WebhookEndpoint` (read only: secrets are written as rows). */
export const EndpointRow = compiled(
  EndpointColumns.pipe(
    Schema.decodeTo(PartnerRepo.WebhookEndpoint, {
      decode: SchemaGetter.transform(
        (r): PartnerRepo.WebhookEndpoint => ({
          partnerId: r.partner_id,
          environment: r.environment,
          url: r.url,
          secrets: (r.secrets ?? []).map((s) => ({ secret: s.secret, validUntil: s.valid_until }))
        })
      ),
      encode: SchemaGetter.transform((e: PartnerRepo.WebhookEndpoint): typeof EndpointColumns.Type => ({
        partner_id: e.partnerId,
        environment: e.environment,
        url: e.url,
        secrets: e.secrets.map((s) => ({ secret: s.secret, valid_until: s.validUntil }))
      }))
    })
  ).annotate({ identifier: "EndpointRow" })
)

/** `SELECT` list of an endpoint with its secrets (one statement, one snapshot), over `webhook_endpoints e`. */
export const selectEndpoint = (sql: SqlClient.SqlClient) =>
  sql`e.partner_id, e.environment, e.url, (SELECT json_agg(json_build_object(
      'secret', s.secret, 'valid_until', (extract(epoch FROM s.valid_until) * 1000)::bigint) ORDER BY s.position)
    FROM webhook_secrets s WHERE s.partner_id = e.partner_id AND s.environment = e.environment) AS secrets`
