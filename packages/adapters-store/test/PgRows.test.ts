/**
 * A row the database accepts but the domain does not (a value outside its schema, written behind
 * the store's back) is never read as a silently wrong record: the read fails with a `StoreError`
 * that names the row schema, the column and what was expected. On PostgreSQL (a fresh database,
 * skipped without `DATABASE_URL`) and on embedded PGlite.
 */
import { assert, describe, layer } from "@effect/vitest"
import { ContractRepo, EventRepo, PayoutRepo, QuoteRepo, type StoreError } from "@ratelock/core"
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import * as Postgres from "@ratelock/test-support/Postgres"
import { Duration, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as EmbeddedStore from "../src/EmbeddedStore.ts"
import * as PgStore from "../src/PgStore.ts"
import * as R from "./support/records.ts"

/** A stored quote and its contract, in a fresh scope. */
const seeded = Effect.gen(function* () {
  const scope = R.freshScope()
  const quote = R.quote(scope)
  yield* (yield* QuoteRepo.QuoteRepo).insert(quote)
  const contract = R.contract(quote)
  yield* (yield* ContractRepo.ContractRepo).insert(contract)
  return { scope, quote, contract }
})

/** The read's failure, which must be a `StoreError` naming each of `names`. */
const refused = <A>(read: Effect.Effect<A, StoreError.StoreError>, ...names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(read)
    assert.strictEqual(error._tag, "StoreError")
    for (const name of names) assert.include(error.message, name)
    return error
  })

const rowsOutsideTheirSchema = (
  name: string,
  make: () => Layer.Layer<PgStore.Repos | SqlClient.SqlClient, unknown>
) => {
  const options = { excludeTestServices: true, timeout: Duration.seconds(60) } as const

  layer(make(), options)(name, (it) => {
    it.effect("a value a column's type allows but the record's does not: a direction, a failure code", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const contracts = yield* ContractRepo.ContractRepo
        const { scope, quote, contract } = yield* seeded
        // `direction` is plain text in the table; the record allows only the corridors
        yield* sql`UPDATE contracts SET direction = 'USD_TO_XYZ' WHERE id = ${contract.id}`
        const error = yield* refused(contracts.find(scope, contract.id), "ContractRow", `["direction"]`, "USD_TO_BRL")
        assert.include(error.message, "PgContractRepo.find")
        // a list fails whole rather than skip the row or return it wrong
        yield* refused(contracts.listByCustomer(scope, contract.customerReferenceId, { limit: 10 }), "ContractRow")

        yield* sql`UPDATE quotes SET status = 'failed', failure_code = 'printer_on_fire', failure_message = 'no'
          WHERE id = ${quote.id}`
        yield* refused((yield* QuoteRepo.QuoteRepo).find(scope, quote.id), "QuoteRow", `["failure_code"]`)
      })
    )

    it.effect("a numeric that is no decimal: NaN passes the column's check (NaN >= 0), not the schema", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { contract } = yield* seeded
        yield* sql`UPDATE contracts SET funded_amount = 'NaN' WHERE id = ${contract.id}`
        yield* refused(
          (yield* ContractRepo.ContractRepo).findById(contract.id),
          "ContractRow",
          `["funded_amount"]`,
          "numeric text"
        )
      })
    )

    it.effect("an outgoing event whose payload is not a JSON object", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { scope, contract } = yield* seeded
        const at = R.plus(contract.createdAt, Duration.minutes(1))
        const after = R.moved(contract, "funds_in_route", at, { eventSequence: 1 })
        const event = R.outgoing(after, { createdAt: at, nextAttemptAt: at })
        yield* (yield* ContractRepo.ContractRepo).commit(R.change(contract, after, { outgoing: event }))
        const events = yield* EventRepo.EventRepo
        assert.isTrue(Option.isSome(yield* events.findOutgoing(scope, event.id)))

        yield* sql`UPDATE webhook_events SET payload = '["not", "an", "object"]' WHERE id = ${event.id}`
        yield* refused(events.findOutgoing(scope, event.id), "OutgoingEventRow", `["payload"]`)
        yield* refused(events.list(scope, { limit: 10 }), "EventViewRow")
      })
    )
  })

  // its own database: the test drops a domain's CHECK, which every other table using it loses too
  layer(make(), options)(name, (it) => {
    it.effect("a status outside the literal set, once the domain's CHECK is gone", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { contract } = yield* seeded
        const payouts = yield* PayoutRepo.PayoutRepo
        const payout = R.payout(contract)
        yield* payouts.insert(payout)
        const checks = yield* sql<{ readonly name: string }>`SELECT c.conname AS name FROM pg_constraint c
          WHERE c.contypid = 'ratelock_payout_status'::regtype`
        for (const { name } of checks) yield* sql.unsafe(`ALTER DOMAIN ratelock_payout_status DROP CONSTRAINT ${name}`)
        yield* sql`UPDATE payouts SET status = 'lost' WHERE id = ${payout.id}`

        yield* refused(payouts.findByContract(contract.id), "PayoutRow", `["status"]`, "pending")
        yield* refused(payouts.findByContracts([contract.id]), "PayoutRow", `["status"]`)
      })
    )
  })
}

describe.skipIf(Postgres.databaseUrl === undefined)("PgStore on Postgres", () => {
  rowsOutsideTheirSchema("rows outside their schema (Postgres)", () =>
    PgStore.layer.pipe(Layer.provideMerge(Postgres.layerFresh(Postgres.databaseUrl!)))
  )
})

describe("PgStore on PGlite", () => {
  rowsOutsideTheirSchema("rows outside their schema (PGlite)", () =>
    EmbeddedStore.layer({ loadDataDir: PgliteTemplate.dump() })
  )
})
