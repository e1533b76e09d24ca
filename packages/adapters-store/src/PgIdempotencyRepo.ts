/**
 * `IdempotencyRepo` on Postgres. A key is unique per `(partner_id, environment, key)`; `claim`
 * takes it with one `INSERT … ON CONFLICT DO UPDATE … WHERE expired`, so of two concurrent
 * requests exactly one gets `Claimed`, and a row past `expires_at` is taken over as a fresh claim.
 */
import { IdempotencyRepo, type Partner, StoreError } from "@ratelock/core"
import { type DateTime, Effect, Layer, Option } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { timestamp } from "./internal/rows/columns.ts"
import { HeldKeyRow } from "./internal/rows/idempotency.ts"
import { orStoreError, Parameters } from "./internal/sql.ts"

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
    const keyIs = (scope: Partner.PartnerScope, key: string) =>
      sql`partner_id = ${scope.partnerId} AND environment = ${scope.environment} AND key = ${key}`

    const held = SqlSchema.findOneOption({
      Request: Parameters<Partner.PartnerScope & { readonly key: string }>(),
      Result: HeldKeyRow,
      execute: (r) =>
        sql`SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE ${keyIs(r, r.key)}`
    })

    const claim = Effect.fn("PgIdempotencyRepo.claim")(function* (
      scope: Partner.PartnerScope,
      key: string,
      fingerprint: string,
      now: DateTime.Utc,
      expiresAt: DateTime.Utc
    ) {
      for (let attempt = 0; attempt < attempts; attempt++) {
        const taken = yield* sql`INSERT INTO idempotency_keys
            (partner_id, environment, key, fingerprint, created_at, expires_at)
          VALUES (${scope.partnerId}, ${scope.environment}, ${key}, ${fingerprint}, ${timestamp(now)}, ${timestamp(expiresAt)})
          ON CONFLICT (partner_id, environment, key) DO UPDATE
            SET fingerprint = EXCLUDED.fingerprint, response_status = NULL, response_body = NULL,
              created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
            WHERE idempotency_keys.expires_at <= ${timestamp(now)}
          RETURNING 1`
        if (taken.length > 0) return { _tag: "Claimed" } satisfies IdempotencyRepo.Claim
        const found = yield* held({ ...scope, key })
        // released between the two statements: try again
        if (Option.isSome(found)) return found.value
      }
      return yield* new StoreError.StoreError({ message: `idempotency key kept changing while being claimed` })
    }, orStoreError("PgIdempotencyRepo.claim"))

    const complete = Effect.fn("PgIdempotencyRepo.complete")(function* (
      scope: Partner.PartnerScope,
      key: string,
      response: IdempotencyRepo.StoredResponse,
      keepUntil: DateTime.Utc
    ) {
      yield* sql`UPDATE idempotency_keys SET response_status = ${response.status}, response_body = ${response.body},
          expires_at = ${timestamp(keepUntil)}
        WHERE ${keyIs(scope, key)}`
    }, orStoreError("PgIdempotencyRepo.complete"))

    const release = Effect.fn("PgIdempotencyRepo.release")(function* (scope: Partner.PartnerScope, key: string) {
      yield* sql`DELETE FROM idempotency_keys WHERE ${keyIs(scope, key)}`
    }, orStoreError("PgIdempotencyRepo.release"))

    return IdempotencyRepo.IdempotencyRepo.of({ claim, complete, release })
  })
)
