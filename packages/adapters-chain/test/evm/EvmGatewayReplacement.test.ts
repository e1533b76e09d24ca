/**
 * Replacements of EVM payouts on anvil, mined by hand: automine off, and the next block's base fee
 * set before each block (`anvil_setNextBlockBaseFeePerGas`), so a version signed at 3 gwei (2 × 1
 * gwei base + 1 gwei tip) is priced out by a 10 gwei block.
 *
 * What anvil 1.7 does, and these tests rely on: a pooled transaction whose max fee is below a new
 * block's base fee is dropped from the pool (the node no longer knows it: `Unknown`), and the same
 * bytes are refused ("max fee per gas less than block base fee") until the fee falls; a
 * same-nonce transaction with higher fees replaces a pooled one at once.
 */
import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import { Anvil } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { Effect, Layer } from "effect"
import { type Address, type Hash, keccak256, parseGwei, parseTransaction } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as EvmGateway from "../../src/EvmGateway.ts"
import { abi as erc20Abi, transferEvent } from "../../src/internal/evm/erc20.ts"
import * as Persisted from "../../src/internal/evm/persisted.ts"
import { depth, EvmFixture, fixture, gateway, hotWalletIndex, manualMining } from "../support/evmTestChain.ts"

const usdc: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }
const gw = ChainGateway.ChainGateway
/** The gateway under test replaces a version one second after it was signed. */
const replaceAfterSeconds = 1
const afterReplaceTime = Effect.sleep(`${replaceAfterSeconds * 1000 + 100} millis`)

let nextPayout = 0
const order = (destination: string, value: string): ChainGateway.PayoutOrder => ({
  payoutId: `replacement-${nextPayout++}`,
  rail: usdc,
  destination,
  amount: Money.unsafe(value),
  committed: Money.zero
})
const freshDestination = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address

interface StoredVersion {
  readonly serialized: `0x${string}`
  readonly kind: "transfer" | "cancel"
  readonly maxFeePerGas: string
  readonly maxPriorityFeePerGas: string
  readonly signedAt: string
}
const stored = (prepared: ChainGateway.PreparedPayout) =>
  JSON.parse(prepared.persisted) as { v: number; nonce: number; versions: Array<StoredVersion> }
const versionsOf = (prepared: ChainGateway.PreparedPayout) => stored(prepared).versions
/** One version alone, as a prepared payout (what a row holding only it would be). */
const only = (prepared: ChainGateway.PreparedPayout, index: number): ChainGateway.PreparedPayout => {
  const row = stored(prepared)
  const version = row.versions[index]!
  return {
    transactionHash: keccak256(version.serialized),
    persisted: JSON.stringify({ ...row, versions: [version] })
  }
}

/** Mines `blocks` blocks, each with this base fee. */
const mineAt = (baseFeeGwei: string, blocks = 1) =>
  Effect.flatMap(Anvil, (anvil) =>
    Effect.promise(async () => {
      for (let i = 0; i < blocks; i++) {
        await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei(baseFeeGwei) })
        await anvil.client.mine({ blocks: 1 })
      }
    })
  )

const receiptOf = (hash: string) =>
  Effect.flatMap(Anvil, (anvil) =>
    Effect.promise(() => anvil.client.getTransactionReceipt({ hash: hash as Hash }).catch(() => null))
  )

/** The destination's USDC balance and the Transfer logs into it: paid once means one log and the amount. */
const received = (destination: Address) =>
  Effect.gen(function* () {
    const anvil = yield* Anvil
    const f = yield* EvmFixture
    const logs = yield* Effect.promise(() =>
      anvil.client.getLogs({ address: f.usdc, event: transferEvent, args: { to: destination }, fromBlock: 0n })
    )
    const balance = yield* Erc20.balanceOf(anvil.client, f.usdc, destination)
    return { balance: Money.format(Money.fromBaseUnits(balance, 6)), transfers: logs.length }
  })

const hotAddress = Effect.map(Anvil, (anvil) => anvil.account(hotWalletIndex).address.toLowerCase() as Address)
const hotNonce = Effect.flatMap(Anvil, (anvil) =>
  Effect.promise(() => anvil.client.getTransactionCount({ address: anvil.account(hotWalletIndex).address }))
)

const reasonOf = <A>(effect: Effect.Effect<A, ChainGateway.ChainError, ChainGateway.ChainGateway>) =>
  Effect.map(Effect.flip(effect), (e) => e.reason)

const replaced = (replacement: ChainGateway.Replacement) => {
  assert.strictEqual(replacement._tag, "Replaced", JSON.stringify(replacement))
  return (replacement as Extract<ChainGateway.Replacement, { _tag: "Replaced" }>).prepared
}
const waitingOf = (replacement: ChainGateway.Replacement) => {
  assert.strictEqual(replacement._tag, "Waiting", JSON.stringify(replacement))
  return replacement as Extract<ChainGateway.Replacement, { _tag: "Waiting" }>
}

/** Looks up until the answer is final (mining a block between looks). */
const settled = (prepared: ChainGateway.PreparedPayout) =>
  Effect.gen(function* () {
    const g = yield* gw
    for (let pass = 0; pass < depth + 5; pass++) {
      const lookup = yield* g.lookupPayout(usdc, prepared)
      if (lookup._tag === "Confirmed" || lookup._tag === "Failed") return lookup
      yield* mineAt("1")
    }
    return yield* Effect.die("the payout did not settle")
  })
const confirmed = (lookup: ChainGateway.PayoutLookup) => {
  assert.strictEqual(lookup._tag, "Confirmed", JSON.stringify(lookup))
  return lookup as Extract<ChainGateway.PayoutLookup, { _tag: "Confirmed" }>
}

/** A payout signed with head base fee 1 gwei (3 gwei max fee, 1 gwei tip), broadcast, then priced out. */
const pricedOut = (destination: Address, value: string) =>
  Effect.gen(function* () {
    const g = yield* gw
    yield* mineAt("1")
    const prepared = yield* g.preparePayout(order(destination, value))
    yield* g.broadcastPayout(usdc, prepared)
    yield* mineAt("10")
    assert.isNull(yield* receiptOf(prepared.transactionHash))
    return prepared
  })

layer(gateway({ replaceAfterSeconds }).pipe(Layer.provideMerge(fixture)), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("EvmGateway replacements (anvil, mined by hand)", (it) => {
  it.effect(
    "a priced-out payout is replaced when due: same nonce, fees +12.5 % and what the chain asks; paid once",
    () =>
      Effect.gen(function* () {
        yield* manualMining
        const g = yield* gw
        const destination = freshDestination()
        yield* mineAt("1")
        const first = yield* g.preparePayout(order(destination, "17.5"))
        yield* g.broadcastPayout(usdc, first)
        // not due yet: signed a moment ago, and paying what the chain asks
        assert.strictEqual(waitingOf(yield* g.replacePayout(usdc, first, "due")).reason, "mining")

        yield* mineAt("10")
        assert.isNull(yield* receiptOf(first.transactionHash))
        // anvil dropped it from its pool, and refuses the same bytes while the fee is below the base fee
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, first), { _tag: "Unknown" })
        const refused = yield* Effect.flip(g.broadcastPayout(usdc, first))
        assert.strictEqual(refused.reason, "fee_too_low")
        assert.match(refused.message, /max fee per gas less than block base fee/)
        // priced out, but the replace-after time has not passed
        assert.strictEqual(waitingOf(yield* g.replacePayout(usdc, first, "due")).reason, "mining")

        yield* afterReplaceTime
        const second = replaced(yield* g.replacePayout(usdc, first, "due"))
        const [v1, v2] = versionsOf(second)
        assert.strictEqual(versionsOf(second).length, 2)
        assert.strictEqual(v1!.serialized, versionsOf(first)[0]!.serialized)
        assert.strictEqual(second.transactionHash, keccak256(v2!.serialized))
        assert.strictEqual(v2!.kind, "transfer")
        const [original, replacement] = [parseTransaction(v1!.serialized), parseTransaction(v2!.serialized)]
        assert.strictEqual(replacement.nonce, original.nonce)
        assert.strictEqual(replacement.nonce, stored(first).nonce)
        // the tip 12.5 % over 1 gwei; the max fee 2 × 10 gwei + the new tip, well over 12.5 % above 3 gwei
        assert.strictEqual(replacement.maxPriorityFeePerGas, parseGwei("1.125"))
        assert.strictEqual(replacement.maxFeePerGas, parseGwei("21.125"))
        assert.isTrue(replacement.maxFeePerGas! * 8n >= original.maxFeePerGas! * 9n)
        assert.isTrue(replacement.maxPriorityFeePerGas! * 8n >= original.maxPriorityFeePerGas! * 9n)
        // the same transfer: same token contract, same call, same gas
        assert.deepStrictEqual(
          [replacement.to, replacement.data, replacement.gas, replacement.value],
          [original.to, original.data, original.gas, original.value]
        )

        const inspection = yield* g.inspectPayout(usdc, second)
        assert.deepStrictEqual(
          inspection.versions.map((v) => [v.transactionHash, v.nonce, v.kind, v.fees]),
          [
            [
              first.transactionHash,
              stored(first).nonce,
              "transfer",
              { max_fee_per_gas_gwei: "3", max_priority_fee_per_gas_gwei: "1" }
            ],
            [
              second.transactionHash,
              stored(first).nonce,
              "transfer",
              { max_fee_per_gas_gwei: "21.125", max_priority_fee_per_gas_gwei: "1.125" }
            ]
          ]
        )
        assert.deepStrictEqual(inspection.chainAsks, {
          base_fee_gwei: "10",
          max_fee_per_gas_gwei: "21",
          max_priority_fee_per_gas_gwei: "1",
          cap_gwei: "200"
        })

        yield* g.broadcastPayout(usdc, second)
        yield* mineAt("10")
        const receipt = yield* receiptOf(second.transactionHash)
        assert.strictEqual(receipt?.status, "success")
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, second), { _tag: "Pending" })
        const done = confirmed(yield* settled(second))
        assert.strictEqual(done.transactionHash, second.transactionHash)
        assert.strictEqual(done.blockNumber, Number(receipt!.blockNumber))
        assert.isFalse(done.cancelled)
        // once mined, there is nothing to replace, and a repeat broadcast is harmless
        const mined = waitingOf(yield* g.replacePayout(usdc, second, "bump"))
        assert.strictEqual(mined.reason, "mining")
        assert.include(mined.message, `mined in block ${receipt!.blockNumber}`)
        yield* g.broadcastPayout(usdc, second)
        yield* mineAt("1", 2)
        assert.deepStrictEqual(yield* received(destination), { balance: "17.500000", transfers: 1 })
      }).pipe(Effect.scoped)
  )

  it.effect("at the cap a payout waits (fee_cap), and lands once when the base fee falls", () =>
    Effect.gen(function* () {
      yield* manualMining
      const destination = freshDestination()
      yield* Effect.gen(function* () {
        const g = yield* gw
        const first = yield* pricedOut(destination, "4")
        yield* afterReplaceTime
        // the chain asks 21 gwei; the cap (4 gwei) still leaves room for +12.5 % over 3 gwei
        const atCap = replaced(yield* g.replacePayout(usdc, first, "due"))
        const capped = versionsOf(atCap)[1]!
        assert.deepStrictEqual(
          [capped.maxFeePerGas, capped.maxPriorityFeePerGas],
          [String(parseGwei("4")), String(parseGwei("1.125"))]
        )
        // below the base fee: refused, and core waits
        assert.strictEqual(yield* reasonOf(g.broadcastPayout(usdc, atCap)), "fee_too_low")
        yield* afterReplaceTime
        const waits = waitingOf(yield* g.replacePayout(usdc, atCap, "due"))
        assert.strictEqual(waits.reason, "fee_cap")
        assert.include(waits.message, "the chain asks 21 gwei")
        assert.include(waits.message, "RATELOCK_ETHEREUM_MAX_FEE_GWEI is 4 gwei")
        // an operator's bump cannot pass the cap either
        assert.strictEqual(waitingOf(yield* g.replacePayout(usdc, atCap, "bump")).reason, "fee_cap")

        // the base fee falls: the latest version gets in
        yield* mineAt("1")
        yield* g.broadcastPayout(usdc, atCap)
        yield* mineAt("1")
        assert.strictEqual((yield* receiptOf(atCap.transactionHash))?.status, "success")
        assert.isNull(yield* receiptOf(first.transactionHash))
        const done = confirmed(yield* settled(atCap))
        assert.strictEqual(done.transactionHash, atCap.transactionHash)
        // the older version can never be mined now
        yield* Effect.ignore(g.broadcastPayout(usdc, only(atCap, 0)))
        yield* mineAt("1", 2)
        assert.deepStrictEqual(yield* received(destination), { balance: "4.000000", transfers: 1 })
      }).pipe(Effect.provide(gateway({ replaceAfterSeconds, maxFeeGwei: 4 })))
    }).pipe(Effect.scoped)
  )

  it.effect("a payout drafted while the chain asks more than the cap is signed at the cap, and waits", () =>
    Effect.gen(function* () {
      yield* manualMining
      const destination = freshDestination()
      yield* Effect.gen(function* () {
        const g = yield* gw
        yield* mineAt("10")
        const prepared = yield* g.preparePayout(order(destination, "2"))
        const [version] = versionsOf(prepared)
        assert.deepStrictEqual(
          [version!.maxFeePerGas, version!.maxPriorityFeePerGas],
          [String(parseGwei("4")), String(parseGwei("1"))]
        )
        const inspection = yield* g.inspectPayout(usdc, prepared)
        assert.deepStrictEqual(inspection.chainAsks, {
          base_fee_gwei: "10",
          max_fee_per_gas_gwei: "21",
          max_priority_fee_per_gas_gwei: "1",
          cap_gwei: "4"
        })
        assert.strictEqual(yield* reasonOf(g.broadcastPayout(usdc, prepared)), "fee_too_low")
        // at the cap already: it says fee_cap at once, not "mining" until the replace-after time
        assert.strictEqual(waitingOf(yield* g.replacePayout(usdc, prepared, "due")).reason, "fee_cap")
        yield* mineAt("1")
        yield* g.broadcastPayout(usdc, prepared)
        yield* mineAt("1")
        assert.strictEqual(confirmed(yield* settled(prepared)).transactionHash, prepared.transactionHash)
        assert.deepStrictEqual(yield* received(destination), { balance: "2.000000", transfers: 1 })
      }).pipe(Effect.provide(gateway({ replaceAfterSeconds, maxFeeGwei: 4 })))
    }).pipe(Effect.scoped)
  )

  it.effect("a cancellation takes the nonce with a 0-value self transaction, stays one when due, pays nothing", () =>
    Effect.gen(function* () {
      yield* manualMining
      const g = yield* gw
      const hot = yield* hotAddress
      const destination = freshDestination()
      const before = yield* hotNonce
      yield* mineAt("1")
      const first = yield* g.preparePayout(order(destination, "9"))
      yield* g.broadcastPayout(usdc, first)

      const cancel = replaced(yield* g.replacePayout(usdc, first, "cancel"))
      const cancelVersion = versionsOf(cancel)[1]!
      assert.strictEqual(cancelVersion.kind, "cancel")
      const tx = parseTransaction(cancelVersion.serialized)
      assert.deepStrictEqual(
        [tx.to?.toLowerCase(), tx.value ?? 0n, tx.data ?? "0x", tx.gas, tx.nonce],
        [hot, 0n, "0x", 21_000n, before]
      )
      // +12.5 % over 3 gwei and 1 gwei: above what the chain asks (2 × 1 + 1.125)
      assert.deepStrictEqual([tx.maxFeePerGas, tx.maxPriorityFeePerGas], [parseGwei("3.375"), parseGwei("1.125")])
      yield* g.broadcastPayout(usdc, cancel)

      // priced out before it is mined: the due replacement is a cancellation again
      yield* mineAt("10")
      assert.isNull(yield* receiptOf(cancel.transactionHash))
      yield* afterReplaceTime
      const again = replaced(yield* g.replacePayout(usdc, cancel, "due"))
      assert.deepStrictEqual(
        versionsOf(again).map((v) => v.kind),
        ["transfer", "cancel", "cancel"]
      )
      const recancel = parseTransaction(versionsOf(again)[2]!.serialized)
      assert.deepStrictEqual([recancel.to?.toLowerCase(), recancel.value ?? 0n, recancel.nonce], [hot, 0n, before])
      yield* g.broadcastPayout(usdc, again)
      yield* mineAt("10")
      const done = confirmed(yield* settled(again))
      assert.isTrue(done.cancelled)
      assert.strictEqual(done.transactionHash, again.transactionHash)
      assert.strictEqual(yield* hotNonce, before + 1)
      // a cancellation's fee is the hot wallet's too
      const receipt = (yield* receiptOf(again.transactionHash))!
      const fee = Money.fromBaseUnits(receipt.gasUsed * receipt.effectiveGasPrice, 18)
      assert.deepStrictEqual(
        [done.native?.hotWallet, done.native?.fundingAddress, done.native?.fees, done.native?.rent].map((d) =>
          d === undefined ? "none" : Money.format(d)
        ),
        [Money.format(Money.subtract(Money.zero, fee)), "0", Money.format(fee), "0"]
      )
      // a cancellation that was mined cannot be cancelled or bumped again
      assert.strictEqual(waitingOf(yield* g.replacePayout(usdc, again, "cancel")).reason, "mining")
      for (const prepared of [first, cancel]) yield* Effect.ignore(g.broadcastPayout(usdc, prepared))
      yield* mineAt("1", 2)
      assert.deepStrictEqual(yield* received(destination), { balance: "0.000000", transfers: 0 })
    }).pipe(Effect.scoped)
  )

  it.effect("two payouts at nonces n, n + 1, both priced out: the second waits behind the first, then both land", () =>
    Effect.gen(function* () {
      yield* manualMining
      const g = yield* gw
      const [a, b] = [freshDestination(), freshDestination()]
      yield* mineAt("1")
      const draftA = yield* g.draftPayout(order(a, "1.25"))
      const draftB = yield* g.draftPayout(order(b, "2.5"))
      const n = draftA.nonceAccount!.floor
      // what the store allocates: the lowest free nonces at or above the floor
      const firstA = yield* draftA.sign(n)
      const firstB = yield* draftB.sign(n + 1)
      yield* g.broadcastPayout(usdc, firstA)
      yield* g.broadcastPayout(usdc, firstB)
      yield* mineAt("10")
      assert.isNull(yield* receiptOf(firstA.transactionHash))
      assert.isNull(yield* receiptOf(firstB.transactionHash))
      yield* afterReplaceTime

      const behind = waitingOf(yield* g.replacePayout(usdc, firstB, "due"))
      assert.strictEqual(behind.reason, "behind_nonce")
      const secondA = replaced(yield* g.replacePayout(usdc, firstA, "due"))
      yield* g.broadcastPayout(usdc, secondA)
      yield* mineAt("10")
      assert.strictEqual((yield* receiptOf(secondA.transactionHash))?.status, "success")

      // n is mined: n + 1 is no longer behind, and is priced out too
      const secondB = replaced(yield* g.replacePayout(usdc, firstB, "due"))
      assert.strictEqual(stored(secondB).nonce, n + 1)
      yield* g.broadcastPayout(usdc, secondB)
      yield* mineAt("10")
      assert.strictEqual(confirmed(yield* settled(secondA)).transactionHash, secondA.transactionHash)
      assert.strictEqual(confirmed(yield* settled(secondB)).transactionHash, secondB.transactionHash)
      assert.strictEqual(yield* hotNonce, n + 2)
      assert.deepStrictEqual(
        [yield* received(a), yield* received(b)],
        [
          { balance: "1.250000", transfers: 1 },
          { balance: "2.500000", transfers: 1 }
        ]
      )
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a crash after persisting a replacement, before broadcasting it: the older version mines, the lookup names it",
    () =>
      Effect.gen(function* () {
        yield* manualMining
        const g = yield* gw
        const destination = freshDestination()
        const first = yield* pricedOut(destination, "6")
        yield* afterReplaceTime
        // core persists the replacement, and the process dies before broadcasting it
        const second = replaced(yield* g.replacePayout(usdc, first, "due"))
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, second), { _tag: "Unknown" })
        // fees fall and an older worker (or anyone holding the bytes) broadcasts the first version
        yield* mineAt("1")
        yield* g.broadcastPayout(usdc, first)
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, second), { _tag: "Pending" })
        yield* mineAt("1")
        assert.strictEqual((yield* receiptOf(first.transactionHash))?.status, "success")
        // the restarted worker broadcasts the latest version: the nonce is taken by a version, so that is a success
        yield* g.broadcastPayout(usdc, second)
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, second), { _tag: "Pending" })
        assert.strictEqual(waitingOf(yield* g.replacePayout(usdc, second, "due")).reason, "mining")
        const done = confirmed(yield* settled(second))
        assert.strictEqual(done.transactionHash, first.transactionHash)
        assert.isFalse(done.cancelled)
        assert.isNull(yield* receiptOf(second.transactionHash))
        assert.deepStrictEqual(yield* received(destination), { balance: "6.000000", transfers: 1 })
        // core keeps the mined version's hash on the settled payout: it still names the payout
        const settledRow = { transactionHash: done.transactionHash, persisted: second.persisted }
        const inspection = yield* g.inspectPayout(usdc, settledRow)
        assert.deepStrictEqual(
          inspection.versions.map((v) => v.transactionHash),
          [first.transactionHash, second.transactionHash]
        )
      }).pipe(Effect.scoped)
  )

  it.effect("a v1 row (one version, persisted before versions existed) is read, inspected, replaced and settles", () =>
    Effect.gen(function* () {
      yield* manualMining
      const g = yield* gw
      const destination = freshDestination()
      const v2 = yield* pricedOut(destination, "3")
      const row = stored(v2)
      const hot = yield* hotAddress
      const v1: ChainGateway.PreparedPayout = {
        transactionHash: v2.transactionHash,
        persisted: Persisted.encode({
          v: 1,
          chainId: 31337,
          from: hot,
          nonce: row.nonce,
          serialized: row.versions[0]!.serialized
        })
      }
      const inspection = yield* g.inspectPayout(usdc, v1)
      assert.deepStrictEqual(
        inspection.versions.map((v) => [
          v.transactionHash,
          v.kind,
          v.fees.max_fee_per_gas_gwei,
          v.signedAt.epochMilliseconds
        ]),
        [[v2.transactionHash, "transfer", "3", 0]]
      )
      assert.deepStrictEqual(yield* g.lookupPayout(usdc, v1), { _tag: "Unknown" })
      // its signing time is unknown: a priced-out v1 row is due at once
      const replacement = replaced(yield* g.replacePayout(usdc, v1, "due"))
      assert.strictEqual(stored(replacement).v, 2)
      assert.strictEqual(versionsOf(replacement)[0]!.serialized, row.versions[0]!.serialized)
      yield* g.broadcastPayout(usdc, replacement)
      yield* mineAt("10")
      assert.strictEqual(confirmed(yield* settled(replacement)).transactionHash, replacement.transactionHash)
      assert.deepStrictEqual(yield* received(destination), { balance: "3.000000", transfers: 1 })
    }).pipe(Effect.scoped)
  )

  it.effect(
    "rows that do not add up are refused: a version signed by another key, fees that differ, a wrong hash",
    () =>
      Effect.gen(function* () {
        const g = yield* gw
        yield* mineAt("1")
        const prepared = yield* g.preparePayout(order(freshDestination(), "1"))
        const row = stored(prepared)
        const version = row.versions[0]!
        const stranger = privateKeyToAccount(generatePrivateKey())
        const foreign = yield* Effect.promise(() =>
          stranger.signTransaction({
            type: "eip1559",
            chainId: 31337,
            nonce: row.nonce,
            to: stranger.address,
            gas: 21_000n,
            maxFeePerGas: parseGwei("50"),
            maxPriorityFeePerGas: parseGwei("2")
          })
        )
        const bad: Array<ChainGateway.PreparedPayout> = [
          // a foreign version appended as the latest
          {
            transactionHash: keccak256(foreign),
            persisted: JSON.stringify({
              ...row,
              versions: [
                version,
                {
                  ...version,
                  serialized: foreign,
                  maxFeePerGas: String(parseGwei("50")),
                  maxPriorityFeePerGas: String(parseGwei("2"))
                }
              ]
            })
          },
          // fees recorded otherwise than signed
          { ...prepared, persisted: JSON.stringify({ ...row, versions: [{ ...version, maxFeePerGas: "1" }] }) },
          // a transfer recorded as a cancellation
          { ...prepared, persisted: JSON.stringify({ ...row, versions: [{ ...version, kind: "cancel" }] }) },
          // the hash is not the latest version's
          { transactionHash: keccak256(foreign), persisted: prepared.persisted }
        ]
        for (const p of bad) {
          assert.strictEqual(yield* reasonOf(g.lookupPayout(usdc, p)), "invalid_prepared")
          assert.strictEqual(yield* reasonOf(g.replacePayout(usdc, p, "bump")), "invalid_prepared")
          assert.strictEqual(yield* reasonOf(g.inspectPayout(usdc, p)), "invalid_prepared")
        }
      })
  )

  it.effect("the hot wallet: its address, ether and every configured token, as the chain reports them", () =>
    Effect.gen(function* () {
      const g = yield* gw
      const anvil = yield* Anvil
      const f = yield* EvmFixture
      const hot = yield* hotAddress
      const wallet = yield* g.hotWallet({ chain: "ethereum", environment: "sandbox" })
      assert.isNotNull(wallet)
      assert.strictEqual(wallet!.address, hot)
      const [wei, usdcUnits, usdtUnits] = yield* Effect.promise(() =>
        Promise.all([
          anvil.client.getBalance({ address: hot }),
          anvil.client.readContract({ address: f.usdc, abi: erc20Abi, functionName: "balanceOf", args: [hot] }),
          anvil.client.readContract({ address: f.usdt, abi: erc20Abi, functionName: "balanceOf", args: [hot] })
        ])
      )
      assert.deepStrictEqual(
        wallet!.balances.map((b) => [b.asset, Money.format(b.amount)]),
        [
          ["NATIVE", Money.format(Money.fromBaseUnits(wei, 18))],
          ["USDC", Money.format(Money.fromBaseUnits(usdcUnits, 6))],
          ["USDT", Money.format(Money.fromBaseUnits(usdtUnits, 6))]
        ]
      )
      assert.isTrue(usdcUnits > 0n && wei > 0n)
      assert.strictEqual(
        yield* reasonOf(g.hotWallet({ chain: "ethereum", environment: "production" })),
        "unsupported_rail"
      )
      const { hotWalletKey: _, ...withoutKey } = f.options()
      const none = yield* gw
        .use((w) => w.hotWallet({ chain: "ethereum", environment: "sandbox" }))
        .pipe(Effect.provide(EvmGateway.layer(withoutKey)))
      assert.isNull(none)
    })
  )
})
