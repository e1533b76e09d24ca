/**
 * The writes of the jobs the hot wallets sign (`payouts`, `movements`) on Postgres: the
 * compare-and-set that releases a job's lease, the `update` that frees the nonce of a job started
 * again, and `recordSigned`, which allocates a hot wallet's nonce from `hot_wallet_nonces`
 * (migration 17) in the transaction that records the signed job, under a transaction-scoped
 * advisory lock per wallet: allocators of one wallet take turns, whatever job they sign, and never
 * hand out one nonce twice. One implementation for both tables, so a payout and a movement of one
 * wallet draw on the same nonces under the same lock; and what the signed jobs of a rail promise
 * (`committed`).
 */
import type { ChainGateway, Partner, Rail, StoreError } from "@ratelock/core"
import { Effect, Option, Schema } from "effect"
import { type SqlClient, SqlSchema, type Statement } from "effect/sql"
import { decimal, Int8, int, Numeric, timestamp } from "./rows/columns.ts"
import {
  type CommittedRail,
  type Expected,
  type NonceHolder,
  nonceHolder,
  requireNonceAccount,
  type SignedJob
} from "./rules.ts"
import { orStoreError, Parameters } from "./sql.ts"

export interface JobTable<J extends SignedJob> {
  readonly table: "payouts" | "movements"
  /** What a nonce's holder is named after (`payout:<id>`, `movement:<id>`). */
  readonly holder: NonceHolder
  readonly row: (job: J) => Record<string, unknown>
  /** The job as it is written once `sign` answered `prepared` at `nonce`. */
  readonly signed: (job: J, prepared: ChainGateway.PreparedPayout, nonce: number | null) => J
  /** The repository, naming spans and errors (`PgPayoutRepo`). */
  readonly repository: string
  /** Which of the prepared jobs draw on the hot wallet (`committed`), when not all of them. */
  readonly committing?: Statement.Fragment
}

/** A hot wallet and the floor of its nonces. */
interface Wallet extends ChainGateway.NonceAccount {
  readonly environment: Partner.Environment
  readonly chain: Rail.Chain
}

const walletKey = (w: Wallet) => `${w.environment}|${w.chain}|${w.signer}`

/** `sign` failed inside the transaction: carried out of it (rolled back) as the caller's own error. */
class SignFailed<E> {
  readonly _tag = "SignFailed"
  readonly error: E
  constructor(error: E) {
    this.error = error
  }
}

/** The compare-and-set matched no row: the transaction is rolled back, and the answer is none. */
class LostRace {
  readonly _tag = "LostRace"
}

export const signedJobs = <J extends SignedJob>(sql: SqlClient.SqlClient, jobs: JobTable<J>) => {
  const holderOf = (job: J) => nonceHolder(jobs.holder, job.id)

  // compare-and-set: only over the row the caller read (same status, same updated_at), releasing
  // the lease; with a nonce allocated, its `hot_wallet_nonces` row in the same statement
  const casUpdate = (
    job: J,
    expected: Expected<J>,
    allocated: { readonly account: ChainGateway.NonceAccount; readonly nonce: number } | null = null
  ) => {
    const moved = sql`UPDATE ${sql(jobs.table)} SET ${sql.update(jobs.row(job), ["id"])}, lease_owner = NULL,
        lease_expires_at = NULL
      WHERE id = ${job.id} AND status = ${expected.status} AND updated_at = ${timestamp(expected.updatedAt)}
      RETURNING id`
    if (allocated === null) return moved
    // the nonce row only if the compare-and-set matched: inserted from the updated row
    return sql`WITH moved AS (${moved}), taken AS (
        INSERT INTO hot_wallet_nonces (environment, chain, signer, nonce, holder, allocated_at)
        SELECT ${job.environment}, ${job.chain}, ${allocated.account.signer}, ${allocated.nonce}::bigint,
          ${holderOf(job)}, ${timestamp(job.updatedAt)}::timestamptz FROM moved
      )
      SELECT id FROM moved`
  }

  // a job written without a nonce (started again: its versions failed for good, or its
  // cancellation was mined) holds none: the nonce it held is free again, in the same statement,
  // so the wallet's next signing fills the gap instead of waiting behind it forever
  const update = Effect.fn(`${jobs.repository}.update`)(
    function* (job: J, expected: Expected<J>) {
      const moved = casUpdate(job, expected)
      const rows =
        job.nonce !== null
          ? yield* moved
          : yield* sql`WITH moved AS (${moved}), released AS (
              DELETE FROM hot_wallet_nonces WHERE holder = ${holderOf(job)} AND EXISTS (SELECT 1 FROM moved)
            )
            SELECT id FROM moved`
      return rows.length === 1
    },
    orStoreError(`${jobs.repository}.update`)
  )

  // the lowest nonce at or above the floor that no row holds: the floor itself, or one past a held
  // nonce (at or above the floor) where the next is free. Run after the wallet's lock is taken, in
  // a statement of its own, so its snapshot sees every allocation committed before the lock
  const lowestFree = SqlSchema.findOne({
    Request: Parameters<Wallet>(),
    Result: Schema.Struct({ nonce: Int8 }),
    execute: (w) => sql`SELECT min(c.nonce) AS nonce FROM (
        SELECT ${w.floor}::bigint AS nonce
        UNION ALL
        SELECT h.nonce + 1 FROM hot_wallet_nonces h
        WHERE h.environment = ${w.environment} AND h.chain = ${w.chain} AND h.signer = ${w.signer}
          AND h.nonce >= ${w.floor}::bigint
      ) c
      WHERE NOT EXISTS (SELECT 1 FROM hot_wallet_nonces t
        WHERE t.environment = ${w.environment} AND t.chain = ${w.chain} AND t.signer = ${w.signer}
          AND t.nonce = c.nonce)`
  })

  /** Serialises the allocators of one wallet until the transaction ends (commit or rollback). */
  const lockWallet = (w: Wallet) =>
    sql`SELECT pg_advisory_xact_lock(hashtext('hot_wallet_nonces'), hashtext(${walletKey(w)}))`

  const recordSigned = <E>(
    job: J,
    expected: Expected<J>,
    nonceAccount: ChainGateway.NonceAccount | null,
    sign: (nonce: number | null) => Effect.Effect<ChainGateway.PreparedPayout, E>
  ): Effect.Effect<Option.Option<J>, E | StoreError.StoreError> => {
    const operation = `${jobs.repository}.recordSigned`
    if (nonceAccount === null) {
      // nothing to allocate: signed first (it may ask the chain), then one statement, no transaction
      return sign(null).pipe(
        Effect.flatMap((prepared) => {
          const record = jobs.signed(job, prepared, null)
          return casUpdate(record, expected).pipe(
            Effect.map((rows) => (rows.length === 1 ? Option.some(record) : Option.none())),
            orStoreError(operation)
          )
        }),
        Effect.withSpan(operation)
      )
    }
    const wallet: Wallet = { environment: job.environment, chain: job.chain, ...nonceAccount }
    const allocateAndRecord = Effect.gen(function* () {
      yield* lockWallet(wallet)
      const nonce = int((yield* lowestFree(wallet)).nonce)
      const prepared = yield* Effect.mapError(sign(nonce), (error) => new SignFailed(error))
      const record = jobs.signed(job, prepared, nonce)
      const rows = yield* casUpdate(record, expected, { account: nonceAccount, nonce })
      // the row moved on: rolled back, so the nonce stays free
      if (rows.length !== 1) return yield* Effect.fail(new LostRace())
      return Option.some(record)
    })
    return requireNonceAccount(nonceAccount).pipe(
      Effect.andThen(sql.withTransaction(allocateAndRecord)),
      // the statements' failures only: sign's own error is unwrapped after, whatever it is
      orStoreError(operation),
      Effect.catchTag("LostRace", () => Effect.succeed(Option.none<J>())),
      Effect.catchTag("SignFailed", (failed) => Effect.fail(failed.error)),
      Effect.withSpan(operation)
    )
  }

  // the jobs signed and not yet confirmed are few (those in flight): the table's due index finds
  // them (`prepared` is one of its statuses), and the sum is exact (`numeric`, as text)
  const committedSum = SqlSchema.findOne({
    Request: Parameters<CommittedRail>(),
    Result: Schema.Struct({ committed: Numeric }),
    execute: (r) => sql`SELECT COALESCE(SUM(amount), 0)::text AS committed FROM ${sql(jobs.table)}
      WHERE status = 'prepared' AND environment = ${r.environment} AND chain = ${r.chain}
        AND currency = ${r.currency}${jobs.committing === undefined ? sql`` : sql` AND ${jobs.committing}`}`
  })

  const committed = Effect.fn(`${jobs.repository}.committed`)(
    function* (rail: CommittedRail) {
      const { environment, chain, currency } = rail
      return decimal((yield* committedSum({ environment, chain, currency })).committed)
    },
    orStoreError(`${jobs.repository}.committed`)
  )

  return { casUpdate, update, recordSigned, committed }
}
