/**
 * `QuoteRepo` on Postgres. Reads are scoped by `(partner_id, environment)`; the list is newest
 * first by `(created_at, id)` on the scope indexes.
 */
import { Partner, Quote, QuoteRepo } from "@ratelock/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Timestamp } from "./internal/rows/columns.ts"
import { isUuid, orStoreError } from "./internal/sql.ts"
import { before, Position } from "./internal/keyset.ts"
import { QuoteRow } from "./internal/rows/quotes.ts"

const Find = Schema.Struct({ ...Partner.PartnerScope.fields, id: Schema.String })

const List = Schema.Struct({
  ...Partner.PartnerScope.fields,
  status: Schema.optional(Quote.QuoteStatus),
  customerReferenceId: Schema.optional(Schema.String),
  limit: Schema.Int,
  after: Schema.optional(Position),
  now: Timestamp
})

export const layer: Layer.Layer<QuoteRepo.QuoteRepo, never, SqlClient.SqlClient> = Layer.effect(
  QuoteRepo.QuoteRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insertRow = SqlSchema.void({
      Request: QuoteRow,
      execute: (row) => sql`INSERT INTO quotes ${sql.insert(row)}`
    })

    const findRow = SqlSchema.findOneOption({
      Request: Find,
      Result: QuoteRow,
      execute: (r) => sql`SELECT * FROM quotes
        WHERE id = ${r.id} AND partner_id = ${r.partnerId} AND environment = ${r.environment}`
    })

    const listRows = SqlSchema.findAll({
      Request: List,
      Result: QuoteRow,
      execute: (r) => {
        const where = [sql`partner_id = ${r.partnerId}`, sql`environment = ${r.environment}`]
        if (r.customerReferenceId !== undefined) where.push(sql`customer_reference_id = ${r.customerReferenceId}`)
        // the status a partner sees: a priced quote that expired unaccepted reads `failed`
        if (r.status === "created") {
          where.push(sql`status = 'created' AND (accepted_at IS NOT NULL OR expires_at > ${r.now})`)
        } else if (r.status === "failed") {
          where.push(sql`(status = 'failed' OR (accepted_at IS NULL AND expires_at <= ${r.now}))`)
        }
        if (r.after !== undefined) where.push(before(sql, r.after))
        return sql`SELECT * FROM quotes WHERE ${sql.and(where)} ORDER BY created_at DESC, id DESC LIMIT ${r.limit}`
      }
    })

    const insert = Effect.fn("PgQuoteRepo.insert")(function* (quote: Quote.QuoteRecord) {
      yield* insertRow(quote)
    }, orStoreError("PgQuoteRepo.insert"))

    const find = Effect.fn("PgQuoteRepo.find")(function* (scope: Partner.PartnerScope, id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* findRow({ ...scope, id })
    }, orStoreError("PgQuoteRepo.find"))

    const list = Effect.fn("PgQuoteRepo.list")(function* (scope: Partner.PartnerScope, filter: QuoteRepo.QuoteFilter) {
      return yield* listRows({ ...scope, ...filter })
    }, orStoreError("PgQuoteRepo.list"))

    return QuoteRepo.QuoteRepo.of({ insert, find, list })
  })
)
