/**
 * `QuoteRepo` on Postgres. Reads are scoped by `(partner_id, environment)`; the list is newest
 * first by `(created_at, id)` on the scope indexes.
 */
import type { Partner, Quote } from "@ratelock/core"
import { QuoteRepo } from "@ratelock/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { before } from "./internal/keyset.ts"
import { timestamp } from "./internal/rows/columns.ts"
import { QuoteRow, quoteRow } from "./internal/rows/quotes.ts"
import { isUuid, orStoreError, Parameters } from "./internal/sql.ts"

interface List extends Partner.PartnerScope, Omit<QuoteRepo.QuoteFilter, "now"> {
  readonly now: Date
}

export const layer: Layer.Layer<QuoteRepo.QuoteRepo, never, SqlClient.SqlClient> = Layer.effect(
  QuoteRepo.QuoteRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("PgQuoteRepo.insert")(function* (quote: Quote.QuoteRecord) {
      yield* sql`INSERT INTO quotes ${sql.insert(quoteRow(quote))}`
    }, orStoreError("PgQuoteRepo.insert"))

    const inScope = SqlSchema.findOneOption({
      Request: Parameters<Partner.PartnerScope & { readonly id: string }>(),
      Result: QuoteRow,
      execute: (r) => sql`SELECT * FROM quotes
        WHERE id = ${r.id} AND partner_id = ${r.partnerId} AND environment = ${r.environment}`
    })

    const find = Effect.fn("PgQuoteRepo.find")(function* (scope: Partner.PartnerScope, id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* inScope({ ...scope, id })
    }, orStoreError("PgQuoteRepo.find"))

    const byId = SqlSchema.findOneOption({
      Request: Parameters<{ readonly id: string }>(),
      Result: QuoteRow,
      execute: (r) => sql`SELECT * FROM quotes WHERE id = ${r.id}`
    })

    const findForOperator = Effect.fn("PgQuoteRepo.findForOperator")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* byId({ id })
    }, orStoreError("PgQuoteRepo.findForOperator"))

    const page = SqlSchema.findAll({
      Request: Parameters<List>(),
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

    const list = Effect.fn("PgQuoteRepo.list")(function* (scope: Partner.PartnerScope, filter: QuoteRepo.QuoteFilter) {
      return yield* page({ ...scope, ...filter, now: timestamp(filter.now) })
    }, orStoreError("PgQuoteRepo.list"))

    return QuoteRepo.QuoteRepo.of({ insert, find, findForOperator, list })
  })
)
