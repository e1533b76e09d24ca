/**
 * `PartnerRepo` on Postgres: partners, their API keys (secret hashes only) and one webhook
 * endpoint per environment with its signing secrets, newest first.
 */
import { type Partner, PartnerRepo } from "@ratelock/core"
import { Array, type DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { isUuid, orStoreError, timestamp } from "./internal/codec.ts"
import {
  type ApiKeyRow,
  apiKeyFromRow,
  apiKeyToRow,
  type PartnerRow,
  partnerFromRow,
  partnerToRow,
  type EndpointRow,
  endpointFromRow,
  secretRows
} from "./internal/partnerRows.ts"

export const layer: Layer.Layer<PartnerRepo.PartnerRepo, never, SqlClient.SqlClient> = Layer.effect(
  PartnerRepo.PartnerRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The endpoint's URL and its secrets, replacing the previous ones (inside the caller's transaction). */
    const writeEndpoint = (endpoint: PartnerRepo.WebhookEndpoint) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO webhook_endpoints (partner_id, environment, url)
          VALUES (${endpoint.partnerId}, ${endpoint.environment}, ${endpoint.url})
          ON CONFLICT (partner_id, environment) DO UPDATE SET url = EXCLUDED.url`
        yield* sql`DELETE FROM webhook_secrets
          WHERE partner_id = ${endpoint.partnerId} AND environment = ${endpoint.environment}`
        const secrets = secretRows(endpoint)
        if (Array.isReadonlyArrayNonEmpty(secrets)) yield* sql`INSERT INTO webhook_secrets ${sql.insert(secrets)}`
      })

    /** The partner, then its keys, then its endpoints (inside the caller's transaction). */
    const writePartner = (partner: PartnerRepo.PartnerRecord, credentials: PartnerRepo.PartnerCredentials) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO partners ${sql.insert(partnerToRow(partner))}`
        const keys: ReadonlyArray<Record<string, unknown>> = credentials.apiKeys.map(apiKeyToRow)
        if (Array.isReadonlyArrayNonEmpty(keys)) yield* sql`INSERT INTO api_keys ${sql.insert(keys)}`
        yield* Effect.forEach(credentials.webhookEndpoints, writeEndpoint, { discard: true })
      })

    const insertPartner = Effect.fn("PgPartnerRepo.insertPartner")(
      function* (
        partner: PartnerRepo.PartnerRecord,
        credentials: PartnerRepo.PartnerCredentials = PartnerRepo.noCredentials
      ) {
        yield* writePartner(partner, credentials)
      },
      sql.withTransaction,
      orStoreError("PgPartnerRepo.insertPartner")
    )

    // the table lock (which only other writers of `partners` wait on) makes "no partner yet" hold
    // until the commit: a second caller reads the table after the first one committed
    const insertFirstPartner = Effect.fn("PgPartnerRepo.insertFirstPartner")(
      function* (partner: PartnerRepo.PartnerRecord, credentials: PartnerRepo.PartnerCredentials) {
        yield* sql`LOCK TABLE partners IN SHARE ROW EXCLUSIVE MODE`
        const rows = yield* sql<{ readonly taken: boolean }>`SELECT EXISTS (SELECT 1 FROM partners) AS taken`
        if (rows[0]?.taken !== false) return false
        yield* writePartner(partner, credentials)
        return true
      },
      sql.withTransaction,
      orStoreError("PgPartnerRepo.insertFirstPartner")
    )

    const findPartner = Effect.fn("PgPartnerRepo.findPartner")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      const rows = yield* sql<PartnerRow>`SELECT * FROM partners WHERE id = ${id}`
      return Option.map(Option.fromNullishOr(rows[0]), partnerFromRow)
    }, orStoreError("PgPartnerRepo.findPartner"))

    const listPartners = Effect.fn("PgPartnerRepo.listPartners")(function* () {
      const rows = yield* sql<PartnerRow>`SELECT * FROM partners ORDER BY created_at, id`
      return rows.map(partnerFromRow)
    }, orStoreError("PgPartnerRepo.listPartners"))

    const listApiKeys = Effect.fn("PgPartnerRepo.listApiKeys")(function* (partnerId: string) {
      if (!isUuid(partnerId)) return []
      const rows = yield* sql<ApiKeyRow>`SELECT * FROM api_keys WHERE partner_id = ${partnerId} ORDER BY created_at, id`
      return rows.map(apiKeyFromRow)
    }, orStoreError("PgPartnerRepo.listApiKeys"))

    const insertApiKey = Effect.fn("PgPartnerRepo.insertApiKey")(function* (key: PartnerRepo.ApiKeyRecord) {
      yield* sql`INSERT INTO api_keys ${sql.insert(apiKeyToRow(key))}`
    }, orStoreError("PgPartnerRepo.insertApiKey"))

    // the key id comes straight from a request header: anything but a uuid is simply unknown
    const findApiKey = Effect.fn("PgPartnerRepo.findApiKey")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      const rows = yield* sql<ApiKeyRow>`SELECT * FROM api_keys WHERE id = ${id}`
      return Option.map(Option.fromNullishOr(rows[0]), apiKeyFromRow)
    }, orStoreError("PgPartnerRepo.findApiKey"))

    // the first revocation stands
    const revokeApiKey = Effect.fn("PgPartnerRepo.revokeApiKey")(function* (id: string, at: DateTime.Utc) {
      if (!isUuid(id)) return
      yield* sql`UPDATE api_keys SET revoked_at = ${timestamp(at)} WHERE id = ${id} AND revoked_at IS NULL`
    }, orStoreError("PgPartnerRepo.revokeApiKey"))

    const saveWebhookEndpoint = Effect.fn("PgPartnerRepo.saveWebhookEndpoint")(
      function* (endpoint: PartnerRepo.WebhookEndpoint) {
        yield* writeEndpoint(endpoint)
      },
      sql.withTransaction,
      orStoreError("PgPartnerRepo.saveWebhookEndpoint")
    )

    // one statement, one snapshot: the url and the secrets of the same save
    const findWebhookEndpoint = Effect.fn("PgPartnerRepo.findWebhookEndpoint")(function* (scope: Partner.PartnerScope) {
      const rows = yield* sql<EndpointRow>`SELECT e.url, (SELECT json_agg(json_build_object(
            'secret', s.secret, 'valid_until', (extract(epoch FROM s.valid_until) * 1000)::bigint) ORDER BY s.position)
          FROM webhook_secrets s WHERE s.partner_id = e.partner_id AND s.environment = e.environment) AS secrets
        FROM webhook_endpoints e WHERE e.partner_id = ${scope.partnerId} AND e.environment = ${scope.environment}`
      return Option.map(Option.fromNullishOr(rows[0]), (row) => endpointFromRow(scope, row))
    }, orStoreError("PgPartnerRepo.findWebhookEndpoint"))

    return PartnerRepo.PartnerRepo.of({
      insertPartner,
      insertFirstPartner,
      findPartner,
      listPartners,
      listApiKeys,
      insertApiKey,
      findApiKey,
      revokeApiKey,
      saveWebhookEndpoint,
      findWebhookEndpoint
    })
  })
)
