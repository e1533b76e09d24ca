/**
 * `PayoutRepo` on Postgres: one payout per contract (`payouts_contract_unique`), written before
 * anything is broadcast; due payouts are claimed with a lease that `update` and `recordSigned`
 * release. `recordSigned` allocates a hot wallet's nonce in the transaction that records the
 * signed payout (`hot_wallet_nonces`, migration 17), under a transaction-scoped advisory lock per
 * wallet, so allocators of one wallet take turns and never hand out one nonce twice.
 */
import { type ChainGateway, type Lease, type Partner, PayoutRepo, type StoreError } from "@ratelock/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlError, SqlSchema } from "effect/sql"
import { decimal, Int8, int, Numeric, timestamp } from "./internal/rows/columns.ts"
import { PayoutRow, payoutRow } from "./internal/rows/payouts.ts"
import { nonceHolder, requireNonceAccount } from "./internal/rules.ts"
import { claimJobs, isUuid, orStoreError, Parameters, storeError, uniqueConstraint } from "./internal/sql.ts"

type ListQuery = Parameters<PayoutRepo.PayoutRepoShape["list"]>[0]
type CommittedRail = Parameters<PayoutRepo.PayoutRepoShape["committed"]>[0]

/** A hot wallet and the floor of its nonces. */
interface Wallet extends ChainGateway.NonceAccount {
  readonly environment: Partner.Environment
  readonly chain: PayoutRepo.PayoutRecord["chain"]
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

export const layer: Layer.Layer<PayoutRepo.PayoutRepo, never, SqlClient.SqlClient> = Layer.effect(
  PayoutRepo.PayoutRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("PgPayoutRepo.insert")(
      function* (payout: PayoutRepo.PayoutRecord) {
        yield* sql`INSERT INTO payouts ${sql.insert(payoutRow(payout))}`
      },
      (effect, payout) =>
        Effect.mapError(effect, (e) =>
          SqlError.isSqlError(e) && Option.contains(uniqueConstraint(e), "payouts_contract_unique")
            ? new PayoutRepo.PayoutExists({ contractId: payout.contractId })
            : storeError("PgPayoutRepo.insert", e)
        )
    )

    const byContract = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: PayoutRow,
      execute: (contractId) => sql`SELECT * FROM payouts WHERE contract_id = ${contractId}`
    })

    const findByContract = Effect.fn("PgPayoutRepo.findByContract")(function* (contractId: string) {
      if (!isUuid(contractId)) return Option.none()
      return yield* byContract(contractId)
    }, orStoreError("PgPayoutRepo.findByContract"))

    const byContracts = SqlSchema.findAll({
      Request: Parameters<ReadonlyArray<string>>(),
      Result: PayoutRow,
      execute: (ids) => sql`SELECT * FROM payouts WHERE contract_id = ANY(${ids}::uuid[])`
    })

    const findByContracts = Effect.fn("PgPayoutRepo.findByContracts")(function* (contractIds: ReadonlyArray<string>) {
      const ids = contractIds.filter(isUuid)
      if (ids.length === 0) return []
      return yield* byContracts(ids)
    }, orStoreError("PgPayoutRepo.findByContracts"))

    // compare-and-set: only over the row the caller read (same status, same updated_at), releasing
    // the lease; with a nonce allocated, its `hot_wallet_nonces` row in the same statement
    const casUpdate = (
      payout: PayoutRepo.PayoutRecord,
      expected: PayoutRepo.Expected,
      allocated: { readonly account: ChainGateway.NonceAccount; readonly nonce: number } | null
    ) => {
      const moved = sql`UPDATE payouts SET ${sql.update(payoutRow(payout), ["id"])}, lease_owner = NULL,
          lease_expires_at = NULL
        WHERE id = ${payout.id} AND status = ${expected.status} AND updated_at = ${timestamp(expected.updatedAt)}
        RETURNING id`
      if (allocated === null) return moved
      // the nonce row only if the compare-and-set matched: inserted from the updated row
      return sql`WITH moved AS (${moved}), taken AS (
          INSERT INTO hot_wallet_nonces (environment, chain, signer, nonce, holder, allocated_at)
          SELECT ${payout.environment}, ${payout.chain}, ${allocated.account.signer}, ${allocated.nonce}::bigint,
            ${nonceHolder(payout.id)}, ${timestamp(payout.updatedAt)}::timestamptz FROM moved
        )
        SELECT id FROM moved`
    }

    // a payout written without a nonce (started again: its versions failed for good, or its
    // cancellation was mined) holds none: the nonce it held is free again, in the same statement,
    // so the wallet's next signing fills the gap instead of waiting behind it forever
    const update = Effect.fn("PgPayoutRepo.update")(function* (
      payout: PayoutRepo.PayoutRecord,
      expected: PayoutRepo.Expected
    ) {
      const moved = casUpdate(payout, expected, null)
      const rows =
        payout.nonce !== null
          ? yield* moved
          : yield* sql`WITH moved AS (${moved}), released AS (
                DELETE FROM hot_wallet_nonces WHERE holder = ${nonceHolder(payout.id)} AND EXISTS (SELECT 1 FROM moved)
              )
              SELECT id FROM moved`
      return rows.length === 1
    }, orStoreError("PgPayoutRepo.update"))

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
      payout: PayoutRepo.PayoutRecord,
      expected: PayoutRepo.Expected,
      nonceAccount: ChainGateway.NonceAccount | null,
      sign: (nonce: number | null) => Effect.Effect<ChainGateway.PreparedPayout, E>
    ): Effect.Effect<Option.Option<PayoutRepo.PayoutRecord>, E | StoreError.StoreError> => {
      const signed = (prepared: ChainGateway.PreparedPayout, nonce: number | null) =>
        PayoutRepo.signedRecord(payout, prepared, nonce)
      if (nonceAccount === null) {
        // nothing to allocate: signed first (it may ask the chain), then one statement, no transaction
        return sign(null).pipe(
          Effect.flatMap((prepared) => {
            const record = signed(prepared, null)
            return casUpdate(record, expected, null).pipe(
              Effect.map((rows) => (rows.length === 1 ? Option.some(record) : Option.none())),
              orStoreError("PgPayoutRepo.recordSigned")
            )
          }),
          Effect.withSpan("PgPayoutRepo.recordSigned")
        )
      }
      const wallet: Wallet = { environment: payout.environment, chain: payout.chain, ...nonceAccount }
      const allocateAndRecord = Effect.gen(function* () {
        yield* lockWallet(wallet)
        const nonce = int((yield* lowestFree(wallet)).nonce)
        const prepared = yield* Effect.mapError(sign(nonce), (error) => new SignFailed(error))
        const record = signed(prepared, nonce)
        const rows = yield* casUpdate(record, expected, { account: nonceAccount, nonce })
        // the row moved on: rolled back, so the nonce stays free
        if (rows.length !== 1) return yield* Effect.fail(new LostRace())
        return Option.some(record)
      })
      return requireNonceAccount(nonceAccount).pipe(
        Effect.andThen(sql.withTransaction(allocateAndRecord)),
        // the statements' failures only: sign's own error is unwrapped after, whatever it is
        orStoreError("PgPayoutRepo.recordSigned"),
        Effect.catchTag("LostRace", () => Effect.succeed(Option.none<PayoutRepo.PayoutRecord>())),
        Effect.catchTag("SignFailed", (failed) => Effect.fail(failed.error)),
        Effect.withSpan("PgPayoutRepo.recordSigned")
      )
    }

    const byStatus = SqlSchema.findAll({
      Request: Parameters<ListQuery>(),
      Result: PayoutRow,
      execute: (q) => sql`SELECT * FROM payouts WHERE status = ANY(${q.statuses}::text[])${
        q.environment === undefined ? sql`` : sql` AND environment = ${q.environment}`
      }${q.waiting === undefined ? sql`` : sql` AND waiting = ANY(${q.waiting}::text[])`}
        ORDER BY created_at, id LIMIT ${q.limit}`
    })

    const list = Effect.fn("PgPayoutRepo.list")(function* (query: ListQuery) {
      if (query.statuses.length === 0 || query.limit <= 0) return []
      return yield* byStatus(query)
    }, orStoreError("PgPayoutRepo.list"))

    // the payouts signed and not yet confirmed are few (those in flight): `payouts_status` (migration
    // 17) finds them, and the sum is exact (`numeric`, as text)
    const committedSum = SqlSchema.findOne({
      Request: Parameters<CommittedRail>(),
      Result: Schema.Struct({ committed: Numeric }),
      execute: (r) => sql`SELECT COALESCE(SUM(amount), 0)::text AS committed FROM payouts
        WHERE status = 'prepared' AND environment = ${r.environment} AND chain = ${r.chain}
          AND currency = ${r.currency}`
    })

    const committed = Effect.fn("PgPayoutRepo.committed")(function* (rail: CommittedRail) {
      const { environment, chain, currency } = rail
      return decimal((yield* committedSum({ environment, chain, currency })).committed)
    }, orStoreError("PgPayoutRepo.committed"))

    const claimed = claimJobs({
      sql,
      table: "payouts",
      Result: PayoutRow,
      due: (claim) => sql`status IN ('pending', 'prepared') AND next_attempt_at <= ${claim.now}`
    })

    const claimDue = Effect.fn("PgPayoutRepo.claimDue")(function* (claim: Lease.Claim) {
      return yield* claimed(claim)
    }, orStoreError("PgPayoutRepo.claimDue"))

    return PayoutRepo.PayoutRepo.of({
      insert,
      findByContract,
      findByContracts,
      update,
      recordSigned,
      list,
      committed,
      claimDue
    })
  })
)
