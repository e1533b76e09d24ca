/**
 * EVM payouts through core's program on a real store (`node --conditions=source bench/evmPayouts.ts`
 * from the package): `Payouts.runDue` in a loop every 100 ms, on the Postgres store (a fresh
 * database on `DATABASE_URL`'s server, or this machine's) and the EVM gateway on anvil.
 *
 * What is set up rather than driven: each payout starts from an exercised contract written through
 * the store's ports (quote, contract, then its moves to `active` and `exercised`: a 10,000 USD
 * option on USD_TO_BRL locked at 5.4424, exercised at 5.1234, paid in USDC on ethereum to a fresh
 * address). Everything after is the product's: the pass creates the payout (622.632236 USDC),
 * signs it at the nonce the store allocates, persists and broadcasts it, looks it up, replaces it,
 * settles the contract.
 *
 * 1. Fee spike → replacement mined (automine off; the bench mines a block every 200 ms, setting
 *    each block's base fee first): 20 payouts one after another. Each is signed at 1 gwei base fee
 *    (3 gwei max fee) and broadcast while no block is mined; then a 10 gwei block (the spike) prices
 *    it out, and blocks stay at 10 gwei. The gateway replaces after 1 s (`replaceAfterSeconds: 1`).
 *    Measured: wall time from the spike block to the block that mined the replacement.
 * 2. 100 payouts due across two workers: 100 exercised contracts, then two `runDue` loops with
 *    distinct lease owners (each with its own connection pool and gateway, as two processes would
 *    have; in one Node process here) on one database and one hot wallet; automine on and an empty
 *    block every 200 ms, depth 3; once with 25 jobs per claim (both workers sign from their first
 *    pass), once with the host's 100 (the first to claim takes all). Measured: payouts/s until all
 *    100 are confirmed and their contracts settled, and nonce conflicts (two payouts holding one
 *    nonce in the store, two mined transactions of the hot wallet at one nonce, broadcasts refused
 *    as `nonce_conflict` / `nonce_consumed`, payouts failed or waiting with such an error): all must
 *    be 0, as must payouts not paid exactly once.
 */
import { pathToFileURL } from "node:url"
import { PgStore } from "@ratelock/adapters-store"
import {
  ChainGateway,
  type Contract,
  ContractRepo,
  IdGenerator,
  Lease,
  MarketData,
  Money,
  type Partner,
  PartnerRepo,
  Payouts,
  PayoutRepo,
  type Quote,
  QuoteRepo
} from "@ratelock/core"
import { Anvil } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import * as Postgres from "@ratelock/test-support/Postgres"
import { DateTime, Duration, Effect, Fiber, Layer, Option, Schedule, Semaphore } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { type Address, type Hash, parseGwei } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as EvmGateway from "../src/EvmGateway.ts"
import { depth, EvmFixture, fixture, hotWalletIndex } from "../test/support/evmTestChain.ts"

const passEvery = Duration.millis(100)
const blockEvery = Duration.millis(200)
const replaceAfterSeconds = 1
const spikeRounds = 20
const payoutsDue = 100
/**
 * Jobs per claim. The host's is 100 (`Workers.ts`): the first worker to claim then takes every
 * payout and the other only looks some up later; 25 has both workers sign from their first pass.
 */
const hostBatch = 100
const splitBatch = 25
const baseFeeGwei = "1"
const spikeGwei = "10"

interface Row {
  readonly measure: string
  readonly n: number
  readonly result: string
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN
const latency = (measure: string, samples: ReadonlyArray<number>): Row => {
  const sorted = [...samples].sort((a, b) => a - b)
  const ms = (x: number) => `${Math.round(x).toLocaleString("en")} ms`
  return {
    measure,
    n: samples.length,
    result: `median ${ms(percentile(sorted, 50))}, p95 ${ms(percentile(sorted, 95))}, max ${ms(sorted.at(-1) ?? Number.NaN)}`
  }
}

// ---------------------------------------------------------------------------------------------
// Exercised contracts, written through the store's ports

const dec = Money.unsafe
const minute = 60_000
const at = (millis: number) => DateTime.makeUnsafe(millis)

const quoteOf = (scope: Partner.PartnerScope, now: number): Quote.QuoteRecord => ({
  id: crypto.randomUUID(),
  partnerId: scope.partnerId,
  environment: scope.environment,
  customerReferenceId: "customer-1",
  customerName: "Ana Souza",
  contractType: "option",
  direction: "USD_TO_BRL",
  notionalCurrency: "USD",
  notionalAmount: dec("10000.00"),
  providerRate: dec("5.4400"),
  marketRate: dec("5.4412"),
  marketRateTimestamp: at(now - 2 * 1440 * minute - 1_500),
  strikeMode: "custom",
  targetStrike: dec("5.5000"),
  providerExtraSpread: dec("0.0010"),
  status: "created",
  failureReason: null,
  lockedRate: dec("5.4424"),
  strikeAdvantageBps: 12,
  premiumAmount: dec("12.345678"),
  depositAmount: null,
  totalAmount: dec("12.345678"),
  maxTransactionAmount: dec("10000.000000"),
  windowStart: at(now - 1440 * minute),
  windowEnd: at(now + 6 * 1440 * minute),
  chain: "ethereum",
  settlementCurrency: "USDC",
  expiresAt: at(now - 2 * 1440 * minute + 90_000),
  createdAt: at(now - 2 * 1440 * minute),
  acceptedAt: null,
  snapshotId: null,
  pricingInputs: null
})

const moved = (
  before: Contract.ContractRecord,
  status: Contract.ContractStatus,
  when: DateTime.Utc,
  patch: Partial<Contract.ContractRecord>
): Contract.ContractRecord => ({
  ...before,
  ...patch,
  status,
  history: [...before.history, { status, at: when, cause: `moved to ${status}` }],
  updatedAt: when
})

const change = (before: Contract.ContractRecord, after: Contract.ContractRecord): ContractRepo.ContractChange => ({
  contract: after,
  expectedVersion: before.history.length,
  outgoing: null,
  incoming: null,
  transfer: null,
  ledger: []
})

const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address

/** A new partner, for the contracts of one part. */
const newPartner = Effect.gen(function* () {
  const scope: Partner.PartnerScope = { partnerId: crypto.randomUUID(), environment: "sandbox" }
  yield* (yield* PartnerRepo.PartnerRepo).insertPartner({
    id: scope.partnerId,
    name: "Bench",
    createdAt: at(Date.now())
  })
  return scope
})

/** A funded option exercised a minute ago, to be paid on ethereum in USDC to a fresh address. */
const exercisedContract = (scope: Partner.PartnerScope) =>
  Effect.gen(function* () {
    const contracts = yield* ContractRepo.ContractRepo
    const now = Date.now()
    const quote = quoteOf(scope, now)
    yield* (yield* QuoteRepo.QuoteRepo).insert(quote)
    const createdAt = at(now - 2 * 1440 * minute + 10_000)
    const created: Contract.ContractRecord = {
      id: crypto.randomUUID(),
      partnerId: scope.partnerId,
      environment: scope.environment,
      quoteId: quote.id,
      serviceContractReference: `RL-${crypto.randomUUID().slice(0, 8)}`,
      customerReferenceId: quote.customerReferenceId,
      partnerTransactionReference: null,
      contractType: "option",
      direction: quote.direction,
      notionalCurrency: quote.notionalCurrency,
      notionalAmount: quote.notionalAmount,
      lockedRate: quote.lockedRate,
      providerRateAtLock: quote.providerRate,
      marketRateAtLock: quote.marketRate,
      premiumAmount: quote.premiumAmount,
      depositAmount: null,
      totalAmount: quote.totalAmount,
      maxTransactionAmount: quote.maxTransactionAmount,
      windowStart: quote.windowStart,
      windowEnd: quote.windowEnd,
      chain: "ethereum",
      settlementCurrency: "USDC",
      fundingWalletAddress: freshAddress(),
      fundingIndex: null,
      fundedAmount: dec("0.000000"),
      fundingDeadline: at(createdAt.epochMilliseconds + 60 * minute),
      status: "quote_created",
      exercise: null,
      eventSequence: 0,
      history: [{ status: "quote_created", at: createdAt, cause: "contract created from quote" }],
      createdAt,
      updatedAt: createdAt
    }
    yield* contracts.insert(created)
    const active = moved(created, "active", at(createdAt.epochMilliseconds + minute), {
      fundedAmount: quote.totalAmount
    })
    yield* contracts.commit(change(created, active))
    const executedAt = at(now - minute)
    const exercised = moved(active, "exercised", executedAt, {
      exercise: {
        executedAt,
        liveExecutionRate: dec("5.1234"),
        payoutWalletAddress: freshAddress(),
        payoutCurrency: "USDC"
      }
    })
    yield* contracts.commit(change(active, exercised))
    return exercised
  })

// ---------------------------------------------------------------------------------------------
// Workers

/** Broadcast refusals by reason, counted by a wrapper around the gateway. */
type Refusals = Map<string, number>

const counting = (refusals: Refusals) =>
  Layer.effect(
    ChainGateway.ChainGateway,
    Effect.map(ChainGateway.ChainGateway, (gateway) =>
      ChainGateway.ChainGateway.of({
        ...gateway,
        broadcastPayout: (rail, prepared) =>
          gateway.broadcastPayout(rail, prepared).pipe(
            Effect.tapError((error) =>
              Effect.sync(() => {
                refusals.set(error.reason, (refusals.get(error.reason) ?? 0) + 1)
              })
            )
          )
      })
    )
  )

/** Signings by this worker, counted by a wrapper around the store's `recordSigned`. */
const countingSignings = (signed: { count: number }) =>
  Layer.effect(
    PayoutRepo.PayoutRepo,
    Effect.map(PayoutRepo.PayoutRepo, (repo) =>
      PayoutRepo.PayoutRepo.of({
        ...repo,
        recordSigned: (payout, expected, account, sign) =>
          repo.recordSigned(payout, expected, account, sign).pipe(
            Effect.tap((written) =>
              Effect.sync(() => {
                if (Option.isSome(written)) signed.count++
              })
            )
          )
      })
    )
  )

/** What one worker process runs on: its own pool on the database, its own gateway. */
const workerLayer = (
  databaseUrl: string,
  gateway: EvmGateway.Options,
  refusals: Refusals,
  signed: { count: number }
) => {
  const store = PgStore.layer.pipe(Layer.provide(Postgres.client(databaseUrl)))
  return Layer.mergeAll(
    Layer.provideMerge(countingSignings(signed), store),
    counting(refusals).pipe(Layer.provide(EvmGateway.layer(gateway))),
    MarketData.MarketData.layerDefaults,
    IdGenerator.IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))
  )
}

/** `Payouts.runDue` every `passEvery`, as `owner`; a failed pass is counted and the loop goes on. */
const workerLoop = (owner: string, batch: number, failures: { count: number }) =>
  Payouts.runDue().pipe(
    Effect.catchCause((cause) =>
      Effect.sync(() => {
        failures.count++
        if (failures.count <= 3) console.error(`worker ${owner}: pass failed`, cause)
      })
    ),
    Effect.repeat(Schedule.spaced(passEvery)),
    Effect.provideService(Lease.Worker, {
      owner,
      leaseFor: Duration.minutes(1),
      batch,
      concurrency: Lease.defaultConcurrency
    })
  )

/** Polls `check` every `every` until it answers some value, failing after `within`. */
const until = <A, E, R>(
  what: string,
  check: Effect.Effect<Option.Option<A>, E, R>,
  within: Duration.Input,
  every = 10
) =>
  check.pipe(
    Effect.flatMap((found) => (Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail("not yet" as const))),
    Effect.retry(Schedule.spaced(Duration.millis(every))),
    Effect.timeoutOrElse({
      duration: within,
      orElse: () => Effect.die(new Error(`timed out waiting for ${what}`))
    })
  )

// ---------------------------------------------------------------------------------------------
// 1. Fee spike → replacement mined

const payoutOf = (contractId: string) =>
  Effect.flatMap(PayoutRepo.PayoutRepo, (repo) => repo.findByContract(contractId))

interface StoredVersions {
  readonly versions: ReadonlyArray<{ readonly signedAt: string; readonly maxFeePerGas: string }>
}
const versionsOf = (payout: PayoutRepo.PayoutRecord) => (JSON.parse(payout.prepared ?? "{}") as StoredVersions).versions

const feeSpike = Effect.gen(function* () {
  const anvil = yield* Anvil
  const f = yield* EvmFixture
  const db = yield* Postgres.fresh(Postgres.benchDatabaseUrl, { prefix: "ratelock_bench_chain", report: true })
  const refusals: Refusals = new Map()
  const signed = { count: 0 }
  const failures = { count: 0 }
  const context = yield* Layer.build(workerLayer(db.url, f.options({ replaceAfterSeconds }), refusals, signed))
  const client = anvil.client
  yield* Effect.promise(() => client.setAutomine(false))

  // the miner: a block every `blockEvery` at `level`, unless paused; block number → when it was mined
  const mining = yield* Semaphore.make(1)
  const state = { level: baseFeeGwei, paused: false }
  const minedAt = new Map<number, number>()
  const mineAt = (gwei: string) =>
    Effect.promise(async () => {
      await client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei(gwei) })
      await client.mine({ blocks: 1 })
      const now = performance.now()
      minedAt.set(Number(await client.getBlockNumber({ cacheTime: 0 })), now)
      return now
    })
  yield* Effect.forkScoped(
    mining
      .withPermits(1)(Effect.suspend(() => (state.paused ? Effect.void : Effect.asVoid(mineAt(state.level)))))
      .pipe(Effect.repeat(Schedule.spaced(blockEvery)))
  )
  yield* Effect.forkScoped(workerLoop("bench-spike", hostBatch, failures).pipe(Effect.provideContext(context)))

  const scope = yield* newPartner.pipe(Effect.provideContext(context))
  const total: Array<number> = []
  const toSigned: Array<number> = []
  const signedToMined: Array<number> = []
  const agesAtSpike: Array<number> = []
  let replacements = 0
  for (let round = 0; round < spikeRounds; round++) {
    yield* mining.withPermits(1)(Effect.sync(() => (state.paused = true)))
    const contract = yield* exercisedContract(scope).pipe(Effect.provideContext(context))
    // the pass creates the payout, signs it at the store's nonce, persists and broadcasts it
    const first = yield* until(
      "the payout to be signed and broadcast",
      Effect.gen(function* () {
        const payout = yield* payoutOf(contract.id)
        if (Option.isNone(payout) || payout.value.transactionHash === null) return Option.none()
        const hash = payout.value.transactionHash as Hash
        const pooled = yield* Effect.promise(() =>
          client.getTransaction({ hash }).then(
            () => true,
            () => false
          )
        )
        return pooled ? payout : Option.none()
      }).pipe(Effect.provideContext(context)),
      "10 seconds",
      5
    )
    // the spike: the next block's base fee above the payout's max fee, and every block after it
    const spikeAt = yield* mining.withPermits(1)(
      Effect.gen(function* () {
        const now = yield* mineAt(spikeGwei)
        state.level = spikeGwei
        state.paused = false
        return now
      })
    )
    const spikeEpoch = Date.now()
    agesAtSpike.push(spikeEpoch - Date.parse(versionsOf(first)[0]!.signedAt))
    const replaced = yield* until(
      "the replacement to be mined",
      Effect.gen(function* () {
        const payout = Option.getOrThrow(yield* payoutOf(contract.id))
        if (payout.replacements === 0 || payout.transactionHash === null) return Option.none()
        const receipt = yield* Effect.promise(() =>
          client.getTransactionReceipt({ hash: payout.transactionHash as Hash }).catch(() => null)
        )
        // the miner notes the block just after the receipt shows
        return receipt === null || !minedAt.has(Number(receipt.blockNumber))
          ? Option.none()
          : Option.some({ payout, block: Number(receipt.blockNumber) })
      }).pipe(Effect.provideContext(context)),
      "30 seconds",
      20
    )
    const blockAt = minedAt.get(replaced.block)
    if (blockAt === undefined) {
      return yield* Effect.die(
        `round ${round}: block ${replaced.block} was not mined by the bench (${[...minedAt.keys()].slice(-5)})`
      )
    }
    const versions = versionsOf(replaced.payout)
    total.push(blockAt - spikeAt)
    const replacementSigned = Date.parse(versions.at(-1)!.signedAt)
    toSigned.push(replacementSigned - spikeEpoch)
    signedToMined.push(blockAt - spikeAt - (replacementSigned - spikeEpoch))
    replacements += replaced.payout.replacements
    // fees back to normal; the pass settles the payout at depth
    yield* Effect.sync(() => (state.level = baseFeeGwei))
    const settled = yield* until(
      "the payout to be confirmed",
      Effect.map(
        payoutOf(contract.id),
        Option.filter((p) => p.status === "confirmed")
      ).pipe(Effect.provideContext(context)),
      "30 seconds",
      20
    )
    // paid once, by the replacement, and the contract settled
    const balance = yield* Erc20.balanceOf(client, f.usdc, settled.destination as Address)
    const stored = yield* Effect.flatMap(ContractRepo.ContractRepo, (repo) => repo.findById(contract.id)).pipe(
      Effect.provideContext(context)
    )
    if (
      !Money.equals(Money.fromBaseUnits(balance, 6), settled.amount) ||
      settled.transactionHash !== replaced.payout.transactionHash ||
      Option.getOrUndefined(stored)?.status !== "settled"
    ) {
      return yield* Effect.die(`round ${round}: the payout was not settled once by its replacement`)
    }
  }
  yield* mining.withPermits(1)(Effect.sync(() => (state.paused = true)))

  const refused = [...refusals].map(([reason, n]) => `${reason} ${n}`).join(", ") || "none"
  return [
    latency("fee spike → replacement mined (spike block to the block that mined it)", total),
    latency("  of which: spike → replacement signed (the 1 s replace-after wait)", toSigned),
    latency("  of which: replacement signed → persisted, broadcast, mined", signedToMined),
    latency("  first version's age at the spike", agesAtSpike),
    {
      measure: "  versions signed after the first / failed passes / broadcast refusals",
      n: spikeRounds,
      result: `${replacements} / ${failures.count} / ${refused} (the old bytes re-sent while priced out)`
    }
  ] satisfies Array<Row>
}).pipe(Effect.scoped)

// ---------------------------------------------------------------------------------------------
// 2. 100 payouts due across two workers

const twoWorkers = (batch: number) =>
  Effect.gen(function* () {
    const anvil = yield* Anvil
    const f = yield* EvmFixture
    const client = anvil.client
    const hot = anvil.account(hotWalletIndex).address.toLowerCase()
    const db = yield* Postgres.fresh(Postgres.benchDatabaseUrl, { prefix: "ratelock_bench_chain", report: true })
    const gateway = f.options({ replaceAfterSeconds })

    // set-up and observation: a client of its own
    const setup = yield* Layer.build(
      Layer.mergeAll(
        PgStore.layer,
        IdGenerator.IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))
      ).pipe(Layer.provideMerge(Postgres.client(db.url, 4)))
    )
    const contracts = yield* Effect.gen(function* () {
      const scope = yield* newPartner
      return yield* Effect.forEach(Array.from({ length: payoutsDue }), () => exercisedContract(scope), {
        concurrency: 4
      })
    }).pipe(Effect.provideContext(setup))
    const sql = yield* Effect.provideContext(SqlClient.SqlClient, setup)

    const workers = [
      { owner: "bench-worker-a", refusals: new Map() as Refusals, signed: { count: 0 }, failures: { count: 0 } },
      { owner: "bench-worker-b", refusals: new Map() as Refusals, signed: { count: 0 }, failures: { count: 0 } }
    ]
    const contexts = yield* Effect.forEach(workers, (w) =>
      Layer.build(workerLayer(db.url, gateway, w.refusals, w.signed))
    )
    const startBlock = yield* anvil.head
    // automine on (a block per transaction) and an empty block every `blockEvery`, so the last
    // payouts reach depth too
    yield* Effect.forkScoped(Effect.repeat(anvil.mine(1), Schedule.spaced(blockEvery)))

    const counts = sql<{ signed: string; confirmed: string; settled: string }>`SELECT
      (SELECT count(*) FROM payouts WHERE transaction_hash IS NOT NULL) AS signed,
      (SELECT count(*) FROM payouts WHERE status = 'confirmed') AS confirmed,
      (SELECT count(*) FROM contracts WHERE status = 'settled') AS settled`
    const start = performance.now()
    const fibers = yield* Effect.forEach(workers, (w, i) =>
      Effect.forkScoped(workerLoop(w.owner, batch, w.failures).pipe(Effect.provideContext(contexts[i]!)))
    )
    let allSignedAt = Number.NaN
    yield* until(
      "every payout to be confirmed and its contract settled",
      Effect.map(Effect.orDie(counts), ([row]) => {
        if (Number.isNaN(allSignedAt) && Number(row!.signed) === payoutsDue) allSignedAt = performance.now()
        return Number(row!.confirmed) === payoutsDue && Number(row!.settled) === payoutsDue
          ? Option.some(performance.now())
          : Option.none()
      }),
      "90 seconds",
      20
    ).pipe(Effect.tap(() => Effect.forEach(fibers, Fiber.interrupt)))
    const seconds = (performance.now() - start) / 1000
    const signedSeconds = (allSignedAt - start) / 1000

    // the chain: every transaction of the hot wallet since the start, by nonce
    const head = yield* anvil.head
    const blocks = yield* Effect.forEach(
      Array.from({ length: head - startBlock }, (_, i) => BigInt(startBlock + 1 + i)),
      (blockNumber) => Effect.promise(() => client.getBlock({ blockNumber, includeTransactions: true })),
      { concurrency: 8 }
    )
    const mined = blocks.flatMap((b) => b.transactions.filter((t) => t.from.toLowerCase() === hot))
    const minedNonces = new Map<number, number>()
    for (const t of mined) minedNonces.set(t.nonce, (minedNonces.get(t.nonce) ?? 0) + 1)
    const sharedOnChain = [...minedNonces.values()].filter((n) => n > 1).length

    // the store: every payout's nonce and error, and the hash that settled it
    const rows = yield* Effect.orDie(
      sql<{
        nonce: string | null
        transaction_hash: string | null
        last_error: string | null
        attempts: number
        replacements: number
        destination: string
        amount: string
      }>`SELECT nonce, transaction_hash, last_error, attempts, replacements, destination, amount::text AS amount
      FROM payouts`
    )
    const storeNonces = new Map<string, number>()
    for (const r of rows) if (r.nonce !== null) storeNonces.set(r.nonce, (storeNonces.get(r.nonce) ?? 0) + 1)
    const sharedInStore = [...storeNonces.values()].filter((n) => n > 1).length
    const nonceErrors = rows.filter((r) => /nonce_(conflict|consumed)/.test(r.last_error ?? "")).length
    const minedHashes = new Set(mined.map((t) => t.hash.toLowerCase()))
    const settledOnChain = rows.filter((r) => r.transaction_hash !== null && minedHashes.has(r.transaction_hash)).length
    const balances = yield* Effect.forEach(
      rows,
      (r) =>
        Effect.map(Erc20.balanceOf(client, f.usdc, r.destination as Address), (units) =>
          Money.equals(Money.fromBaseUnits(units, 6), dec(r.amount))
        ),
      { concurrency: 8 }
    )
    const paidOnce = balances.filter((ok) => ok).length
    const refusals = new Map<string, number>()
    for (const w of workers) for (const [k, n] of w.refusals) refusals.set(k, (refusals.get(k) ?? 0) + n)
    const nonceRefusals = (refusals.get("nonce_conflict") ?? 0) + (refusals.get("nonce_consumed") ?? 0)
    const conflicts = sharedInStore + sharedOnChain + nonceRefusals + nonceErrors

    const checks = [
      [rows.length === payoutsDue, `${rows.length} payouts for ${contracts.length} contracts`],
      [mined.length === payoutsDue, `${mined.length} hot wallet transactions mined`],
      [storeNonces.size === payoutsDue, `${storeNonces.size} distinct nonces in the store`],
      [settledOnChain === payoutsDue, `${settledOnChain} payouts settled by a mined transaction of theirs`],
      [paidOnce === payoutsDue, `${paidOnce} destinations hold exactly their amount`],
      [conflicts === 0, `${conflicts} nonce conflicts`]
    ] as const
    const failed = checks.filter(([ok]) => !ok)
    if (failed.length > 0) {
      return yield* Effect.die(new Error(`two workers: ${failed.map(([, what]) => what).join("; ")}`))
    }
    const refused = [...refusals].map(([reason, n]) => `${reason} ${n}`).join(", ") || "none"
    return [
      {
        measure: `two workers, ${batch} per claim: exercised → signed, broadcast, confirmed at depth 3, settled`,
        n: payoutsDue,
        result: `${(payoutsDue / seconds).toFixed(1)} payouts/s (${seconds.toFixed(2)} s; all signed + broadcast after ${signedSeconds.toFixed(2)} s)`
      },
      {
        measure: "  signed by worker a / b; replacements; failed passes",
        n: payoutsDue,
        result: `${workers[0]!.signed.count} / ${workers[1]!.signed.count}; ${rows.reduce((n, r) => n + r.replacements, 0)}; ${workers.reduce((n, w) => n + w.failures.count, 0)}`
      },
      {
        measure: "  nonce conflicts (store, chain, broadcasts, payout errors)",
        n: payoutsDue,
        result: `${conflicts} (${sharedInStore}, ${sharedOnChain}, ${nonceRefusals}, ${nonceErrors}); broadcast refusals: ${refused}`
      }
    ] satisfies Array<Row>
  }).pipe(Effect.scoped)

const print = (rows: ReadonlyArray<Row>) => {
  const width = Math.max(...rows.map((r) => r.measure.length))
  console.log(`${"measure".padEnd(width)}  ${"n".padStart(5)}  result`)
  for (const row of rows) console.log(`${row.measure.padEnd(width)}  ${String(row.n).padStart(5)}  ${row.result}`)
}

export const main = async (): Promise<ReadonlyArray<Row>> => {
  const spike = await Effect.runPromise(feeSpike.pipe(Effect.provide(fixture)))
  const split = await Effect.runPromise(twoWorkers(splitBatch).pipe(Effect.provide(fixture)))
  const host = await Effect.runPromise(twoWorkers(hostBatch).pipe(Effect.provide(fixture)))
  const rows = [...spike, ...split, ...host]
  console.log(
    `EVM payouts through Payouts.runDue (every ${Duration.format(passEvery)}) on PostgreSQL and anvil ` +
      `(depth ${depth}, a block every ${Duration.format(blockEvery)}, replace after ${replaceAfterSeconds} s)`
  )
  print(rows)
  return rows
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main()
}
