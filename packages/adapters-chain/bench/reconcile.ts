/**
 * A reconciliation of 10,000 addresses, end to end (`node --conditions=source bench/reconcile.ts`
 * from the package): core's `Reconciliation.reconcileRail("production", "ethereum")` on the real
 * store (PostgreSQL: a fresh database on `DATABASE_URL`'s server, or this machine's, dropped after;
 * then the embedded store, PGlite in memory) and the real EVM gateway on anvil with Multicall3, for
 * production ethereum USDC.
 *
 * What is set up rather than driven: 10,000 funded contracts on the rail, written through the
 * store's ports (the quote, `ContractRepo.insert`, then the funding transition core's machine
 * computes, committed with its transfer and its ledger entries: 100 contracts a transaction), each
 * funding address a fresh random one holding by the books what its contract was funded with
 * (10.000000 + 13·i µUSDC); the same amounts minted to those addresses through Multicall3, except
 * 100 (1 %) minted 1–9 µUSDC more. The hot wallet's opening ether and USDC are recorded as the
 * operator's top-ups (`Reconciliation.recordInflow`), as an operator would, so the books and the
 * chain agree on the hot wallet. Everything after is the product's: the books read (`fundingBalances`,
 * `walletBalances`), the chain read at the funding depth (`balances` of the 10,000 addresses and
 * the hot wallet, `nativeBalances` of the hot wallet; `hotWallet` for its address), the
 * comparison, the run saved.
 *
 * Measured, per store: one run right after the writes, before the tables have statistics (an
 * embedded store's state for good: PGlite runs no autovacuum; a server's until autovacuum first
 * analyzes them), then `ANALYZE`, one run to warm up and three: seconds (median, range), split by
 * wrappers around the ports into the books' reads, the chain's reads, the runs read and saved, and
 * the rest (core's comparison); the chain calls from the gateway's own counters (JSON-RPC calls and
 * HTTP requests); the balances compared. Checked on every run: no error, 10,002 balances compared
 * (10,000 funding addresses, the hot wallet's ether and USDC), and the differences exactly the 100
 * planted, each of its amount.
 */
import { randomBytes } from "node:crypto"
import { pathToFileURL } from "node:url"
import { EmbeddedStore, PgStore } from "@ratelock/adapters-store"
import {
  ChainGateway,
  type Contract,
  ContractMachine,
  ContractRepo,
  IdGenerator,
  Ledger,
  Money,
  MovementRepo,
  type Partner,
  PartnerRepo,
  type Quote,
  QuoteRepo,
  Reconciliation,
  ReconciliationRepo,
  SettlementRails
} from "@ratelock/core"
import { Anvil } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import * as Postgres from "@ratelock/test-support/Postgres"
import { Array as Arr, DateTime, Effect, Layer, Result } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import * as EvmGateway from "../src/EvmGateway.ts"
import { depth, EvmFixture, fixture, hotWalletIndex, mintMany } from "../test/support/evmTestChain.ts"
import { print, type Row } from "./evm.ts"
import { fmt, median, sent } from "./evmSweeps.ts"

const environment = "production"
const chain = "ethereum"
const contractsOnRail = 10_000
/** Every 100th contract's address holds more on chain than booked: 1 %. */
const plantedEvery = 100
const contractsPerTransaction = 100
const runs = 3

const onlyUsdc: SettlementRails.SettlementRailsShape = {
  supports: (e, c, token) => e === environment && c === chain && token === "USDC"
}

// ---------------------------------------------------------------------------------------------
// The chain: 10,000 funding addresses, each holding what its contract was funded with, 1 % more

interface Book {
  readonly addresses: ReadonlyArray<string>
  /** What contract i was funded with, in µUSDC. */
  readonly units: (i: number) => bigint
  /** The planted differences: address → µUSDC on chain beyond the books. */
  readonly planted: ReadonlyMap<string, bigint>
}

const unitsOf = (i: number) => 10_000_000n + 13n * BigInt(i)
const extraOf = (i: number) => (i % plantedEvery === 42 ? BigInt(1 + (Math.floor(i / plantedEvery) % 9)) : 0n)

const fundAddresses = Effect.gen(function* () {
  const anvil = yield* Anvil
  const f = yield* EvmFixture
  const addresses = Array.from({ length: contractsOnRail }, () => `0x${randomBytes(20).toString("hex")}`)
  yield* mintMany(f.usdc, addresses, (i) => unitsOf(i) + extraOf(i))
  yield* anvil.mine(depth)
  const planted = new Map(addresses.flatMap((a, i) => (extraOf(i) > 0n ? [[a, extraOf(i)] as const] : [])))
  return { addresses, units: unitsOf, planted } satisfies Book
})

// ---------------------------------------------------------------------------------------------
// The books: 10,000 funded contracts through the store's ports

const dec = Money.unsafe
const minute = 60_000
const at = (millis: number) => DateTime.makeUnsafe(millis)
const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}`

const quoteOf = (scope: Partner.PartnerScope, amount: Money.Decimal, createdAt: number): Quote.QuoteRecord => ({
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
  marketRateTimestamp: at(createdAt - 1_500),
  strikeMode: "custom",
  targetStrike: dec("5.5000"),
  providerExtraSpread: dec("0.0010"),
  status: "created",
  failureReason: null,
  lockedRate: dec("5.4424"),
  strikeAdvantageBps: 12,
  premiumAmount: amount,
  depositAmount: null,
  totalAmount: amount,
  maxTransactionAmount: dec("10000.000000"),
  windowStart: at(createdAt + 1440 * minute),
  windowEnd: at(createdAt + 8 * 1440 * minute),
  chain,
  settlementCurrency: "USDC",
  expiresAt: at(createdAt + 90_000),
  createdAt: at(createdAt),
  acceptedAt: null,
  snapshotId: null,
  pricingInputs: null
})

/**
 * Contract i, funded: its quote, the contract (10 s after the quote, one ms apart from the next),
 * then the funding of its whole amount a minute later as core commits it (the machine's transition,
 * the transfer counted, the ledger entries; no webhook event queued: the reconciliation reads none).
 */
const fundedContract = (scope: Partner.PartnerScope, book: Book, start: number, i: number) =>
  Effect.gen(function* () {
    const contracts = yield* ContractRepo.ContractRepo
    const amount = Money.fromBaseUnits(book.units(i), 6)
    const createdAt = start + i
    const quote = quoteOf(scope, amount, createdAt - 10_000)
    yield* (yield* QuoteRepo.QuoteRepo).insert(quote)
    const created: Contract.ContractRecord = {
      id: crypto.randomUUID(),
      partnerId: scope.partnerId,
      environment: scope.environment,
      quoteId: quote.id,
      serviceContractReference: `RL-${String(i).padStart(8, "0")}`,
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
      chain,
      settlementCurrency: "USDC",
      fundingWalletAddress: book.addresses[i]!,
      fundingIndex: null,
      fundedAmount: dec("0.000000"),
      fundingDeadline: at(createdAt + 60 * minute),
      status: "quote_created",
      exercise: null,
      eventSequence: 0,
      history: [{ status: "quote_created", at: at(createdAt), cause: "contract created from quote" }],
      createdAt: at(createdAt),
      updatedAt: at(createdAt)
    }
    yield* contracts.insert(created)
    const transactionHash = hex(32)
    const command: ContractMachine.Command = {
      _tag: "FundingObserved",
      amount,
      transactionHash,
      blockNumber: 1_000 + i,
      at: at(createdAt + minute)
    }
    const transition = ContractMachine.transition(created, command)
    if (Result.isFailure(transition)) return yield* Effect.die(transition.failure)
    yield* contracts.commit({
      contract: transition.success.contract,
      expectedVersion: ContractRepo.version(created),
      outgoing: null,
      incoming: null,
      transfer: { chain, transactionHash, index: 0, blockNumber: 1_000 + i, amount },
      ledger: Ledger.entriesFor(created, command, transition.success)
    })
  })

/** The partner, the 10,000 contracts (100 a transaction), the hot wallet's opening balances. */
const loadBooks = (book: Book) =>
  Effect.gen(function* () {
    const anvil = yield* Anvil
    const f = yield* EvmFixture
    const sql = yield* SqlClient.SqlClient
    const scope: Partner.PartnerScope = { partnerId: crypto.randomUUID(), environment }
    const start = Date.now() - 2 * 1440 * minute
    yield* (yield* PartnerRepo.PartnerRepo).insertPartner({ id: scope.partnerId, name: "Bench", createdAt: at(start) })
    yield* Effect.forEach(
      Arr.chunksOf(
        Array.from({ length: contractsOnRail }, (_, i) => i),
        contractsPerTransaction
      ),
      (chunk) => sql.withTransaction(Effect.forEach(chunk, (i) => fundedContract(scope, book, start, i))),
      { discard: true }
    )
    // the hot wallet's opening balances are the operator's money
    const hot = anvil.account(hotWalletIndex).address
    const ether = yield* Effect.promise(() => anvil.client.getBalance({ address: hot }))
    const usdc = yield* Erc20.balanceOf(anvil.client, f.usdc, hot)
    for (const [currency, amount] of [
      ["ETH", Money.fromBaseUnits(ether, 18)],
      ["USDC", Money.fromBaseUnits(usdc, 6)]
    ] as const) {
      yield* Reconciliation.recordInflow({ environment, chain, wallet: "hot_wallet", currency, amount, as: "topup" })
    }
  })

// ---------------------------------------------------------------------------------------------
// Where a run's time goes: wrappers around the ports it calls

interface Parts {
  fundingBalances: number
  walletBalances: number
  balances: number
  hotWallet: number
  nativeBalances: number
  runs: number
  /** JSON-RPC calls of `balances`, of `hotWallet` and of `nativeBalances`. */
  balancesCalls: number
  hotWalletCalls: number
  nativeBalancesCalls: number
}
const noParts = (): Parts => ({
  fundingBalances: 0,
  walletBalances: 0,
  balances: 0,
  hotWallet: 0,
  nativeBalances: 0,
  runs: 0,
  balancesCalls: 0,
  hotWalletCalls: 0,
  nativeBalancesCalls: 0
})

const clocked =
  (parts: Parts, part: keyof Parts, calls?: keyof Parts) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      const before = calls === undefined ? undefined : yield* sent
      const start = performance.now()
      return yield* Effect.ensuring(
        effect,
        Effect.gen(function* () {
          parts[part] += performance.now() - start
          if (calls !== undefined) parts[calls] += (yield* sent).calls - before!.calls
        })
      )
    })

const clockedStore = (parts: Parts) =>
  Layer.mergeAll(
    Layer.effect(
      MovementRepo.MovementRepo,
      Effect.map(MovementRepo.MovementRepo, (repo) =>
        MovementRepo.MovementRepo.of({
          ...repo,
          fundingBalances: (r) => clocked(parts, "fundingBalances")(repo.fundingBalances(r)),
          walletBalances: (r) => clocked(parts, "walletBalances")(repo.walletBalances(r))
        })
      )
    ),
    Layer.effect(
      ReconciliationRepo.ReconciliationRepo,
      Effect.map(ReconciliationRepo.ReconciliationRepo, (repo) =>
        ReconciliationRepo.ReconciliationRepo.of({
          save: (run) => clocked(parts, "runs")(repo.save(run)),
          latest: () => clocked(parts, "runs")(repo.latest())
        })
      )
    )
  )

const clockedGateway = (parts: Parts) =>
  Layer.effect(
    ChainGateway.ChainGateway,
    Effect.map(ChainGateway.ChainGateway, (gateway) =>
      ChainGateway.ChainGateway.of({
        ...gateway,
        balances: (r, addresses) => clocked(parts, "balances", "balancesCalls")(gateway.balances(r, addresses)),
        hotWallet: (r) => clocked(parts, "hotWallet", "hotWalletCalls")(gateway.hotWallet(r)),
        nativeBalances: (r, addresses) =>
          clocked(parts, "nativeBalances", "nativeBalancesCalls")(gateway.nativeBalances(r, addresses))
      })
    )
  )

// ---------------------------------------------------------------------------------------------
// The runs

/** What a run must have found: every balance compared, the planted differences and no other. */
const check = (book: Book, run: ReconciliationRepo.ReconciliationRun) => {
  const problems: Array<string> = []
  if (run.error !== null) problems.push(`the run failed: ${run.error}`)
  if (run.checked !== contractsOnRail + 2) problems.push(`${run.checked} balances compared`)
  if (run.chainCalls !== 3) problems.push(`${run.chainCalls} gateway calls`)
  const found = new Map(run.differences.map((d) => [d.address, d]))
  for (const [address, extra] of book.planted) {
    const d = found.get(address)
    if (d === undefined) problems.push(`the difference at ${address} was not found`)
    else if (d.wallet !== "funding_address" || !Money.equals(d.difference, Money.fromBaseUnits(extra, 6))) {
      problems.push(`${address}: ${d.wallet} ${Money.format(d.difference)}, planted ${extra} µUSDC`)
    }
  }
  for (const d of run.differences) {
    if (!book.planted.has(d.address)) problems.push(`an unplanted difference: ${d.wallet} ${d.address} ${d.currency}`)
  }
  return problems
}

const ms = (x: number) => `${fmt(x)} ms`
const seconds = (x: number) => `${fmt(x / 1000, 2)} s`
const range = (xs: ReadonlyArray<number>, show: (x: number) => string) =>
  `${show(median(xs))} (${show(Math.min(...xs))}–${show(Math.max(...xs))})`

const measure = <E>(name: string, store: Layer.Layer<PgStore.Repos | SqlClient.SqlClient, E>, book: Book) =>
  Effect.gen(function* () {
    const f = yield* EvmFixture
    const parts = noParts()
    const gateway = EvmGateway.layer(f.options({ environment, tokens: { USDC: { address: f.usdc } } }))
    const context = yield* Layer.build(
      Layer.mergeAll(
        Layer.provideMerge(clockedStore(parts), store),
        clockedGateway(parts).pipe(Layer.provide(gateway)),
        IdGenerator.IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto)),
        Layer.succeed(SettlementRails.SettlementRails, onlyUsdc)
      )
    ).pipe(Effect.orDie)

    const sql = yield* Effect.provideContext(SqlClient.SqlClient, context)
    const loadStart = performance.now()
    yield* loadBooks(book).pipe(Effect.provideContext(context), Effect.orDie)
    const loaded = performance.now() - loadStart
    console.log(`  · ${name}: ${fmt(contractsOnRail)} funded contracts written in ${seconds(loaded)}`)

    const reconcile = (label: string) =>
      Effect.gen(function* () {
        Object.assign(parts, noParts())
        const before = yield* sent
        const start = performance.now()
        const result = yield* Reconciliation.reconcileRail(environment, chain).pipe(
          Effect.provideContext(context),
          Effect.orDie
        )
        const total = performance.now() - start
        const after = yield* sent
        const problems = check(book, result)
        if (problems.length > 0) return yield* Effect.die(`${name}, ${label}: ${problems.slice(0, 5).join("; ")}`)
        console.log(`  · ${name}: ${label} in ${seconds(total)}`)
        return {
          ...parts,
          total,
          calls: after.calls - before.calls,
          requests: after.requests - before.requests,
          differences: result.differences.length
        }
      })

    // as the store is right after the writes, before any statistics: an embedded store's state for
    // good (PGlite runs no autovacuum), a server's until autovacuum's first analyze of the tables
    const analyzed = yield* Effect.orDie(
      sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'contracts' AND reltuples >= 0`
    )
    const cold = yield* reconcile(`run before statistics${analyzed[0]!.n > 0 ? " (autovacuum had analyzed)" : ""}`)
    const analyzeStart = performance.now()
    yield* Effect.orDie(sql`ANALYZE`)
    const analyzeMs = performance.now() - analyzeStart
    yield* reconcile("warm-up run after ANALYZE")
    const samples: Array<Effect.Success<ReturnType<typeof reconcile>>> = []
    for (let run = 1; run <= runs; run++) samples.push(yield* reconcile(`run ${run}`))

    const of = (pick: (s: (typeof samples)[number]) => number) => samples.map(pick)
    const rest = of(
      (s) => s.total - s.fundingBalances - s.walletBalances - s.balances - s.hotWallet - s.nativeBalances - s.runs
    )
    return [
      {
        measure: `${name}: reconcileRail, ${fmt(contractsOnRail)} funded contracts (median, range)`,
        n: runs,
        result: `${range(
          of((s) => s.total),
          seconds
        )}; ${fmt(median(of((s) => s.calls)))} JSON-RPC calls in ${fmt(median(of((s) => s.requests)))} HTTP requests; ${fmt(contractsOnRail + 2)} balances compared, ${samples[0]!.differences} differences (the ${book.planted.size} planted)`
      },
      {
        measure: "  books: fundingBalances / walletBalances",
        n: runs,
        result: `${range(
          of((s) => s.fundingBalances),
          ms
        )} / ${range(
          of((s) => s.walletBalances),
          ms
        )}`
      },
      {
        measure: `  chain: balances of ${fmt(contractsOnRail + 1)} addresses (the hot wallet's too) / hotWallet / nativeBalances`,
        n: runs,
        result: `${range(
          of((s) => s.balances),
          ms
        )}, ${fmt(median(of((s) => s.balancesCalls)))} calls / ${range(
          of((s) => s.hotWallet),
          ms
        )}, ${fmt(median(of((s) => s.hotWalletCalls)))} calls / ${range(
          of((s) => s.nativeBalances),
          ms
        )}, ${fmt(median(of((s) => s.nativeBalancesCalls)))} calls`
      },
      {
        measure: "  runs: the previous read, this one saved / core's comparison",
        n: runs,
        result: `${range(
          of((s) => s.runs),
          ms
        )} / ${range(rest, ms)}`
      },
      {
        measure: "  before statistics (right after the writes): reconcileRail / of which fundingBalances",
        n: 1,
        result: `${seconds(cold.total)} / ${ms(cold.fundingBalances)}${analyzed[0]!.n > 0 ? " (autovacuum had analyzed contracts)" : ""}`
      },
      {
        measure: `  set-up: ${fmt(contractsOnRail)} contracts written (quote, insert, funding commit) / ANALYZE`,
        n: 1,
        result: `${seconds(loaded)} / ${ms(analyzeMs)}`
      }
    ] satisfies Array<Row>
  }).pipe(Effect.scoped)

const program = Effect.gen(function* () {
  const book = yield* fundAddresses
  const postgres = Layer.unwrap(
    Effect.map(Postgres.fresh(Postgres.benchDatabaseUrl, { prefix: "ratelock_bench_reconcile", report: true }), (db) =>
      PgStore.layer.pipe(Layer.provideMerge(Postgres.client(db.url, 4)))
    )
  )
  const pg = yield* measure("PostgreSQL", postgres, book)
  const embedded = yield* measure("PGlite", EmbeddedStore.layer({}), book)
  return [...pg, ...embedded]
}).pipe(Effect.provide(fixture))

export const main = async (): Promise<ReadonlyArray<Row>> => {
  const rows = await Effect.runPromise(program)
  console.log(
    `Reconciliation of production ethereum USDC on anvil (depth ${depth}, Multicall3): ` +
      `${fmt(contractsOnRail)} funding addresses, ${fmt(contractsOnRail / plantedEvery)} of them holding more than booked`
  )
  print(rows)
  return rows
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main()
}
