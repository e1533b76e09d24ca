/**
 * `QuoteRepo` on Postgres. Reads are scoped by `(partner_id, environment)`; the list is newest
 * first by `(created_at, id)` on the scope indexes.
 */
import type { Partner, Quote } from "@ratelock/core"
import { QuoteRepo } from "@ratelock/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { isUuid, orStoreError, timestamp } from "./internal/codec.ts"
import { before } from "./internal/keyset.ts"
import { fromRow, type QuoteRow, toRow } from "./internal/quoteRows.ts"

export const layer: Layer.Layer<QuoteRepo.QuoteRepo, never, SqlClient.SqlClient> = Layer.effect(
  QuoteRepo.QuoteRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("PgQuoteRepo.insert")(function* (quote: Quote.QuoteRecord) {
      yield* sql`INSERT INTO quotes ${sql.insert(toRow(quote))}`
    }, orStoreError("PgQuoteRepo.insert"))

    const find = Effect.fn("PgQuoteRepo.find")(function* (scope: Partner.PartnerScope, id: string) {
      if (!isUuid(id)) return Option.none()
      const rows = yield* sql<QuoteRow>`SELECT * FROM quotes
        WHERE id = ${id} AND partner_id = ${scope.partnerId} AND environment = ${scope.environment}`
      return Option.map(Option.fromNullishOr(rows[0]), fromRow)
    }, orStoreError("PgQuoteRepo.find"))

    const list = Effect.fn("PgQuoteRepo.list")(function* (scope: Partner.PartnerScope, filter: QuoteRepo.QuoteFilter) {
      const now = timestamp(filter.now)
      const where = [sql`partner_id = ${scope.partnerId}`, sql`environment = ${scope.environment}`]
      if (filter.customerReferenceId !== undefined) {
        where.push(sql`customer_reference_id = ${filter.customerReferenceId}`)
      }
      // the status a partner sees: a priced quote that expired unaccepted reads `failed`
      if (filter.status === "created") {
        where.push(sql`status = 'created' AND (accepted_at IS NOT NULL OR expires_at > ${now})`)
      } else if (filter.status === "failed") {
        where.push(sql`(status = 'failed' OR (accepted_at IS NULL AND expires_at <= ${now}))`)
      }
      if (filter.after !== undefined) where.push(before(sql, filter.after))
      const rows = yield* sql<QuoteRow>`SELECT * FROM quotes WHERE ${sql.and(where)}
        ORDER BY created_at DESC, id DESC LIMIT ${filter.limit}`
      return rows.map(fromRow)
    }, orStoreError("PgQuoteRepo.list"))

    return QuoteRepo.QuoteRepo.of({ insert, find, list })
  })
)
