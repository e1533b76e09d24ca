/**
 * EVM sweeps and balances on a local anvil (`node --conditions=source bench/evmSweeps.ts` from the
 * package), through the gateway the way core drives it:
 *
 * 1. 1,000 funded funding addresses swept into the hot wallet: each drafted (8 at a time), signed
 *    at the next hot wallet nonce (as the store allocates them) and broadcast, then passes every
 *    100 ms look every unsettled job up and broadcast it again (the transfer goes once its top-up
 *    is mined); automine on plus an empty block every 200 ms, depth 3. Measured: sweeps/s from the
 *    first draft until all are `Confirmed` at depth, the gas each leg used (from the receipts) and
 *    the JSON-RPC calls per sweep; checked: every funding address emptied, the hot wallet up by
 *    exactly the total, and the ether the lookups report equal to the balances' change on the node.
 * 2. `balances` of 10,000 addresses (2,000 holding the token), through Multicall3 and through
 *    JSON-RPC batches: seconds and chain calls (JSON-RPC calls and HTTP requests, from the
 *    gateway's own counters), median of three runs; both answers checked equal and exact.
 */
import { pathToFileURL } from "node:url"
import { ChainGateway, Money } from "@ratelock/core"
import { Anvil } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { Duration, Effect, Fiber, Metric, Schedule } from "effect"
import { type Address, type Hash, type Hex, keccak256 } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as EvmGateway from "../src/EvmGateway.ts"
import * as Rpc from "../src/internal/evm/rpc.ts"
import { print, type Row } from "./evm.ts"
import { depth, EvmFixture, fixture, hotWalletIndex, mintMany } from "../test/support/evmTestChain.ts"

const rail: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }
const sweeps = 1_000
const draftsAtOnce = 8
const passEvery = Duration.millis(100)
const blockEvery = Duration.millis(200)
const addressesRead = 10_000
const holdersRead = 2_000
const runs = 3

export const median = (xs: ReadonlyArray<number>) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
export const fmt = (x: number, digits = 0) =>
  x.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** Every JSON-RPC call and HTTP request the EVM gateways of this process have sent. */
export const sent = Effect.map(Metric.snapshot, (snapshots) => {
  const sum = (id: string) =>
    snapshots
      .filter((s) => s.id === id)
      .reduce((total, s) => total + Number((s.state as { readonly count: number | bigint }).count), 0)
  return { calls: sum(Rpc.calls.id), requests: sum(Rpc.requests.id) }
})

interface LegWire {
  readonly versions: ReadonlyArray<{ readonly serialized: Hex }>
}
/** The hash of a leg's latest version (the one mined: a sweep here is never replaced). */
const latestHash = (leg: LegWire): Hash => keccak256(leg.versions[leg.versions.length - 1]!.serialized)

const sweepAll = Effect.gen(function* () {
  const anvil = yield* Anvil
  const f = yield* EvmFixture
  const g = yield* ChainGateway.ChainGateway
  const client = anvil.client
  const hot = anvil.account(hotWalletIndex).address
  const base = 100_000
  const indexes = Array.from({ length: sweeps }, (_, i) => base + i)
  const sources = yield* Effect.forEach(indexes, (i) => g.fundingAddress(rail, i))
  const unitsOf = (i: number) => 1_000_000n + BigInt(i) // 1.000000 + i µUSDC: every amount differs
  yield* mintMany(f.usdc, sources, unitsOf)
  yield* anvil.mine(depth)
  const total = indexes.reduce((sum, _, i) => sum + unitsOf(i), 0n)
  const etherOf = (owner: string) => Effect.promise(() => client.getBalance({ address: owner as Address }))
  const tokenOf = (owner: string) => Erc20.balanceOf(client, f.usdc, owner)
  const [etherBefore, tokenBefore] = [yield* etherOf(hot), yield* tokenOf(hot)]
  const nonceBefore = yield* Effect.promise(() => client.getTransactionCount({ address: hot }))

  // blocks keep coming, as on a chain: depth is reached after the last transaction too
  const blocks = yield* Effect.forkChild(Effect.repeat(anvil.mine(1), Schedule.spaced(blockEvery)))
  const callsBefore = yield* sent
  const start = performance.now()
  let nextNonce = nonceBefore
  const jobs = yield* Effect.forEach(
    indexes,
    (index, i) =>
      Effect.gen(function* () {
        const draft = yield* g.draftSweep({
          sweepId: `bench-${index}`,
          rail,
          source: sources[i]!,
          fundingIndex: index,
          destination: null,
          amount: Money.fromBaseUnits(unitsOf(i), 6)
        })
        // the store's allocation: the lowest nonce not yet handed out
        const prepared = yield* draft.sign(draft.nonceAccount === null ? null : nextNonce++)
        yield* Effect.result(g.broadcastPayout(rail, prepared))
        return prepared
      }),
    { concurrency: draftsAtOnce }
  )
  const signedMs = performance.now() - start
  const settled = new Map<number, Extract<ChainGateway.PayoutLookup, { _tag: "Confirmed" }>>()
  while (settled.size < jobs.length) {
    yield* Effect.forEach(
      jobs.flatMap((prepared, i) => (settled.has(i) ? [] : [[prepared, i] as const])),
      ([prepared, i]) =>
        Effect.gen(function* () {
          const lookup = yield* g.lookupPayout(rail, prepared)
          if (lookup._tag === "Confirmed") return settled.set(i, lookup)
          if (lookup._tag === "Failed") return yield* Effect.die(`sweep ${i} failed: ${lookup.reason}`)
          yield* Effect.result(g.broadcastPayout(rail, prepared))
        }),
      { concurrency: 16 }
    )
    if (settled.size < jobs.length) yield* Effect.sleep(passEvery)
  }
  const ms = performance.now() - start
  const callsAfter = yield* sent
  yield* Fiber.interrupt(blocks)

  // what the chain says: every address emptied, the hot wallet up by the total, the ether as reported
  const confirmations = jobs.map((_, i) => settled.get(i)!)
  const sumOf = (pick: (n: ChainGateway.PayoutLookup & { _tag: "Confirmed" }) => Money.Decimal) =>
    Money.toBaseUnits(confirmations.map(pick).reduce(Money.sum, Money.zero), 18)
  const check = {
    left: (yield* Effect.forEach(sources, tokenOf, { concurrency: 16 })).reduce((x, y) => x + y, 0n),
    tokenGain: (yield* tokenOf(hot)) - tokenBefore,
    etherChange: (yield* etherOf(hot)) - etherBefore,
    leftover: (yield* Effect.forEach(sources, etherOf, { concurrency: 16 })).reduce((x, y) => x + y, 0n)
  }
  const problems = [
    check.left !== 0n && `funding addresses still hold ${check.left} units`,
    check.tokenGain !== total && `the hot wallet gained ${check.tokenGain}, swept ${total}`,
    check.etherChange !== sumOf((c) => c.native!.hotWallet) &&
      "the hot wallet's ether change differs from the lookups'",
    check.leftover !== sumOf((c) => c.native!.fundingAddress) &&
      "the funding addresses' ether differs from the lookups'"
  ].filter((p) => p !== false)
  if (problems.length > 0) return yield* Effect.die(problems.join("; "))

  // the gas each leg used, from the receipts
  const gasOf = (hash: string) =>
    Effect.promise(() => client.getTransactionReceipt({ hash: hash as Hash }).then((r) => Number(r.gasUsed)))
  const legs = jobs.map(
    (p) => JSON.parse(p.persisted) as { readonly topUp: LegWire | null; readonly transfer: LegWire }
  )
  const topUpGas = yield* Effect.forEach(
    legs.flatMap((l) => (l.topUp === null ? [] : [l.topUp])),
    (leg) => gasOf(latestHash(leg)),
    { concurrency: 16 }
  )
  const transferGas = yield* Effect.forEach(jobs, (p) => gasOf(p.transactionHash), { concurrency: 16 })
  const fees = confirmations.map((c) => Number(Money.toBaseUnits(c.native!.fees, 9)))
  const rows: Array<Row> = [
    {
      measure: "sweeps: draft + sign + top-up + transfer + confirmed at depth 3",
      n: sweeps,
      result: `${fmt((sweeps / ms) * 1000, 1)} sweeps/s (${fmt(ms / 1000, 2)} s; all signed and first broadcast at ${fmt(signedMs / 1000, 2)} s)`
    },
    {
      measure: "gas per sweep: top-up / transfer (median, min–max)",
      n: sweeps,
      result: `${fmt(median(topUpGas))} (${topUpGas.length} top-ups) / ${fmt(median(transferGas))} (${fmt(Math.min(...transferGas))}–${fmt(Math.max(...transferGas))})`
    },
    {
      measure: "ether per sweep: both fees at the bench's ~1 gwei (median)",
      n: sweeps,
      result: `${fmt(median(fees))} gwei`
    },
    {
      measure: "JSON-RPC calls per sweep, drafting to confirmed (HTTP requests)",
      n: sweeps,
      result: `${fmt((callsAfter.calls - callsBefore.calls) / sweeps, 1)} (${fmt((callsAfter.requests - callsBefore.requests) / sweeps, 1)})`
    }
  ]
  return rows
})

const readBalances = (label: string, addresses: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const g = yield* ChainGateway.ChainGateway
    yield* g.balances(rail, addresses.slice(0, 10)) // warm-up
    const samples: Array<{ ms: number; calls: number; requests: number; answer: ReadonlyArray<Money.Decimal> }> = []
    for (let run = 0; run < runs; run++) {
      const before = yield* sent
      const start = performance.now()
      const answer = yield* g.balances(rail, addresses)
      const ms = performance.now() - start
      const after = yield* sent
      samples.push({ ms, calls: after.calls - before.calls, requests: after.requests - before.requests, answer })
    }
    const row: Row = {
      measure: `balances of ${fmt(addresses.length)} addresses, ${label}`,
      n: runs,
      result: `${fmt(median(samples.map((s) => s.ms)) / 1000, 2)} s (median), ${fmt(samples[0]!.calls)} JSON-RPC calls in ${fmt(samples[0]!.requests)} HTTP requests`
    }
    return { row, answer: samples[0]!.answer }
  })

const readAll = Effect.gen(function* () {
  const f = yield* EvmFixture
  const anvil = yield* Anvil
  const fresh = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase()
  const holders = Array.from({ length: holdersRead }, fresh)
  const unitsOf = (i: number) => 5_000_000n + BigInt(i) * 7n
  yield* mintMany(f.usdc, holders, unitsOf)
  yield* anvil.mine(depth)
  // holders spread among addresses holding nothing, as a reconciliation of many contracts finds them
  const addresses = Array.from({ length: addressesRead }, (_, i) =>
    i % (addressesRead / holdersRead) === 0 ? holders[i / (addressesRead / holdersRead)]! : fresh()
  )
  const multicall = yield* readBalances("through Multicall3", addresses).pipe(
    Effect.provide(EvmGateway.layer(f.options()))
  )
  const batched = yield* readBalances("through JSON-RPC batches (no Multicall3)", addresses).pipe(
    Effect.provide(EvmGateway.layer(f.options({ multicallAddress: null })))
  )
  const expected = addresses.map((_, i) =>
    i % (addressesRead / holdersRead) === 0 ? unitsOf(i / (addressesRead / holdersRead)) : 0n
  )
  for (const { answer } of [multicall, batched]) {
    const units = answer.map((b) => Money.toBaseUnits(b, 6))
    if (units.some((u, i) => u !== expected[i])) return yield* Effect.die("a balance differs from what was minted")
  }
  return [multicall.row, batched.row]
})

const program = Effect.gen(function* () {
  const f = yield* EvmFixture
  const swept = yield* sweepAll.pipe(Effect.provide(EvmGateway.layer(f.options())))
  return [...swept, ...(yield* readAll)]
}).pipe(Effect.provide(fixture))

export const main = async (): Promise<ReadonlyArray<Row>> => {
  const rows = await Effect.runPromise(program)
  console.log(`EVM sweeps and balances on anvil (depth ${depth})`)
  print(rows)
  return rows
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main()
}
