/**
 * The simulated chain with its ledger in SQL (`sim_…` tables next to the store's), so every API
 * and worker process on one database sees the same chain and a restart forgets nothing (on
 * PostgreSQL as on embedded PGlite): the `SimulatedChain` service with its behaviour, options,
 * addresses, hash shapes and `ChainError` reasons, and:
 *
 * - Blocks are numbered per `(chain, environment)` by a row that each new block locks until its
 *   statement commits: a reader that sees head N sees every block up to N. Each change is one
 *   statement (a block with its transfer or broadcast). A transfer sent with a reference is
 *   recorded once, like a broadcast.
 * - A payout's transaction hash is derived from `(payout id, attempt)`, the attempt being how many
 *   of its broadcasts the chain rejected. A broadcast is recorded once (unique hash and
 *   `(payout id, attempt)`); repeating it, from any process, changes nothing.
 * - A sweep's broadcast is recorded once too (`sim_sweeps`, unique hash and `(sweep id, attempt)`),
 *   under a lock on its source's balance taken before it is read: two sweeps of one source, from
 *   any processes, never both move its funds; the later one fails with `insufficient_funds`.
 * - Storage failures (a failed statement, a row outside its schema) are `ChainError`s with reason
 *   `rpc_unavailable`, as an RPC outage would be.
 */
import { ChainGateway, Money, Partner, Rail } from "@ratelock/core"
import { DateTime, Duration, Effect, Layer, Option, Random, Schema } from "effect"
import { Digest } from "effect/crypto"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { SqlClient, type SqlError, SqlSchema, type Statement } from "effect/sql"
import { chainError, checkIndex, checkMovement, parseCursor } from "./internal/checks.ts"
import * as Encoding from "./internal/encoding.ts"
import * as Ledger from "./internal/ledger.ts"
import * as Prepared from "./internal/prepared.ts"
import * as SimulatedPayouts from "./internal/simulatedPayouts.ts"
import * as SimulatedSweeps from "./internal/simulatedSweeps.ts"
import * as Rows from "./internal/sqlRows.ts"
import * as SimTables from "./internal/sqlSchema.ts"
import * as SweepTables from "./internal/sqlSweepSchema.ts"
import { type Options, SimulatedChain } from "./SimulatedChain.ts"

const RailSchema = Schema.Struct({ chain: Rail.Chain, environment: Partner.Environment, token: Rail.FundsCurrency })

/** A transfer to record: its block and index are the chain's to give. */
const NewTransfer = Schema.Struct({
  transactionHash: Schema.String,
  rail: RailSchema,
  address: Schema.String,
  amount: Money.DecimalString,
  recordedAt: Schema.DateTimeUtcFromDate,
  confirmedAt: Schema.DateTimeUtcFromDate
})

/** The failure reason (a payout's `failure_code`) of a broadcast the chain was told to reject. */
const rejection = "rejected"

export const make = <R>(options: Options<R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const digest = yield* Digest.Digest
    const context = yield* Effect.context<R>()
    const confirmDelay = Duration.fromInputUnsafe(options.confirmDelay ?? 0)
    yield* SimTables.ensure(SimTables.statements, SweepTables.statements)
    const hash = (rail: ChainGateway.Rail, label: string) => Encoding.transactionHash(digest, rail, label)

    /**
     * Common table expressions `fresh` (one row unless `recorded` finds the transaction already)
     * and `block` (a new block on the rail's network, only when fresh): its row stays locked until
     * the statement commits, and a repeat takes no block and no lock.
     */
    const freshBlock = (rail: ChainGateway.Rail, recorded: Statement.Fragment) =>
      sql`fresh AS (SELECT 1 WHERE NOT EXISTS (${recorded})),
        block AS (
          INSERT INTO sim_heads (chain, environment, head) SELECT ${rail.chain}, ${rail.environment}, 1 FROM fresh
          ON CONFLICT (chain, environment) DO UPDATE SET head = sim_heads.head + 1
          RETURNING head
        )`

    const fundingAddress = Effect.fn("SqlSimulatedChain.fundingAddress")(function* (
      rail: ChainGateway.Rail,
      index: number
    ) {
      yield* checkIndex(rail, index)
      return yield* Encoding.address(digest, rail, index)
    })

    // one statement: the new block and its transfer commit together; a repeat of a reference
    // takes no block and records nothing
    const insertTransfer = SqlSchema.findOneOption({
      Request: NewTransfer,
      Result: Rows.TransferRow,
      execute: (t) => sql`WITH ${freshBlock(
        t.rail,
        sql`SELECT 1 FROM sim_transfers WHERE transaction_hash = ${t.transactionHash}`
      )}
        INSERT INTO sim_transfers (transaction_hash, chain, environment, token, address, address_key, amount,
          block_number, recorded_at, confirmed_at)
        SELECT ${t.transactionHash}, ${t.rail.chain}, ${t.rail.environment}, ${t.rail.token}, ${t.address},
          ${Rows.addressKey(t.rail, t.address)}, ${t.amount}, block.head, ${t.recordedAt}, ${t.confirmedAt}
        FROM block
        ON CONFLICT DO NOTHING
        RETURNING *`
    })

    const transferByHash = SqlSchema.findOne({
      Request: Schema.String,
      Result: Rows.TransferRow,
      execute: (transactionHash) => sql`SELECT * FROM sim_transfers WHERE transaction_hash = ${transactionHash}`
    })

    const fund = Effect.fn("SqlSimulatedChain.fund")(function* (
      rail: ChainGateway.Rail,
      address: string,
      amount: Money.Decimal,
      reference?: string
    ) {
      yield* checkMovement(rail, address, amount, "transfer")
      const now = yield* DateTime.now
      const confirmedAt = DateTime.addDuration(now, confirmDelay)
      const unique = reference ?? `${now.epochMilliseconds}:${yield* Random.nextInt}:${yield* Random.nextInt}`
      const transactionHash = yield* hash(rail, Encoding.transferLabel(unique, address, amount))
      const unavailable = Rows.orUnavailable(rail.chain, "fund")
      const inserted = yield* insertTransfer({
        transactionHash,
        rail,
        address,
        amount,
        recordedAt: now,
        confirmedAt
      }).pipe(unavailable)
      return Option.isSome(inserted) ? inserted.value : yield* transferByHash(transactionHash).pipe(unavailable)
    })

    const transfersAt = SqlSchema.findAll({
      Request: Schema.Struct({ rail: RailSchema, keys: Schema.Array(Schema.String), after: Schema.Int }),
      Result: Rows.TransferRow,
      execute: (r) => sql`SELECT * FROM sim_transfers
        WHERE chain = ${r.rail.chain} AND environment = ${r.rail.environment} AND token = ${r.rail.token}
          AND address_key = ANY(${r.keys}::text[]) AND block_number > ${r.after}
        ORDER BY block_number`
    })

    /** One query for all the addresses, from the lowest cursor; each keeps what is past its own. */
    const observeFundingBatch = Effect.fn("SqlSimulatedChain.observeFundingBatch")(function* (
      rail: ChainGateway.Rail,
      targets: ReadonlyArray<ChainGateway.FundingTarget>
    ) {
      if (targets.length === 0) return []
      const afters = yield* Effect.forEach(targets, (t) => parseCursor(rail, t.cursor))
      const keys = targets.map((t) => Rows.addressKey(rail, t.address))
      const rows = yield* transfersAt({ rail, keys, after: Math.min(...afters) }).pipe(
        Rows.orUnavailable(rail.chain, "observeFunding")
      )
      const now = yield* DateTime.now
      return targets.map((_, i) =>
        Ledger.observed(
          rows.filter((t) => Rows.addressKey(rail, t.address) === keys[i] && t.blockNumber > afters[i]!),
          afters[i]!,
          now
        )
      )
    })

    const observeFunding = (rail: ChainGateway.Rail, address: string, cursor: string | null) =>
      Effect.map(observeFundingBatch(rail, [{ address, cursor }]), (observations) => observations[0]!)

    /** Of the contracts armed by `failNextPayoutOf`, the one whose payout this is: the payout is armed now. */
    const resolveArmed = Effect.fnUntraced(function* (payoutId: string, armed: ReadonlyArray<string>) {
      const payoutIdOf = options.payoutIdOf
      if (payoutIdOf === undefined) return
      for (const target of armed) {
        const found = yield* payoutIdOf(target.slice("contract:".length)).pipe(
          Effect.provideContext(context),
          Effect.catchCause((cause) =>
            Effect.as(Effect.logWarning("simulated chain: no payout id for an armed contract", cause), Option.none())
          )
        )
        if (!Option.contains(found, payoutId)) continue
        yield* sql.withTransaction(
          Effect.andThen(
            sql`DELETE FROM sim_rejections WHERE target = ${target}`,
            sql`INSERT INTO sim_rejections (target) VALUES (${`payout:${payoutId}`}) ON CONFLICT DO NOTHING`
          )
        )
      }
    })

    const prepareState = SqlSchema.findOne({
      Request: Schema.String,
      Result: Rows.PrepareStateRow,
      execute: (payoutId) => sql`
        SELECT (SELECT count(*) FROM sim_broadcasts WHERE payout_id = ${payoutId} AND failure IS NOT NULL)
            AS rejected,
          ARRAY(SELECT target FROM sim_rejections WHERE target LIKE 'contract:%') AS armed`
    })

    const preparePayout = Effect.fn("SqlSimulatedChain.preparePayout")(function* (order: ChainGateway.PayoutOrder) {
      yield* checkMovement(order.rail, order.destination, order.amount, "payout")
      const unavailable = Rows.orUnavailable(order.rail.chain, "preparePayout")
      const state = yield* prepareState(order.payoutId).pipe(unavailable)
      yield* resolveArmed(order.payoutId, state.armed).pipe(unavailable)
      return yield* Prepared.prepare(digest, order, state.rejected)
    })

    const prepared = Prepared.read

    // a payout's or a sweep's: their hashes are derived from distinct labels
    const recorded = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: Rows.BroadcastRow,
      execute: (transactionHash) => sql`SELECT block_number, failure, confirmed_at FROM sim_broadcasts
          WHERE transaction_hash = ${transactionHash}
        UNION ALL
        SELECT block_number, failure, confirmed_at FROM sim_sweeps WHERE transaction_hash = ${transactionHash}`
    })

    /**
     * What each of `keys` holds of the rail's token, in their order, by `Ledger.balance`'s rule:
     * transfers and sweeps in, less sweeps out (failed sweeps move nothing); of those confirmed at
     * `at`, or of everything recorded when it is null (`Ledger.spendable`).
     */
    const held = SqlSchema.findAll({
      Request: Schema.Struct({
        rail: RailSchema,
        keys: Schema.Array(Schema.String),
        at: Schema.NullOr(Schema.DateTimeUtcFromDate)
      }),
      Result: Rows.BalanceRow,
      execute: ({ rail, keys, at }) => {
        const onRail = sql`chain = ${rail.chain} AND environment = ${rail.environment} AND token = ${rail.token}`
        const counted = at === null ? sql.literal("") : sql`AND confirmed_at <= ${at}`
        return sql`SELECT
            COALESCE((SELECT sum(amount) FROM sim_transfers WHERE ${onRail} AND address_key = k.key ${counted}), 0)
            + COALESCE((SELECT sum(amount) FROM sim_sweeps
                WHERE ${onRail} AND destination_key = k.key AND failure IS NULL ${counted}), 0)
            - COALESCE((SELECT sum(amount) FROM sim_sweeps
                WHERE ${onRail} AND source_key = k.key AND failure IS NULL ${counted}), 0) AS balance
          FROM unnest(${keys}::text[]) WITH ORDINALITY AS k (key, position)
          ORDER BY k.position`
      }
    })

    const balances = Effect.fn("SqlSimulatedChain.balances")(function* (
      rail: ChainGateway.Rail,
      addresses: ReadonlyArray<string>,
      at: DateTime.Utc | null
    ) {
      if (addresses.length === 0) return []
      const keys = addresses.map((address) => Rows.addressKey(rail, address))
      const rows = yield* held({ rail, keys, at })
      return rows.map((r) => r.balance)
    })

    const sweepState = SqlSchema.findOne({
      Request: Schema.String,
      Result: Rows.SweepStateRow,
      execute: (sweepId) => sql`SELECT count(*) AS rejected FROM sim_sweeps
        WHERE sweep_id = ${sweepId} AND failure IS NOT NULL`
    })

    /**
     * One transaction: the lock on the source's balance (every sweep of it takes it; what comes in
     * needs none, it only adds), then, in a statement that sees every sweep committed before,
     * what the source may move and the sweep with its block, failed if that is too little.
     */
    const broadcastSweep = (rail: ChainGateway.Rail, transactionHash: string, job: Ledger.PreparedSweep) => {
      const sourceKey = Rows.addressKey(rail, job.source)
      const amount = Money.unsafe(job.amount)
      const lock = `sim-sweep:${rail.chain}:${rail.environment}:${rail.token}:${sourceKey}`
      return sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${lock}, 0))`
          const [spendable] = yield* balances(rail, [job.source], null)
          const now = yield* DateTime.now
          yield* sql`WITH ${freshBlock(rail, sql`SELECT 1 FROM sim_sweeps WHERE transaction_hash = ${transactionHash}`)}
            INSERT INTO sim_sweeps (transaction_hash, sweep_id, attempt, chain, environment, token, source, source_key,
              destination, destination_key, amount, block_number, failure, broadcast_at, confirmed_at)
            SELECT ${transactionHash}, ${job.sweepId}, ${job.attempt}, ${rail.chain}, ${rail.environment},
              ${rail.token}, ${job.source}, ${sourceKey}, ${job.destination}, ${Rows.addressKey(rail, job.destination)},
              ${job.amount}, block.head, ${Ledger.sweepFailure(spendable!, amount)},
              ${DateTime.toDateUtc(now)}, ${DateTime.toDateUtc(DateTime.addDuration(now, confirmDelay))}
            FROM block
            ON CONFLICT DO NOTHING`
        })
      )
    }

    const broadcastPayout = Effect.fn("SqlSimulatedChain.broadcastPayout")(function* (
      rail: ChainGateway.Rail,
      payout: ChainGateway.PreparedPayout
    ) {
      const p = yield* prepared(rail, payout)
      const unavailable = Rows.orUnavailable(rail.chain, "broadcastPayout")
      if (Ledger.isSweep(p)) return yield* broadcastSweep(rail, payout.transactionHash, p).pipe(unavailable)
      const now = yield* DateTime.now
      // one statement: the block, the rejections it uses up and the transaction commit together. A
      // repeat (already recorded) takes no block and no lock; a concurrent first broadcast that
      // loses the race records nothing (its block number stays unused)
      yield* sql`WITH ${freshBlock(
        rail,
        sql`SELECT 1 FROM sim_broadcasts WHERE transaction_hash = ${payout.transactionHash}`
      )},
        rejections AS (
          DELETE FROM sim_rejections WHERE target IN ('next', ${`payout:${p.payoutId}`}) AND EXISTS (SELECT 1 FROM fresh)
          RETURNING target
        )
        INSERT INTO sim_broadcasts (transaction_hash, payout_id, attempt, chain, environment, token, destination,
          amount, block_number, failure, broadcast_at, confirmed_at)
        SELECT ${payout.transactionHash}, ${p.payoutId}, ${p.attempt}, ${rail.chain}, ${rail.environment},
          ${rail.token}, ${p.destination}, ${p.amount}, block.head,
          CASE WHEN EXISTS (SELECT 1 FROM rejections) THEN ${rejection} END,
          ${DateTime.toDateUtc(now)}, ${DateTime.toDateUtc(DateTime.addDuration(now, confirmDelay))}
        FROM block
        ON CONFLICT DO NOTHING`.pipe(unavailable)
    })

    const lookupPayout = Effect.fn("SqlSimulatedChain.lookupPayout")(function* (
      rail: ChainGateway.Rail,
      payout: ChainGateway.PreparedPayout
    ) {
      yield* prepared(rail, payout)
      const row = yield* recorded(payout.transactionHash).pipe(Rows.orUnavailable(rail.chain, "lookupPayout"))
      return Rows.toLookup(payout.transactionHash, Option.getOrUndefined(row), yield* DateTime.now)
    })

    const failNextPayoutOf = Effect.fn("SqlSimulatedChain.failNextPayoutOf")(function* (contractId: string) {
      if (options.payoutIdOf === undefined) {
        return yield* chainError(
          "simulated",
          "unsupported",
          "this simulated chain cannot target a contract's payout: it was built without payoutIdOf"
        )
      }
      yield* sql`INSERT INTO sim_rejections (target) VALUES (${`contract:${contractId}`}) ON CONFLICT DO NOTHING`.pipe(
        Rows.orUnavailable("simulated", "failNextPayoutOf")
      )
    })

    const allTransfers = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Rows.TransferRow,
      execute: () => sql`SELECT * FROM sim_transfers ORDER BY recorded_at, transaction_hash`
    })

    return SimulatedChain.of({
      fundingAddress,
      observeFunding,
      observeFundingBatch,
      preparePayout,
      ...SimulatedPayouts.make(preparePayout),
      ...SimulatedSweeps.make(digest, {
        balances: (rail, addresses) =>
          Effect.flatMap(DateTime.now, (now) => balances(rail, addresses, now)).pipe(
            Rows.orUnavailable(rail.chain, "balances")
          ),
        spendable: (rail, address) =>
          Effect.map(balances(rail, [address], null), (all) => all[0]!).pipe(
            Rows.orUnavailable(rail.chain, "draftSweep")
          ),
        attempt: (rail, sweepId) =>
          Effect.map(sweepState(sweepId), (row) => row.rejected).pipe(Rows.orUnavailable(rail.chain, "draftSweep"))
      }),
      broadcastPayout,
      lookupPayout,
      fund,
      transfersInto: (rail, address) =>
        transfersAt({ rail, keys: [Rows.addressKey(rail, address)], after: 0 }).pipe(
          Rows.orUnavailable(rail.chain, "transfersInto")
        ),
      transfers: allTransfers().pipe(Effect.orDie),
      failNextPayout: sql`INSERT INTO sim_rejections (target) VALUES ('next') ON CONFLICT DO NOTHING`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
      failNextPayoutOf
    })
  })

/**
 * The SQL simulated chain with `options` (as `SimulatedChain.layerWith`), as itself and as core's
 * `ChainGateway`; its tables are created when it is built.
 */
export const layerWith = <R = never>(
  options: Options<R>
): Layer.Layer<SimulatedChain | ChainGateway.ChainGateway, SqlError.SqlError, SqlClient.SqlClient | R> =>
  Layer.effect(
    ChainGateway.ChainGateway,
    SimulatedChain.useSync((chain) => ChainGateway.ChainGateway.of(chain))
  ).pipe(Layer.provideMerge(Layer.effect(SimulatedChain, make(options))), Layer.provide(NodeCrypto.layerDigest))

/** Confirming at once, without `failNextPayoutOf`. */
export const layer: Layer.Layer<SimulatedChain | ChainGateway.ChainGateway, SqlError.SqlError, SqlClient.SqlClient> =
  layerWith({})
