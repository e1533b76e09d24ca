/**
 * Sweeps of funding addresses and balances of many addresses, on anvil: the gas top-up and the
 * transfer signed as one job, broadcast in turn, confirmed with the ether each side moved (checked
 * against the balances the node reports), a job signed twice mined once, watch-only keys; the
 * balances (of a token, of ether) read at the funding depth through Multicall3 and through
 * JSON-RPC batches, with their chain calls counted.
 */
import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import { Anvil, testMnemonic } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { HDKey } from "@scure/bip32"
import { mnemonicToSeedSync } from "@scure/bip39"
import { Effect, Layer, Metric } from "effect"
import { type Address, type Hash, type Hex, keccak256, parseEther, parseGwei, parseTransaction } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as EvmGateway from "../../src/EvmGateway.ts"
import * as Rpc from "../../src/internal/evm/rpc.ts"
import {
  depth,
  EvmFixture,
  fixture,
  funderIndex,
  gateway,
  hotWalletIndex,
  manualMining
} from "../support/evmTestChain.ts"

const usdc: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }
const usdt: ChainGateway.Rail = { ...usdc, token: "USDT" }
const gw = ChainGateway.ChainGateway
const amount = Money.unsafe

let nextIndex = 700_000 + Math.floor(Math.random() * 1_000) * 1_000
const freshIndex = () => ++nextIndex
let nextSweep = 0
const sweepOrder = (
  rail: ChainGateway.Rail,
  source: string,
  fundingIndex: number,
  value: string,
  destination: string | null = null
): ChainGateway.SweepOrder => ({
  sweepId: `sweep-${nextSweep++}`,
  rail,
  source,
  fundingIndex,
  destination,
  amount: amount(value)
})
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address

interface StoredLeg {
  readonly from: string
  readonly nonce: number
  readonly versions: ReadonlyArray<{ readonly serialized: Hex; readonly kind: string }>
}
const stored = (prepared: ChainGateway.PreparedPayout) =>
  JSON.parse(prepared.persisted) as { v: number; kind: string; topUp: StoredLeg | null; transfer: StoredLeg }
const signedTx = (leg: StoredLeg, version = leg.versions.length - 1) => {
  const serialized = leg.versions[version]!.serialized
  return { ...parseTransaction(serialized), hash: keccak256(serialized) }
}

const token = (which: "usdc" | "usdt") => Effect.map(EvmFixture, (f) => f[which])
const tokenBalance = (which: "usdc" | "usdt", owner: string) =>
  Effect.gen(function* () {
    const anvil = yield* Anvil
    return yield* Erc20.balanceOf(anvil.client, yield* token(which), owner)
  })
const nativeBalance = (owner: string) =>
  Effect.flatMap(Anvil, (anvil) => Effect.promise(() => anvil.client.getBalance({ address: owner as Address })))
const fund = (which: "usdc" | "usdt", owner: string, units: bigint) =>
  Effect.gen(function* () {
    const anvil = yield* Anvil
    yield* Erc20.transfer(anvil.client, anvil.account(funderIndex), yield* token(which), owner as Address, units)
  })
const sendEther = (to: string, wei: bigint, from = funderIndex) =>
  Effect.flatMap(Anvil, (anvil) =>
    Effect.promise(async () => {
      const hash = await anvil.client.sendTransaction({
        account: anvil.account(from),
        chain: null,
        to: to as Address,
        value: wei
      })
      await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 5 })
    })
  )
const receiptOf = (hash: string) =>
  Effect.flatMap(Anvil, (anvil) =>
    Effect.promise(() => anvil.client.getTransactionReceipt({ hash: hash as Hash }).catch(() => null))
  )
/** What a mined transaction paid, as the node reports it. */
const feeOf = (hash: string) => Effect.map(receiptOf(hash), (receipt) => receipt!.gasUsed * receipt!.effectiveGasPrice)
const hotAddress = Effect.map(Anvil, (anvil) => anvil.account(hotWalletIndex).address.toLowerCase() as Address)
const hotNonce = Effect.flatMap(Anvil, (anvil) =>
  Effect.promise(() => anvil.client.getTransactionCount({ address: anvil.account(hotWalletIndex).address }))
)
const mine = (blocks: number) => Effect.flatMap(Anvil, (anvil) => anvil.mine(blocks))
const wei = (decimal: Money.Decimal) => Money.toBaseUnits(decimal, 18)

/** Core's flow for a prepared job: look up, broadcast again while Pending/Unknown (a refusal is a wait), until final. */
const settle = (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout) =>
  Effect.gen(function* () {
    const g = yield* gw
    for (let pass = 0; pass < 12; pass++) {
      const lookup = yield* g.lookupPayout(rail, prepared)
      if (lookup._tag === "Confirmed" || lookup._tag === "Failed") return lookup
      yield* Effect.result(g.broadcastPayout(rail, prepared))
      yield* mine(depth)
    }
    return yield* Effect.die("the sweep did not settle")
  })
const confirmed = (lookup: ChainGateway.PayoutLookup) => {
  assert.strictEqual(lookup._tag, "Confirmed", JSON.stringify(lookup))
  return lookup as Extract<ChainGateway.PayoutLookup, { _tag: "Confirmed" }>
}
/** A funding address of the test mnemonic's sandbox account holding `units` of the token. */
const funded = (rail: ChainGateway.Rail, units: bigint) =>
  Effect.gen(function* () {
    const g = yield* gw
    const index = freshIndex()
    const address = yield* g.fundingAddress(rail, index)
    yield* fund(rail.token === "USDC" ? "usdc" : "usdt", address, units)
    return { index, address }
  })

const counted = (method: string) =>
  Effect.map(
    Metric.value(Metric.withAttributes(Rpc.calls, { chain: "ethereum", environment: "sandbox", method })),
    (state) => state.count
  )
const requests = Effect.map(
  Metric.value(Metric.withAttributes(Rpc.requests, { chain: "ethereum", environment: "sandbox" })),
  (state) => state.count
)

layer(gateway().pipe(Layer.provideMerge(fixture)), { excludeTestServices: true, timeout: "60 seconds" })(
  "EvmGateway sweeps (anvil)",
  (it) => {
    it.effect(
      "sweeps a funding address into the hot wallet: a top-up of exactly the transfer's gas, then the whole amount; the ether each side moved, exactly",
      () =>
        Effect.gen(function* () {
          const g = yield* gw
          const hot = yield* hotAddress
          assert.strictEqual(yield* g.fundingKeys({ chain: "ethereum", environment: "sandbox" }), "held")
          const { index, address } = yield* funded(usdc, 125_500_000n)
          const hotTokens = yield* tokenBalance("usdc", hot)
          const [hotEther, fundingEther] = [yield* nativeBalance(hot), yield* nativeBalance(address)]
          assert.strictEqual(fundingEther, 0n)

          const draft = yield* g.draftSweep(sweepOrder(usdc, address, index, "125.5"))
          assert.strictEqual(draft.nonceAccount?.signer, hot)
          assert.strictEqual(draft.nonceAccount?.floor, yield* hotNonce)
          const prepared = yield* draft.sign(draft.nonceAccount!.floor)
          // signing again at the same nonce is the same job
          assert.strictEqual((yield* draft.sign(draft.nonceAccount!.floor)).transactionHash, prepared.transactionHash)

          const row = stored(prepared)
          assert.deepStrictEqual([row.v, row.kind], [3, "sweep"])
          assert.deepStrictEqual([row.topUp?.from, row.topUp?.nonce], [hot, draft.nonceAccount!.floor])
          assert.deepStrictEqual([row.transfer.from, row.transfer.nonce], [address, 0])
          const topUp = signedTx(row.topUp!)
          const transfer = signedTx(row.transfer)
          assert.strictEqual(prepared.transactionHash, transfer.hash)
          // exactly what the transfer may cost at the fees it is signed with: the address held nothing
          assert.strictEqual(topUp.value, transfer.gas! * transfer.maxFeePerGas!)
          assert.deepStrictEqual([topUp.to, topUp.gas, topUp.data], [address, 21_000n, undefined])
          assert.deepStrictEqual(
            [topUp.maxFeePerGas, topUp.maxPriorityFeePerGas],
            [transfer.maxFeePerGas, transfer.maxPriorityFeePerGas]
          )
          assert.deepStrictEqual(yield* g.lookupPayout(usdc, prepared), { _tag: "Unknown" })

          const inspection = yield* g.inspectPayout(usdc, prepared)
          assert.deepStrictEqual(
            inspection.versions.map((v) => [v.transactionHash, v.nonce, v.kind]),
            [
              [topUp.hash, draft.nonceAccount!.floor, "transfer"],
              [transfer.hash, 0, "transfer"]
            ]
          )

          const done = confirmed(yield* settle(usdc, prepared))
          assert.strictEqual(done.transactionHash, transfer.hash)
          assert.strictEqual(done.cancelled, false)
          assert.strictEqual(done.blockNumber, Number((yield* receiptOf(transfer.hash))!.blockNumber))
          assert.strictEqual(yield* tokenBalance("usdc", address), 0n)
          assert.strictEqual((yield* tokenBalance("usdc", hot)) - hotTokens, 125_500_000n)

          const [topUpFee, transferFee] = [yield* feeOf(topUp.hash), yield* feeOf(transfer.hash)]
          const native = done.native!
          assert.strictEqual(yield* nativeBalance(address), topUp.value! - transferFee)
          assert.strictEqual(wei(native.fundingAddress), (yield* nativeBalance(address)) - fundingEther)
          assert.strictEqual(wei(native.hotWallet), (yield* nativeBalance(hot)) - hotEther)
          assert.strictEqual(wei(native.hotWallet), -(topUp.value! + topUpFee))
          assert.strictEqual(wei(native.fees), topUpFee + transferFee)
          assert.isTrue(Money.isZero(native.rent))
          assert.isTrue(
            Money.isZero(
              Money.subtract(Money.sum(Money.sum(native.hotWallet, native.fundingAddress), native.fees), native.rent)
            )
          )

          // broadcasting again, and again looking up: nothing moves
          yield* g.broadcastPayout(usdc, prepared)
          yield* mine(1)
          assert.strictEqual(confirmed(yield* g.lookupPayout(usdc, prepared)).transactionHash, transfer.hash)
          assert.strictEqual((yield* tokenBalance("usdc", hot)) - hotTokens, 125_500_000n)
          assert.strictEqual(yield* nativeBalance(address), topUp.value! - transferFee)
          // the job is mined: nothing to replace, and a replacement is never of the transfer
          const after = yield* g.replacePayout(usdc, prepared, "bump")
          assert.strictEqual(after._tag, "Waiting")
        })
    )

    it.effect("sweeps a USDT-style token (no permit, no return value) to a treasury address", () =>
      Effect.gen(function* () {
        const g = yield* gw
        const treasury = freshAddress()
        const { index, address } = yield* funded(usdt, 7_000_000_001n)
        const draft = yield* g.draftSweep(sweepOrder(usdt, address, index, "7000.000001", treasury))
        const prepared = yield* draft.sign(draft.nonceAccount!.floor)
        const done = confirmed(yield* settle(usdt, prepared))
        assert.strictEqual(yield* tokenBalance("usdt", treasury), 7_000_000_001n)
        assert.strictEqual(yield* tokenBalance("usdt", address), 0n)
        assert.strictEqual(wei(done.native!.fundingAddress), yield* nativeBalance(address))
      })
    )

    it.effect(
      "an address holding ether enough for its transfer gets no top-up; one holding less gets only the difference",
      () =>
        Effect.gen(function* () {
          const g = yield* gw
          const hot = yield* hotAddress
          const { index, address } = yield* funded(usdc, 10_000_000n)
          yield* sendEther(address, parseEther("0.01"))
          const hotEther = yield* nativeBalance(hot)
          const draft = yield* g.draftSweep(sweepOrder(usdc, address, index, "10"))
          // no hot wallet transaction: the store allocates no nonce
          assert.isNull(draft.nonceAccount)
          const prepared = yield* draft.sign(null)
          assert.isNull(stored(prepared).topUp)
          const done = confirmed(yield* settle(usdc, prepared))
          const transferFee = yield* feeOf(done.transactionHash)
          assert.strictEqual(wei(done.native!.hotWallet), 0n)
          assert.strictEqual(wei(done.native!.fundingAddress), -transferFee)
          assert.strictEqual(wei(done.native!.fees), transferFee)
          assert.strictEqual(yield* nativeBalance(hot), hotEther)
          assert.strictEqual(yield* nativeBalance(address), parseEther("0.01") - transferFee)

          // a first sweep leaves what its transfer did not burn; the second tops up only the difference
          const second = yield* funded(usdc, 3_000_000n)
          const first = yield* g.draftSweep(sweepOrder(usdc, second.address, second.index, "3"))
          confirmed(yield* settle(usdc, yield* first.sign(first.nonceAccount!.floor)))
          const leftover = yield* nativeBalance(second.address)
          assert.isTrue(leftover > 0n)
          yield* fund("usdc", second.address, 4_000_000n)
          const again = yield* g.draftSweep(sweepOrder(usdc, second.address, second.index, "4"))
          const job = stored(yield* again.sign(again.nonceAccount!.floor))
          const transfer = signedTx(job.transfer)
          assert.strictEqual(job.transfer.nonce, 1)
          assert.strictEqual(signedTx(job.topUp!).value, transfer.gas! * transfer.maxFeePerGas! - leftover)
        })
    )

    it.effect(
      "a crash after signing, before the row is kept: signed again at the same nonce, the two transfers share the address's nonce and one is mined",
      () =>
        Effect.gen(function* () {
          const g = yield* gw
          const anvil = yield* Anvil
          const destination = freshAddress()
          const { index, address } = yield* funded(usdc, 50_000_000n)
          const order = sweepOrder(usdc, address, index, "50", destination)
          const floor = yield* hotNonce
          const lost = yield* (yield* g.draftSweep(order)).sign(floor)
          // the fees moved before the worker drafted again: other bytes, the nonces the store hands out again
          yield* Effect.promise(() => anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei("2") }))
          yield* mine(1)
          const kept = yield* (yield* g.draftSweep(order)).sign(floor)
          assert.notStrictEqual(kept.transactionHash, lost.transactionHash)
          assert.deepStrictEqual(
            [stored(kept).transfer.nonce, stored(kept).topUp?.nonce],
            [stored(lost).transfer.nonce, stored(lost).topUp?.nonce]
          )

          const done = confirmed(yield* settle(usdc, kept))
          assert.strictEqual(done.transactionHash, kept.transactionHash)
          // the lost one, broadcast anyway (a process that did not die): refused, and never mined
          const refused = yield* Effect.flip(g.broadcastPayout(usdc, lost))
          assert.strictEqual(refused.reason, "nonce_consumed")
          yield* mine(depth)
          assert.deepStrictEqual(yield* g.lookupPayout(usdc, lost), { _tag: "Failed", reason: "nonce_consumed" })
          assert.strictEqual(yield* tokenBalance("usdc", destination), 50_000_000n)
          assert.strictEqual(yield* tokenBalance("usdc", address), 0n)
          assert.strictEqual(yield* hotNonce, floor + 1)
        })
    )

    it.effect("two jobs of one sweep at two hot wallet nonces: both top-ups land, the one transfer is mined once", () =>
      Effect.gen(function* () {
        const g = yield* gw
        const destination = freshAddress()
        const { index, address } = yield* funded(usdc, 60_000_000n)
        const draft = yield* g.draftSweep(sweepOrder(usdc, address, index, "60", destination))
        const floor = draft.nonceAccount!.floor
        const [a, b] = [yield* draft.sign(floor), yield* draft.sign(floor + 1)]
        // the transfers are the same transaction: same key, nonce, call and fees
        assert.strictEqual(a.transactionHash, b.transactionHash)
        assert.notStrictEqual(signedTx(stored(a).topUp!).hash, signedTx(stored(b).topUp!).hash)
        yield* g.broadcastPayout(usdc, b)
        confirmed(yield* settle(usdc, a))
        confirmed(yield* settle(usdc, b))
        assert.strictEqual(yield* tokenBalance("usdc", destination), 60_000_000n)
        assert.strictEqual(yield* hotNonce, floor + 2)
      })
    )

    it.effect("refuses what cannot be swept, before anything is signed", () =>
      Effect.gen(function* () {
        const g = yield* gw
        const { index, address } = yield* funded(usdc, 5_000_000n)
        const reason = (order: ChainGateway.SweepOrder) => Effect.map(Effect.flip(g.draftSweep(order)), (e) => e.reason)
        assert.strictEqual(yield* reason(sweepOrder(usdc, address, index, "5.000001")), "insufficient_funds")
        assert.strictEqual(yield* reason(sweepOrder(usdc, address, index + 1, "5")), "invalid_index")
        assert.strictEqual(yield* reason(sweepOrder(usdc, address, index, "0")), "invalid_amount")
        assert.strictEqual(yield* reason(sweepOrder(usdc, address, index, "5", "not-an-address")), "invalid_address")
        assert.strictEqual(
          yield* reason({ ...sweepOrder(usdc, address, index, "5"), rail: { ...usdc, chain: "polygon" } }),
          "unsupported_rail"
        )
      })
    )

    it.effect("watch-only funding keys (an xpub): fundingKeys says so, and a sweep is refused with a clear error", () =>
      Effect.gen(function* () {
        const f = yield* EvmFixture
        const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(testMnemonic)).derive("m/44'/60'/1'").publicExtendedKey
        const held = yield* gw
        const index = freshIndex()
        const address = yield* held.fundingAddress(usdc, index)
        yield* Effect.gen(function* () {
          const watching = yield* gw
          assert.strictEqual(yield* watching.fundingKeys({ chain: "ethereum", environment: "sandbox" }), "watch_only")
          assert.strictEqual(yield* watching.fundingAddress(usdc, index), address)
          const refused = yield* Effect.flip(watching.draftSweep(sweepOrder(usdc, address, index, "1")))
          assert.strictEqual(refused.reason, "invalid_config")
          assert.match(refused.message, /watch-only/)
        }).pipe(Effect.provide(EvmGateway.layer(f.options({ funding: { _tag: "Xpub", xpub } }))))
      })
    )

    it.effect(
      "balances of 300 funding addresses at the funding depth equal the per-address reads: one eth_call through Multicall3, chunks of 1,000",
      () =>
        Effect.gen(function* () {
          const g = yield* gw
          const addresses = yield* Effect.forEach(Array.from({ length: 300 }, freshIndex), (i) =>
            g.fundingAddress(usdc, i)
          )
          for (const [i, address] of addresses.entries()) {
            if (i % 30 === 0) yield* fund("usdc", address, BigInt(i + 1) * 1_000_001n)
          }
          yield* mine(depth - 1)
          const [calls, posts] = [yield* counted("eth_call"), yield* requests]
          const balances = yield* g.balances(usdc, addresses)
          assert.deepStrictEqual([(yield* counted("eth_call")) - calls, (yield* requests) - posts], [1, 2])
          const one = yield* Effect.forEach(addresses, (a) => tokenBalance("usdc", a))
          assert.deepStrictEqual(
            balances.map((b) => Money.toBaseUnits(b, 6)),
            one
          )
          assert.strictEqual(Money.format(balances[30]!), "31.000031")

          // a transfer not yet at depth is not counted; at depth it is
          yield* fund("usdc", addresses[1]!, 2_500_000n)
          yield* mine(depth - 2)
          assert.strictEqual(Money.format((yield* g.balances(usdc, [addresses[1]!]))[0]!), "0.000000")
          yield* mine(1)
          assert.strictEqual(Money.format((yield* g.balances(usdc, [addresses[1]!]))[0]!), "2.500000")

          // 2,100 addresses: three chunks, three eth_calls
          const many = [...addresses, ...Array.from({ length: 1_800 }, freshAddress)]
          const before = yield* counted("eth_call")
          const all = yield* g.balances(usdc, many)
          assert.strictEqual((yield* counted("eth_call")) - before, 3)
          assert.strictEqual(all.length, 2_100)
          assert.isTrue(all.slice(300).every(Money.isZero))
          assert.strictEqual(Money.format(all[30]!), "31.000031")
          assert.deepStrictEqual(yield* g.balances(usdc, []), [])
          assert.strictEqual((yield* Effect.flip(g.balances(usdc, ["nope"]))).reason, "invalid_address")
        })
    )

    it.effect("balances without Multicall3: the chunk's eth_calls in one JSON-RPC batch, the same answers", () =>
      Effect.gen(function* () {
        const f = yield* EvmFixture
        const g = yield* gw
        const addresses = yield* Effect.forEach(Array.from({ length: 300 }, freshIndex), (i) =>
          g.fundingAddress(usdc, i)
        )
        yield* fund("usdc", addresses[7]!, 7_070_000n)
        yield* mine(depth - 1)
        const expected = yield* g.balances(usdc, addresses)
        yield* Effect.gen(function* () {
          const batched = yield* gw
          const [calls, posts] = [yield* counted("eth_call"), yield* requests]
          const balances = yield* batched.balances(usdc, addresses)
          // 300 eth_calls, but one HTTP request for them (and one for the head)
          assert.deepStrictEqual([(yield* counted("eth_call")) - calls, (yield* requests) - posts], [300, 2])
          assert.deepStrictEqual(
            balances.map((b) => Money.format(b)),
            expected.map((b) => Money.format(b))
          )
          assert.strictEqual(Money.format(balances[7]!), "7.070000")
        }).pipe(Effect.provide(EvmGateway.layer(f.options({ multicallAddress: null }))))
      })
    )

    it.effect(
      "native balances at the funding depth, to the wei: Multicall3's getEthBalance or an eth_getBalance batch; the hot wallet's spend not yet deep is not counted",
      () =>
        Effect.gen(function* () {
          const f = yield* EvmFixture
          const g = yield* gw
          const rail = { chain: "ethereum", environment: "sandbox" } as const
          const [a, b] = [freshAddress(), freshAddress()]
          const hot = yield* hotAddress
          yield* sendEther(a, 1_234_567_890_123_456_789n)
          yield* mine(depth - 1)
          const [calls, posts] = [yield* counted("eth_call"), yield* requests]
          const native = yield* g.nativeBalances(rail, [a, b, hot])
          // the head, then one aggregate3 of three getEthBalance
          assert.deepStrictEqual([(yield* counted("eth_call")) - calls, (yield* requests) - posts], [1, 2])
          assert.deepStrictEqual(native.map(wei), [1_234_567_890_123_456_789n, 0n, yield* nativeBalance(hot)])
          assert.strictEqual(Money.format(native[0]!), "1.234567890123456789")

          // a transfer not yet at depth is not counted; at depth it is
          yield* sendEther(a, 1n)
          yield* mine(depth - 2)
          assert.strictEqual(wei((yield* g.nativeBalances(rail, [a]))[0]!), 1_234_567_890_123_456_789n)
          yield* mine(1)
          assert.strictEqual(wei((yield* g.nativeBalances(rail, [a]))[0]!), 1_234_567_890_123_456_790n)

          // the hot wallet spends ether in a block not yet deep: its latest reading (`hotWallet`) has
          // it, the balance at depth (what the books are set against) does not until it is deep
          const deep = yield* nativeBalance(hot)
          yield* sendEther(b, parseEther("0.5"), hotWalletIndex)
          const latest = yield* nativeBalance(hot)
          assert.isTrue(latest <= deep - parseEther("0.5"))
          const reading = (yield* g.hotWallet(rail))!
          assert.strictEqual(wei(reading.balances.find((x) => x.asset === "NATIVE")!.amount), latest)
          assert.deepStrictEqual((yield* g.nativeBalances(rail, [hot, b])).map(wei), [deep, 0n])
          yield* mine(depth - 1)
          assert.deepStrictEqual((yield* g.nativeBalances(rail, [hot, b])).map(wei), [latest, parseEther("0.5")])

          // without Multicall3: the same answers, three eth_getBalance in one request (and one for the head)
          yield* Effect.gen(function* () {
            const batched = yield* gw
            const [before, sent] = [yield* counted("eth_getBalance"), yield* requests]
            const again = yield* batched.nativeBalances(rail, [a, b, hot])
            assert.deepStrictEqual([(yield* counted("eth_getBalance")) - before, (yield* requests) - sent], [3, 2])
            assert.deepStrictEqual(again.map(wei), [1_234_567_890_123_456_790n, parseEther("0.5"), latest])
          }).pipe(Effect.provide(EvmGateway.layer(f.options({ multicallAddress: null }))))

          assert.deepStrictEqual(yield* g.nativeBalances(rail, []), [])
          assert.strictEqual((yield* Effect.flip(g.nativeBalances(rail, ["nope"]))).reason, "invalid_address")
          assert.strictEqual(
            (yield* Effect.flip(g.nativeBalances({ ...rail, environment: "production" }, [a]))).reason,
            "unsupported_rail"
          )
        })
    )
  }
)

layer(gateway().pipe(Layer.provideMerge(fixture)), { excludeTestServices: true, timeout: "60 seconds" })(
  "EvmGateway sweep replacements (anvil, mined by hand)",
  (it) => {
    it.effect(
      "the top-up is replaced as a payout is (same nonce and value, higher fees); the transfer never is; a sweep is not cancelled",
      () =>
        Effect.gen(function* () {
          const g = yield* gw
          const hot = yield* hotAddress
          const { index, address } = yield* funded(usdc, 20_000_000n)
          yield* manualMining
          const draft = yield* g.draftSweep(sweepOrder(usdc, address, index, "20"))
          const first = yield* draft.sign(draft.nonceAccount!.floor)
          yield* g.broadcastPayout(usdc, first)
          // the top-up is in the pool, unmined: the transfer is not sent yet
          assert.deepStrictEqual(yield* g.lookupPayout(usdc, first), { _tag: "Pending" })
          assert.isNull(yield* receiptOf(first.transactionHash))

          const cancel = yield* g.replacePayout(usdc, first, "cancel")
          assert.strictEqual(cancel._tag === "Waiting" && cancel.reason, "mining")
          assert.match(cancel._tag === "Waiting" ? cancel.message : "", /not cancelled/)
          assert.strictEqual((yield* g.replacePayout(usdc, first, "due"))._tag, "Waiting")

          const bumped = yield* g.replacePayout(usdc, first, "bump")
          assert.strictEqual(bumped._tag, "Replaced")
          const second = (bumped as Extract<ChainGateway.Replacement, { _tag: "Replaced" }>).prepared
          assert.strictEqual(second.transactionHash, first.transactionHash)
          const [old, next] = [signedTx(stored(second).topUp!, 0), signedTx(stored(second).topUp!, 1)]
          assert.deepStrictEqual(stored(second).transfer, stored(first).transfer)
          assert.deepStrictEqual([next.nonce, next.to, next.value], [old.nonce, old.to, old.value])
          assert.isTrue(next.maxFeePerGas! * 8n >= old.maxFeePerGas! * 9n)
          assert.deepStrictEqual(
            (yield* g.inspectPayout(usdc, second)).versions.map((v) => v.transactionHash),
            [old.hash, next.hash, first.transactionHash]
          )

          const hotEther = yield* nativeBalance(hot)
          yield* g.broadcastPayout(usdc, second)
          yield* mine(1)
          assert.isNotNull(yield* receiptOf(next.hash))
          // the top-up is mined: the transfer is never replaced, it waits
          const transferWaits = yield* g.replacePayout(usdc, second, "bump")
          assert.strictEqual(transferWaits._tag, "Waiting")
          assert.match(transferWaits._tag === "Waiting" ? transferWaits.message : "", /never replaced/)

          yield* g.broadcastPayout(usdc, second)
          yield* mine(depth)
          const done = confirmed(yield* g.lookupPayout(usdc, second))
          const topUpFee = yield* feeOf(next.hash)
          assert.strictEqual(wei(done.native!.hotWallet), -(next.value! + topUpFee))
          assert.strictEqual(wei(done.native!.hotWallet), (yield* nativeBalance(hot)) - hotEther)
          assert.strictEqual(yield* tokenBalance("usdc", address), 0n)
        })
    )
  }
)
