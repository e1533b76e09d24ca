/**
 * `IdempotencyRepo` on Postgres. A key is unique per `(partner_id, environment, key)`; `claim`
 * takes it with one `INSERT … ON CONFLICT DO UPDATE … WHERE expired`, so of two concurrent
 * requests exactly one gets `Claimed`, and a row past `expires_at` is taken over as a fresh claim.
 */
import { IdempotencyRepo, Partner, StoreError } from "@ratelock/core"
import { type DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Timestamp } from "./internal/rows/columns.ts"
import { HeldKeyRow } from "./internal/rows/idempotency.ts"
import { orStoreError } from "./internal/sql.ts"

const Key = Schema.Struct({ ...Partner.PartnerScope.fields, key: Schema.String })

const Take = Schema.Struct({ ...Key.fields, fingerprint: Schema.String, now: Timestamp, expiresAt: Timestamp })

const Complete = Schema.Struct({ ...Key.fields, response: IdempotencyRepo.StoredResponse, keepUntil: Timestamp })

/** How often `claim` looks again when the row it lost to vanished (released) in between. */
const attempts = 5

/**
 * Frees every key still claimed without an answer, returning how many. Only for a store that one
 * process has to itself (the embedded database, under its data-directory lock): at start-up every
 * such claim belongs to a request that died with the previous process, and the partner's retry
 * should run at once rather than wait for the claim's lease to end.
 */
export const releaseUnanswered = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql`DELETE FROM idempotency_keys WHERE response_status IS NULL RETURNING 1`, (rows) => rows.length)
)

export const layer: Layer.Layer<IdempotencyRepo.IdempotencyRepo, never, SqlClient.SqlClient> = Layer.effect(
  IdempotencyRepo.IdempotencyRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const keyIs = (key: typeof Key.Encoded) =>
      sql`partner_id = ${key.partnerId} AND environment = ${key.environment} AND key = ${key.key}`

    const take = SqlSchema.findAll({
      Request: Take,
      Result: Schema.Struct({ taken: Schema.Literal(1) }),
      execute: (r) => sql`INSERT INTO idempotency_keys
          (partner_id, environment, key, fingerprint, created_at, expires_at)
        VALUES (${r.partnerId}, ${r.environment}, ${r.key}, ${r.fingerprint}, ${r.now}, ${r.expiresAt})
        ON CONFLICT (partner_id, environment, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, response_status = NULL, response_body = NULL,
            created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
          WHERE idempotency_keys.expires_at <= ${r.now}
        RETURNING 1 AS taken`
    })

    const held = SqlSchema.findOneOption({
      Request: Key,
      Result: HeldKeyRow,
      execute: (r) => sql`SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE ${keyIs(r)}`
    })

    const claim = Effect.fn("PgIdempotencyRepo.claim")(function* (
      scope: Partner.PartnerScope,
      key: string,
      fingerprint: string,
      now: DateTime.Utc,
      expiresAt: DateTime.Utc
    ) {
      for (let attempt = 0; attempt < attempts; attempt++) {
        const taken = yield* take({ ...scope, key, fingerprint, now, expiresAt })
        if (taken.length > 0) return IdempotencyRepo.Claimed.make({})
        const found = yield* held({ ...scope, key })
        // released between the two statements: try again
        if (Option.isSome(found)) return found.value
      }
      return yield* new StoreError.StoreError({ message: `idempotency key kept changing while being claimed` })
    }, orStoreError("PgIdempotencyRepo.claim"))

    const completeRow = SqlSchema.void({
      Request: Complete,
      execute: (r) => sql`UPDATE idempotency_keys SET response_status = ${r.response.status},
          response_body = ${r.response.body}, expires_at = ${r.keepUntil}
        WHERE ${keyIs(r)}`
    })

    const complete = Effect.fn("PgIdempotencyRepo.complete")(function* (
      scope: Partner.PartnerScope,
      key: string,
      response: IdempotencyRepo.StoredResponse,
      keepUntil: DateTime.Utc
    ) {
      yield* completeRow({ ...scope, key, response, keepUntil })
    }, orStoreError("PgIdempotencyRepo.complete"))

    const releaseRow = SqlSchema.void({
      Request: Key,
      execute: (r) => sql`DELETE FROM idempotency_keys WHERE ${keyIs(r)}`
    })

    const release = Effect.fn("PgIdempotencyRepo.release")(function* (scope: Partner.PartnerScope, key: string) {
      yield* releaseRow({ ...scope, key })
    }, orStoreError("PgIdempotencyRepo.release"))

    return IdempotencyRepo.IdempotencyRepo.of({ claim, complete, release })
  })
)
