import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import { Effect, Layer, Redacted } from "effect"
import { type Address, type Hash, parseEther } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as EvmGateway from "../../src/EvmGateway.ts"
import { Anvil } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { depth, EvmFixture, fixture, funderIndex, gateway, hotWalletIndex, plenty } from "../support/evmTestChain.ts"

const usdc: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }
const usdt: ChainGateway.Rail = { ...usdc, token: "USDT" }
const amount = Money.unsafe

let nextPayout = 0
const order = (rail: ChainGateway.Rail, destination: string, value: string): ChainGateway.PayoutOrder => ({
  payoutId: `payout-${nextPayout++}`,
  rail,
  destination,
  amount: amount(value),
  committed: Money.zero
})
const freshDestination = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address

const balance = (token: "usdc" | "usdt", owner: string) =>
  Effect.gen(function* () {
    const anvil = yield* Anvil
    const f = yield* EvmFixture
    return Money.format(Money.fromBaseUnits(yield* Erc20.balanceOf(anvil.client, f[token], owner), 6))
  })
/** The hot wallet's mined transaction count. */
const hotNonce = Effect.flatMap(Anvil, (anvil) =>
  Effect.promise(() => anvil.client.getTransactionCount({ address: anvil.account(hotWalletIndex).address }))
)
const hotEther = Effect.flatMap(Anvil, (anvil) =>
  Effect.promise(() => anvil.client.getBalance({ address: anvil.account(hotWalletIndex).address }))
)
/** Anvil mines a broadcast a moment after it answers. */
const mined = (hash: string) =>
  Effect.flatMap(Anvil, (anvil) =>
    Effect.promise(() => anvil.client.waitForTransactionReceipt({ hash: hash as Hash, pollingInterval: 5 }))
  )
const mine = (blocks: number) => Effect.flatMap(Anvil, (anvil) => anvil.mine(blocks))
const reasonOf = <A>(effect: Effect.Effect<A, ChainGateway.ChainError, ChainGateway.ChainGateway>) =>
  Effect.map(Effect.flip(effect), (e) => e.reason)
const gw = ChainGateway.ChainGateway

/** Core's flow for a prepared payout: look up, broadcast again while Pending/Unknown, until Confirmed. */
const settle = (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout) =>
  Effect.gen(function* () {
    const g = yield* gw
    for (let pass = 0; pass < 10; pass++) {
      const lookup = yield* g.lookupPayout(rail, prepared)
      if (lookup._tag === "Confirmed" || lookup._tag === "Failed") return lookup
      yield* g.broadcastPayout(rail, prepared)
      yield* mined(prepared.transactionHash)
      yield* mine(depth)
    }
    return yield* Effect.die("the payout did not settle")
  })

layer(gateway().pipe(Layer.provideMerge(fixture)), { excludeTestServices: true })(
  "EvmGateway payouts (anvil)",
  (it) => {
    it.effect("pays the exact amount: receipt, hash and block; repeats are harmless", () =>
      Effect.gen(function* () {
        const g = yield* gw
        const anvil = yield* Anvil
        const destination = freshDestination()
        const payout = order(usdc, destination, "12.345678")
        // core's store signs the draft at the nonce it allocates: signing twice at one nonce is one transaction
        const etherBefore = yield* hotEther
        const draft = yield* g.draftPayout(payout)
        const nonceAccount = draft.nonceAccount!
        assert.strictEqual(nonceAccount.signer, anvil.account(hotWalletIndex).address.toLowerCase())
        assert.strictEqual(nonceAccount.floor, yield* hotNonce)
        assert.strictEqual(nonceAccount.pending, nonceAccount.floor)
        const prepared = yield* draft.sign(nonceAccount.floor)
        assert.match(prepared.transactionHash, /^0x[0-9a-f]{64}$/)
        assert.strictEqual((yield* draft.sign(nonceAccount.floor)).transactionHash, prepared.transactionHash)
        const stored = JSON.parse(prepared.persisted)
        assert.deepStrictEqual([stored.v, stored.nonce, stored.versions.length], [2, nonceAccount.floor, 1])
        assert.strictEqual(stored.versions[0].kind, "transfer")
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, prepared), { _tag: "Unknown" })

        yield* g.broadcastPayout(usdc, prepared)
        const receipt = yield* mined(prepared.transactionHash)
        assert.strictEqual(receipt.status, "success")
        assert.strictEqual(receipt.from.toLowerCase(), anvil.account(hotWalletIndex).address.toLowerCase())
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, prepared), { _tag: "Pending" })
        yield* mine(depth - 2)
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, prepared), { _tag: "Pending" })
        yield* mine(1)
        const confirmed = yield* g.lookupPayout(usdc, prepared)
        assert.strictEqual(confirmed._tag, "Confirmed")
        assert.strictEqual(confirmed._tag === "Confirmed" && confirmed.blockNumber, Number(receipt.blockNumber))
        assert.strictEqual(confirmed._tag === "Confirmed" && confirmed.transactionHash, prepared.transactionHash)
        assert.strictEqual(confirmed._tag === "Confirmed" && confirmed.cancelled, false)
        assert.strictEqual(yield* balance("usdc", destination), "12.345678")
        // the ether it cost: the hot wallet paid the fee, as the node's balances and receipt say
        const native = confirmed._tag === "Confirmed" ? confirmed.native : undefined
        const fee = receipt.gasUsed * receipt.effectiveGasPrice
        assert.strictEqual(Money.toBaseUnits(native!.hotWallet, 18), (yield* hotEther) - etherBefore)
        assert.strictEqual(Money.toBaseUnits(native!.hotWallet, 18), -fee)
        assert.strictEqual(Money.toBaseUnits(native!.fees, 18), fee)
        assert.isTrue(Money.isZero(native!.fundingAddress) && Money.isZero(native!.rent))

        // a repeat of a mined transaction ("nonce too low" for the same hash) is a success and changes nothing
        yield* g.broadcastPayout(usdc, prepared)
        assert.strictEqual((yield* g.lookupPayout(usdc, prepared))._tag, "Confirmed")
        assert.strictEqual(yield* balance("usdc", destination), "12.345678")
        // the nonce is consumed: a new draft's floor is past it (the store never hands it out again)
        assert.strictEqual((yield* g.draftPayout(payout)).nonceAccount?.floor, nonceAccount.floor + 1)
      })
    )

    it.effect("pays in a USDT-style token whose transfer returns nothing", () =>
      Effect.gen(function* () {
        const g = yield* gw
        const destination = freshDestination()
        const prepared = yield* g.preparePayout(order(usdt, destination, "250.5"))
        const lookup = yield* settle(usdt, prepared)
        assert.strictEqual(lookup._tag, "Confirmed")
        assert.strictEqual(yield* balance("usdt", destination), "250.500000")
      })
    )

    it.effect("two payouts signed at consecutive nonces (as the store allocates them) both pay", () =>
      Effect.gen(function* () {
        const g = yield* gw
        const before = yield* hotNonce
        const [a, b] = [freshDestination(), freshDestination()]
        const draftA = yield* g.draftPayout(order(usdc, a, "1"))
        const draftB = yield* g.draftPayout(order(usdc, b, "2"))
        // nothing is reserved by a draft: both see the same floor, and the store allocates floor, floor + 1
        assert.deepStrictEqual([draftA.nonceAccount?.floor, draftB.nonceAccount?.floor], [before, before])
        const first = yield* draftA.sign(before)
        const second = yield* draftB.sign(before + 1)
        assert.deepStrictEqual(
          [JSON.parse(first.persisted).nonce, JSON.parse(second.persisted).nonce],
          [before, before + 1]
        )
        // broadcast out of order: the second waits in the pool for the first
        yield* g.broadcastPayout(usdc, second)
        // queued behind the gap: the node has it, so Pending (and core broadcasts it again, harmlessly)
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, second), { _tag: "Pending" })
        yield* g.broadcastPayout(usdc, second)
        yield* g.broadcastPayout(usdc, first)
        assert.strictEqual((yield* settle(usdc, first))._tag, "Confirmed")
        assert.strictEqual((yield* settle(usdc, second))._tag, "Confirmed")
        assert.deepStrictEqual([yield* balance("usdc", a), yield* balance("usdc", b)], ["1.000000", "2.000000"])
        assert.strictEqual(yield* hotNonce, before + 2)
      })
    )

    it.effect("a crash between sign and broadcast sends exactly one transaction", () =>
      Effect.gen(function* () {
        const destination = freshDestination()
        const payout = order(usdc, destination, "42")
        const before = yield* hotNonce
        // process 1 signs, core persists, the process dies before broadcasting
        const prepared = yield* gw.use((g) => g.preparePayout(payout)).pipe(Effect.provide(gateway()))
        // process 2 starts with no memory of it, and follows core: lookup, broadcast the persisted bytes
        yield* Effect.gen(function* () {
          const g = yield* gw
          assert.deepStrictEqual(yield* g.lookupPayout(usdc, prepared), { _tag: "Unknown" })
          yield* g.broadcastPayout(usdc, prepared)
          yield* g.broadcastPayout(usdc, prepared)
          yield* mined(prepared.transactionHash)
          yield* g.broadcastPayout(usdc, prepared)
          yield* mine(depth)
          assert.strictEqual((yield* g.lookupPayout(usdc, prepared))._tag, "Confirmed")
        }).pipe(Effect.provide(gateway()))
        assert.strictEqual(yield* balance("usdc", destination), "42.000000")
        assert.strictEqual(yield* hotNonce, before + 1)
      })
    )

    it.effect(
      "a nonce taken by another process's payout: Failed(nonce_consumed) at depth, then a new transaction",
      () =>
        Effect.gen(function* () {
          const [a, b] = [freshDestination(), freshDestination()]
          const payoutA = order(usdc, a, "5")
          const before = yield* hotNonce
          // two processes sign for the same nonce; B's is broadcast first
          const gatewayA = yield* Layer.build(gateway())
          const preparedA = yield* gw.use((g) => g.preparePayout(payoutA)).pipe(Effect.provide(gatewayA))
          const preparedB = yield* gw.use((g) => g.preparePayout(order(usdc, b, "6"))).pipe(Effect.provide(gateway()))
          assert.strictEqual(JSON.parse(preparedA.persisted).nonce, JSON.parse(preparedB.persisted).nonce)
          const g = yield* gw
          assert.strictEqual((yield* settle(usdc, preparedB))._tag, "Confirmed")

          // A's broadcast is refused; its lookup says Failed only once B's block has depth
          yield* Effect.gen(function* () {
            const ga = yield* gw
            assert.strictEqual(yield* reasonOf(ga.broadcastPayout(usdc, preparedA)), "nonce_consumed")
            assert.deepStrictEqual(yield* ga.lookupPayout(usdc, preparedA), {
              _tag: "Failed",
              reason: "nonce_consumed"
            })
            // core resets the payout and prepares it again: a new transaction, with a new nonce
            const again = yield* ga.preparePayout(payoutA)
            assert.notStrictEqual(again.transactionHash, preparedA.transactionHash)
            assert.strictEqual(JSON.parse(again.persisted).nonce, before + 1)
            assert.strictEqual((yield* settle(usdc, again))._tag, "Confirmed")
          }).pipe(Effect.provide(gatewayA))
          assert.deepStrictEqual([yield* balance("usdc", a), yield* balance("usdc", b)], ["5.000000", "6.000000"])
          assert.strictEqual(yield* hotNonce, before + 2)
          // the old bytes can never be mined now
          yield* Effect.ignore(g.broadcastPayout(usdc, preparedA))
          assert.strictEqual(yield* balance("usdc", a), "5.000000")
        }).pipe(Effect.scoped)
    )

    it.effect("a shallow nonce collision is Pending, not Failed", () =>
      Effect.gen(function* () {
        const preparedA = yield* gw
          .use((g) => g.preparePayout(order(usdc, freshDestination(), "1")))
          .pipe(Effect.provide(gateway()))
        const g = yield* gw
        const preparedB = yield* g.preparePayout(order(usdc, freshDestination(), "1"))
        yield* g.broadcastPayout(usdc, preparedB)
        yield* mined(preparedB.transactionHash)
        assert.notStrictEqual((yield* g.lookupPayout(usdc, preparedA))._tag, "Failed")
        yield* mine(depth)
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, preparedA), { _tag: "Failed", reason: "nonce_consumed" })
      })
    )

    it.effect("a transaction that reverts on chain fails its lookup at depth, and the retry is new", () =>
      Effect.gen(function* () {
        const g = yield* gw
        const anvil = yield* Anvil
        const f = yield* EvmFixture
        const hot = anvil.account(hotWalletIndex).address
        const destination = freshDestination()
        const payout = order(usdc, destination, "3")
        const prepared = yield* g.preparePayout(payout)
        // the funds leave the hot wallet between prepare and broadcast
        const held = yield* Erc20.balanceOf(anvil.client, f.usdc, hot)
        yield* Erc20.burn(anvil.client, anvil.account(funderIndex), f.usdc, hot, held)
        yield* g.broadcastPayout(usdc, prepared)
        const receipt = yield* mined(prepared.transactionHash)
        assert.strictEqual(receipt.status, "reverted")
        assert.deepStrictEqual(yield* g.lookupPayout(usdc, prepared), { _tag: "Pending" })
        yield* mine(depth)
        // it still cost its fee: gas used × effective price, paid by the hot wallet
        const fee = Money.fromBaseUnits(receipt.gasUsed * receipt.effectiveGasPrice, 18)
        const failed = yield* g.lookupPayout(usdc, prepared)
        assert.deepInclude(failed, { _tag: "Failed", reason: "reverted" })
        const native = failed._tag === "Failed" ? failed.native! : assert.fail("not failed")
        assert.isTrue(Money.equals(native.fees, fee))
        assert.isTrue(Money.equals(native.hotWallet, Money.subtract(Money.zero, fee)))
        assert.isTrue(Money.isZero(native.fundingAddress) && Money.isZero(native.rent))

        assert.strictEqual(yield* reasonOf(g.preparePayout(payout)), "insufficient_funds")
        yield* Erc20.mint(anvil.client, anvil.account(funderIndex), f.usdc, hot, plenty)
        const retry = yield* g.preparePayout(payout)
        assert.notStrictEqual(retry.transactionHash, prepared.transactionHash)
        assert.strictEqual((yield* settle(usdc, retry))._tag, "Confirmed")
        assert.strictEqual(yield* balance("usdc", destination), "3.000000")
      })
    )

    it.effect("insufficient token balance or gas money: insufficient_funds, nothing signed", () =>
      Effect.gen(function* () {
        const g = yield* gw
        const anvil = yield* Anvil
        const f = yield* EvmFixture
        const before = yield* hotNonce
        assert.strictEqual(
          yield* reasonOf(g.preparePayout(order(usdc, freshDestination(), "2000000"))),
          "insufficient_funds"
        )
        assert.strictEqual(yield* hotNonce, before)

        // a hot wallet with tokens but no ether
        const key = generatePrivateKey()
        const poor = privateKeyToAccount(key).address
        yield* Erc20.mint(anvil.client, anvil.account(funderIndex), f.usdc, poor, plenty)
        const poorGateway = gateway({ hotWalletKey: Redacted.make(key) })
        const reason = yield* reasonOf(gw.use((p) => p.preparePayout(order(usdc, freshDestination(), "1")))).pipe(
          Effect.provide(poorGateway)
        )
        assert.strictEqual(reason, "insufficient_funds")

        // a broadcast refused for gas money leaves the transaction Unknown, and the same bytes pay once funded
        const richEnough = yield* Effect.promise(() =>
          anvil.client.sendTransaction({
            account: anvil.account(funderIndex),
            chain: null,
            to: poor,
            value: parseEther("1")
          })
        )
        yield* mined(richEnough)
        const destination = freshDestination()
        yield* Effect.gen(function* () {
          const p = yield* gw
          const prepared = yield* p.preparePayout(order(usdc, destination, "1"))
          yield* Effect.promise(() => anvil.client.setBalance({ address: poor, value: 0n }))
          assert.strictEqual(yield* reasonOf(p.broadcastPayout(usdc, prepared)), "insufficient_funds")
          assert.deepStrictEqual(yield* p.lookupPayout(usdc, prepared), { _tag: "Unknown" })
          yield* Effect.promise(() => anvil.client.setBalance({ address: poor, value: parseEther("1") }))
          assert.strictEqual((yield* settle(usdc, prepared))._tag, "Confirmed")
        }).pipe(Effect.provide(poorGateway))
        assert.strictEqual(yield* balance("usdc", destination), "1.000000")
      })
    )

    it.effect("the balance must cover what payouts signed and not confirmed have committed, and the amount", () =>
      Effect.gen(function* () {
        const anvil = yield* Anvil
        const f = yield* EvmFixture
        // a hot wallet of its own holding exactly 100 USDC (and ether for gas)
        const key = generatePrivateKey()
        const hot = privateKeyToAccount(key).address
        yield* Erc20.mint(anvil.client, anvil.account(funderIndex), f.usdc, hot, 100_000_000n)
        yield* mined(
          yield* Effect.promise(() =>
            anvil.client.sendTransaction({
              account: anvil.account(funderIndex),
              chain: null,
              to: hot,
              value: parseEther("1")
            })
          )
        )
        const withCommitted = (value: string, committed: string) => ({
          ...order(usdc, freshDestination(), value),
          committed: amount(committed)
        })
        yield* Effect.gen(function* () {
          const g = yield* gw
          // 60 signed and not confirmed: another 60 would revert once mined, so it is not drafted
          const refused = yield* Effect.flip(g.draftPayout(withCommitted("60", "60")))
          assert.strictEqual(refused.reason, "insufficient_funds")
          assert.include(refused.message, "holds 100.000000 USDC")
          assert.include(refused.message, "60 USDC of it committed")
          assert.include(refused.message, "needs 60 USDC")
          // one base unit more than is free: refused too
          const over = yield* reasonOf(g.draftPayout(withCommitted("40.000001", "60")))
          assert.strictEqual(over, "insufficient_funds")
          // what is left exactly: drafted, and it pays
          const fits = withCommitted("40", "60")
          const draft = yield* g.draftPayout(fits)
          const prepared = yield* draft.sign(draft.nonceAccount!.pending)
          assert.strictEqual((yield* settle(usdc, prepared))._tag, "Confirmed")
          assert.strictEqual(yield* balance("usdc", fits.destination), "40.000000")
          // nothing committed: the balance alone decides
          assert.strictEqual(yield* reasonOf(g.draftPayout(withCommitted("60.000001", "0"))), "insufficient_funds")
          yield* g.draftPayout(withCommitted("60", "0"))
        }).pipe(Effect.provide(gateway({ hotWalletKey: Redacted.make(key) })))
      })
    )

    it.effect("refuses bad destinations and amounts, other rails, foreign persisted data, a missing hot key", () =>
      Effect.gen(function* () {
        const g = yield* gw
        const f = yield* EvmFixture
        const to = freshDestination()
        const prepare = (destination: string, value: string, rail = usdc) =>
          reasonOf(g.preparePayout(order(rail, destination, value)))
        assert.strictEqual(yield* prepare("0x1234", "1"), "invalid_address")
        assert.strictEqual(yield* prepare("0x0000000000000000000000000000000000000000", "1"), "invalid_address")
        // a mixed-case address with a broken checksum is a typo
        assert.strictEqual(yield* prepare("0xf39fd6e51aad88F6F4ce6aB8827279cffFb92266", "1"), "invalid_address")
        // the same address correctly checksummed, or in one case, is fine
        yield* g.preparePayout(order(usdc, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "1"))
        yield* g.preparePayout(order(usdc, "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266", "1"))
        assert.strictEqual(yield* prepare(to, "1.0000001"), "invalid_amount")
        assert.strictEqual(yield* prepare(to, "0"), "invalid_amount")
        assert.strictEqual(yield* prepare(to, "-1"), "invalid_amount")
        assert.strictEqual(yield* prepare(to, "1", { ...usdc, environment: "production" }), "unsupported_rail")
        assert.strictEqual(yield* prepare(to, "1", { ...usdc, token: "BRLA" }), "unsupported_token")

        const prepared = yield* g.preparePayout(order(usdc, to, "1"))
        const tampered = { ...JSON.parse(prepared.persisted), nonce: 999 }
        for (const bad of [
          { transactionHash: "0x00", persisted: "garbage" },
          { transactionHash: "0x" + "0".repeat(64), persisted: prepared.persisted },
          { transactionHash: prepared.transactionHash, persisted: JSON.stringify(tampered) }
        ]) {
          assert.strictEqual(yield* reasonOf(g.broadcastPayout(usdc, bad)), "invalid_prepared")
          assert.strictEqual(yield* reasonOf(g.lookupPayout(usdc, bad)), "invalid_prepared")
        }
        assert.strictEqual(yield* reasonOf(g.lookupPayout({ ...usdc, chain: "polygon" }, prepared)), "unsupported_rail")

        const { hotWalletKey: _, ...withoutKey } = f.options()
        const reason = yield* prepareWith(EvmGateway.layer(withoutKey), order(usdc, to, "1"))
        assert.strictEqual(reason, "no_hot_wallet")
      })
    )
  }
)

const prepareWith = (
  gatewayLayer: Layer.Layer<ChainGateway.ChainGateway, ChainGateway.ChainError>,
  payout: ChainGateway.PayoutOrder
) => reasonOf(gw.use((g) => g.preparePayout(payout))).pipe(Effect.provide(gatewayLayer))
