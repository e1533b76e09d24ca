/**
 * `DailyCloseRepo` on Postgres: `daily_closes` and `daily_close_locks` (migration 22), append-only (this repository
 * only inserts, and the tables' triggers refuse `UPDATE`, `DELETE` and `TRUNCATE` from anyone), the one lease on
 * closing (`daily_close_lease`), and the reads of the books a close takes: the contracts' ledger over a period and
 * the trial balance of the three ledgers.
 */
import { type DailyClose, DailyCloseRepo, type Partner } from "@ratelock/core"
import { Array, type DateTime, Effect, Layer, Option } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { TrialBalanceRow } from "./internal/rows/balances.ts"
import { json, timestamp } from "./internal/rows/columns.ts"
import { ContractFlowRow } from "./internal/rows/contracts.ts"
import {
  CloseRow,
  closeRow,
  LockRow,
  lockColumnList,
  lockJson,
  lockRecordset,
  SummaryRow,
  summaryColumnList
} from "./internal/rows/dailyCloses.ts"
import { singleLease } from "./internal/singleLease.ts"
import { orStoreError, Parameters } from "./internal/sql.ts"

/**
 * Locks per insert statement, each batch one JSON document of 1.5 MB: a close of 100,000 locks is 20 statements,
 * about 2 s on PostgreSQL and 3 s on PGlite on the development machine (20,000 per statement: the same; 1,000: up
 * to 20 % slower).
 */
const locksPerStatement = 5_000

type ListQuery = Parameters<DailyCloseRepo.DailyCloseRepoShape["list"]>[0]
type FlowQuery = Parameters<DailyCloseRepo.DailyCloseRepoShape["contractFlows"]>[0]
type BalanceQuery = Parameters<DailyCloseRepo.DailyCloseRepoShape["trialBalance"]>[0]

export const layer: Layer.Layer<DailyCloseRepo.DailyCloseRepo, never, SqlClient.SqlClient> = Layer.effect(
  DailyCloseRepo.DailyCloseRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(lockColumnList)

    const insert = Effect.fn("PgDailyCloseRepo.insert")(function* (close: DailyClose.DailyClose) {
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          // a second close of the environment's cut is no error: it writes nothing, and its locks are never sent
          const stored = yield* sql`INSERT INTO daily_closes ${sql.insert(closeRow(close))}
            ON CONFLICT (environment, scheduled_for) WHERE scheduled_for IS NOT NULL DO NOTHING
            RETURNING id`
          if (stored.length === 0) return false
          for (const batch of Array.chunksOf(close.locks, locksPerStatement)) {
            yield* sql`INSERT INTO daily_close_locks (${columns})
              SELECT ${columns}
              FROM jsonb_to_recordset(${json(batch.map(lockJson(close.id)))}::jsonb) AS v(${sql.literal(lockRecordset)})`
          }
          return true
        })
      )
    }, orStoreError("PgDailyCloseRepo.insert"))

    const head = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: CloseRow,
      execute: (id) => sql`SELECT * FROM daily_closes WHERE id = ${id}`
    })

    const newest = SqlSchema.findOneOption({
      Request: Parameters<Partner.Environment>(),
      Result: CloseRow,
      execute: (environment) => sql`SELECT * FROM daily_closes WHERE environment = ${environment}
        ORDER BY closed_at DESC, id DESC LIMIT 1`
    })

    // the primary key's order: `contract_id` is `COLLATE "C"`
    const locksOf = SqlSchema.findAll({
      Request: Parameters<string>(),
      Result: LockRow,
      execute: (closeId) => sql`SELECT * FROM daily_close_locks WHERE close_id = ${closeId} ORDER BY contract_id`
    })

    /**
     * The close with its locks. Two statements and no transaction: a close and its locks are committed together
     * and never change, so a close that is seen has all its locks.
     */
    const whole = (found: Option.Option<typeof CloseRow.Type>) =>
      Option.match(found, {
        onNone: () => Effect.succeed(Option.none<DailyClose.DailyClose>()),
        onSome: (close) => Effect.map(locksOf(close.id), (locks) => Option.some({ ...close, locks }))
      })

    const find = Effect.fn("PgDailyCloseRepo.find")(function* (id: string) {
      return yield* whole(yield* head(id))
    }, orStoreError("PgDailyCloseRepo.find"))

    const latest = Effect.fn("PgDailyCloseRepo.latest")(function* (environment: Partner.Environment) {
      return yield* whole(yield* newest(environment))
    }, orStoreError("PgDailyCloseRepo.latest"))

    const hasScheduled = Effect.fn("PgDailyCloseRepo.hasScheduled")(function* (
      environment: Partner.Environment,
      cut: DateTime.Utc
    ) {
      const rows = yield* sql`SELECT 1 FROM daily_closes
        WHERE environment = ${environment} AND scheduled_for = ${timestamp(cut)}`
      return rows.length > 0
    }, orStoreError("PgDailyCloseRepo.hasScheduled"))

    const summaries = SqlSchema.findAll({
      Request: Parameters<ListQuery>(),
      Result: SummaryRow,
      execute: (q) => sql`SELECT ${sql.literal(summaryColumnList)} FROM daily_closes
        WHERE ${sql.and([
          sql`environment = ${q.environment}`,
          ...(q.from === undefined ? [] : [sql`closed_at >= ${timestamp(q.from)}`]),
          ...(q.to === undefined ? [] : [sql`closed_at <= ${timestamp(q.to)}`])
        ])}
        ORDER BY closed_at, id`
    })

    const list = Effect.fn("PgDailyCloseRepo.list")(function* (query: ListQuery) {
      return yield* summaries(query)
    }, orStoreError("PgDailyCloseRepo.list"))

    const { claim, release } = singleLease(sql, "daily_close_lease", "PgDailyCloseRepo")

    // booking order is the identity's; a period's entries are read off the whole ledger of the environment (a
    // close runs once a day, and an index on `at` would cost every commit one more write)
    const flows = SqlSchema.findAll({
      Request: Parameters<FlowQuery>(),
      Result: ContractFlowRow,
      execute: (q) => sql`SELECT e.*, c.direction FROM ledger_entries e JOIN contracts c ON c.id = e.contract_id
        WHERE ${sql.and([
          sql`e.environment = ${q.environment}`,
          sql`e.at <= ${timestamp(q.until)}`,
          ...(q.after === undefined ? [] : [sql`e.at > ${timestamp(q.after)}`])
        ])}
        ORDER BY e.id`
    })

    const contractFlows = Effect.fn("PgDailyCloseRepo.contractFlows")(function* (query: FlowQuery) {
      return yield* flows(query)
    }, orStoreError("PgDailyCloseRepo.contractFlows"))

    // `numeric` sums, exact, with the greatest scale of their entries; names sorted as their bytes (`COLLATE "C"`),
    // as the memory store sorts them
    const balances = SqlSchema.findAll({
      Request: Parameters<BalanceQuery>(),
      Result: TrialBalanceRow,
      execute: (q) => {
        const booked = sql`environment = ${q.environment} AND at <= ${timestamp(q.until)}`
        return sql`SELECT ledger, account, currency, sum(amount) AS balance FROM (
            SELECT 'contracts' AS ledger, account::text, currency::text, amount FROM ledger_entries WHERE ${booked}
            UNION ALL
            SELECT 'treasury', account::text, currency::text, amount FROM treasury_entries WHERE ${booked}
            UNION ALL
            SELECT 'hedges', account, currency, amount FROM hedge_ledger_entries WHERE ${booked}
          ) entries
          GROUP BY ledger, account, currency
          HAVING sum(amount) <> 0
          ORDER BY ledger COLLATE "C", account COLLATE "C", currency COLLATE "C"`
      }
    })

    const trialBalance = Effect.fn("PgDailyCloseRepo.trialBalance")(function* (query: BalanceQuery) {
      return yield* balances(query)
    }, orStoreError("PgDailyCloseRepo.trialBalance"))

    return DailyCloseRepo.DailyCloseRepo.of({
      insert,
      find,
      latest,
      hasScheduled,
      list,
      claim,
      release,
      contractFlows,
      trialBalance
    })
  })
)
