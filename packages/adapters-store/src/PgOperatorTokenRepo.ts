/**
 * `OperatorTokenRepo` on Postgres: `operator_tokens`, one row per token, its secret as a SHA-256
 * hash (unique, so a token is found by its hash on an index), its role, expiry and last use
 * (migration 21).
 */
import { OperatorTokenRepo } from "@ratelock/core"
import { type DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { timestamp } from "./internal/rows/columns.ts"
import { TokenRow, tokenRow } from "./internal/rows/operator.ts"
import { isUuid, orStoreError, Parameters } from "./internal/sql.ts"

export const layer: Layer.Layer<OperatorTokenRepo.OperatorTokenRepo, never, SqlClient.SqlClient> = Layer.effect(
  OperatorTokenRepo.OperatorTokenRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("PgOperatorTokenRepo.insert")(function* (token: OperatorTokenRepo.OperatorTokenRecord) {
      yield* sql`INSERT INTO operator_tokens ${sql.insert(tokenRow(token))}`
    }, orStoreError("PgOperatorTokenRepo.insert"))

    const byId = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: TokenRow,
      execute: (id) => sql`SELECT * FROM operator_tokens WHERE id = ${id}`
    })

    const find = Effect.fn("PgOperatorTokenRepo.find")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* byId(id)
    }, orStoreError("PgOperatorTokenRepo.find"))

    const byHash = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: TokenRow,
      execute: (hash) => sql`SELECT * FROM operator_tokens WHERE secret_hash = ${hash}`
    })

    const findByHash = Effect.fn("PgOperatorTokenRepo.findByHash")(function* (secretHash: string) {
      return yield* byHash(secretHash)
    }, orStoreError("PgOperatorTokenRepo.findByHash"))

    const all = SqlSchema.findAll({
      Request: Schema.Void,
      Result: TokenRow,
      execute: () => sql`SELECT * FROM operator_tokens ORDER BY created_at, id`
    })

    const list = Effect.fn("PgOperatorTokenRepo.list")(function* () {
      return yield* all()
    }, orStoreError("PgOperatorTokenRepo.list"))

    const revoke = Effect.fn("PgOperatorTokenRepo.revoke")(function* (id: string, at: DateTime.Utc) {
      if (!isUuid(id)) return
      yield* sql`UPDATE operator_tokens SET revoked_at = ${timestamp(at)} WHERE id = ${id} AND revoked_at IS NULL`
    }, orStoreError("PgOperatorTokenRepo.revoke"))

    // the latest use stands: a slow request noting an earlier one does not move it back
    const touch = Effect.fn("PgOperatorTokenRepo.touch")(function* (id: string, at: DateTime.Utc) {
      if (!isUuid(id)) return
      yield* sql`UPDATE operator_tokens SET last_used_at = greatest(last_used_at, ${timestamp(at)}) WHERE id = ${id}`
    }, orStoreError("PgOperatorTokenRepo.touch"))

    return OperatorTokenRepo.OperatorTokenRepo.of({ insert, find, findByHash, list, revoke, touch })
  })
)
