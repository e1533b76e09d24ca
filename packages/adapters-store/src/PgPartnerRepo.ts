/**
 * `PartnerRepo` on Postgres: partners, their API keys (secret hashes only), one webhook endpoint
 * per environment with its signing secrets, newest first, and one refund address per environment
 * and chain.
 */
import { type Partner, PartnerRepo } from "@ratelock/core"
import { Array, type DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { timestamp } from "./internal/rows/columns.ts"
import {
  ApiKeyRow,
  apiKeyRow,
  EndpointRow,
  PartnerRow,
  partnerRow,
  RefundAddressRow,
  refundAddressRow,
  secretRows,
  selectEndpoint
} from "./internal/rows/partners.ts"
import { isUuid, orStoreError, Parameters } from "./internal/sql.ts"

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
        const secrets: ReadonlyArray<ReturnType<typeof secretRows>[number]> = secretRows(endpoint)
        if (Array.isReadonlyArrayNonEmpty(secrets)) yield* sql`INSERT INTO webhook_secrets ${sql.insert(secrets)}`
      })

    /** The partner, then its keys, then its endpoints (inside the caller's transaction). */
    const writePartner = (partner: PartnerRepo.PartnerRecord, credentials: PartnerRepo.PartnerCredentials) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO partners ${sql.insert(partnerRow(partner))}`
        const keys: ReadonlyArray<ReturnType<typeof apiKeyRow>> = credentials.apiKeys.map(apiKeyRow)
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

    const anyPartner = SqlSchema.findOne({
      Request: Schema.Void,
      Result: Schema.Struct({ taken: Schema.Boolean }),
      execute: () => sql`SELECT EXISTS (SELECT 1 FROM partners) AS taken`
    })

    // the table lock (which only other writers of `partners` wait on) makes "no partner yet" hold
    // until the commit: a second caller reads the table after the first one committed
    const insertFirstPartner = Effect.fn("PgPartnerRepo.insertFirstPartner")(
      function* (partner: PartnerRepo.PartnerRecord, credentials: PartnerRepo.PartnerCredentials) {
        yield* sql`LOCK TABLE partners IN SHARE ROW EXCLUSIVE MODE`
        if ((yield* anyPartner()).taken) return false
        yield* writePartner(partner, credentials)
        return true
      },
      sql.withTransaction,
      orStoreError("PgPartnerRepo.insertFirstPartner")
    )

    const partnerById = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: PartnerRow,
      execute: (id) => sql`SELECT * FROM partners WHERE id = ${id}`
    })

    const findPartner = Effect.fn("PgPartnerRepo.findPartner")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* partnerById(id)
    }, orStoreError("PgPartnerRepo.findPartner"))

    const allPartners = SqlSchema.findAll({
      Request: Schema.Void,
      Result: PartnerRow,
      execute: () => sql`SELECT * FROM partners ORDER BY created_at, id`
    })

    const listPartners = Effect.fn("PgPartnerRepo.listPartners")(function* () {
      return yield* allPartners()
    }, orStoreError("PgPartnerRepo.listPartners"))

    const apiKeysOf = SqlSchema.findAll({
      Request: Parameters<string>(),
      Result: ApiKeyRow,
      execute: (partnerId) => sql`SELECT * FROM api_keys WHERE partner_id = ${partnerId} ORDER BY created_at, id`
    })

    const listApiKeys = Effect.fn("PgPartnerRepo.listApiKeys")(function* (partnerId: string) {
      if (!isUuid(partnerId)) return []
      return yield* apiKeysOf(partnerId)
    }, orStoreError("PgPartnerRepo.listApiKeys"))

    const insertApiKey = Effect.fn("PgPartnerRepo.insertApiKey")(function* (key: PartnerRepo.ApiKeyRecord) {
      yield* sql`INSERT INTO api_keys ${sql.insert(apiKeyRow(key))}`
    }, orStoreError("PgPartnerRepo.insertApiKey"))

    const apiKeyById = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: ApiKeyRow,
      execute: (id) => sql`SELECT * FROM api_keys WHERE id = ${id}`
    })

    // the key id comes straight from a request header: anything but a uuid is simply unknown
    const findApiKey = Effect.fn("PgPartnerRepo.findApiKey")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* apiKeyById(id)
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
    const endpointOf = SqlSchema.findOneOption({
      Request: Parameters<Partner.PartnerScope>(),
      Result: EndpointRow,
      execute: (scope) => sql`SELECT ${selectEndpoint(sql)} FROM webhook_endpoints e
        WHERE e.partner_id = ${scope.partnerId} AND e.environment = ${scope.environment}`
    })

    const findWebhookEndpoint = Effect.fn("PgPartnerRepo.findWebhookEndpoint")(function* (scope: Partner.PartnerScope) {
      return yield* endpointOf(scope)
    }, orStoreError("PgPartnerRepo.findWebhookEndpoint"))

    // the partner's foreign key refuses an unknown partner
    const saveRefundAddress = Effect.fn("PgPartnerRepo.saveRefundAddress")(function* (
      refund: PartnerRepo.RefundAddress
    ) {
      const row = refundAddressRow(refund)
      yield* sql`INSERT INTO partner_refund_addresses ${sql.insert(row)}
        ON CONFLICT (partner_id, environment, chain)
        DO UPDATE SET address = EXCLUDED.address, updated_at = EXCLUDED.updated_at`
    }, orStoreError("PgPartnerRepo.saveRefundAddress"))

    const refundAddressesOf = SqlSchema.findAll({
      Request: Parameters<string>(),
      Result: RefundAddressRow,
      execute: (partnerId) => sql`SELECT * FROM partner_refund_addresses WHERE partner_id = ${partnerId}
        ORDER BY environment COLLATE "C", chain COLLATE "C"`
    })

    const listRefundAddresses = Effect.fn("PgPartnerRepo.listRefundAddresses")(function* (partnerId: string) {
      if (!isUuid(partnerId)) return []
      return yield* refundAddressesOf(partnerId)
    }, orStoreError("PgPartnerRepo.listRefundAddresses"))

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
      findWebhookEndpoint,
      saveRefundAddress,
      listRefundAddresses
    })
  })
)
