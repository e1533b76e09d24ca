/**
 * Payouts on litesvm through the JSON-RPC front end: what lands and where, what the hot wallet
 * cannot fund, a crash between sign and broadcast, a blockhash that expires, and transactions that
 * land with an error. Each test pays its own fresh destination. (Priority fees, versions signed
 * again after expiry and the hot wallet's balances: `SolanaPriorityFees.test.ts`.)
 */
import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import { TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { Keypair, PublicKey, VersionedTransaction } from "@solana/web3.js"
import { BigDecimal, Effect, Redacted } from "effect"
import * as Base58 from "../../src/internal/base58.ts"
import * as SolanaGateway from "../../src/SolanaGateway.ts"
import * as LitesvmRpc from "../support/litesvmRpc.ts"
import { rail, SolanaChain, layer as solana, settle } from "../support/solanaTestChain.ts"
import { TestChain } from "../support/TestChain.ts"

const options = { excludeTestServices: true, timeout: "60 seconds" } as const
const freshPayoutId = () => `payout-${crypto.randomUUID()}`
const freshDestination = () => Keypair.generate().publicKey
const orderOf = (destination: PublicKey, amount: string, payoutId = freshPayoutId()): ChainGateway.PayoutOrder => ({
  payoutId,
  rail,
  destination: destination.toBase58(),
  amount: Money.unsafe(amount),
  committed: Money.zero
})
interface StoredVersion {
  readonly signature: string
  readonly transaction: string
  readonly blockhash: string
  readonly lastValidBlockHeight: number
  readonly computeUnitPrice: number
  readonly computeUnitLimit: number | null
  readonly signedAt: string | null
}
const persistedOf = (prepared: ChainGateway.PreparedPayout) =>
  JSON.parse(prepared.persisted) as { v: number; versions: Array<StoredVersion> }
/** The version a prepared payout broadcasts: its latest. */
const latestOf = (prepared: ChainGateway.PreparedPayout) => persistedOf(prepared).versions.at(-1)!

/** Runs `effect` against a second gateway on the same chain: a restarted process, or other options. */
const withGateway = <A, E>(
  change: (options: SolanaGateway.Options) => SolanaGateway.Options,
  effect: Effect.Effect<A, E, ChainGateway.ChainGateway>
) => SolanaChain.use((chain) => Effect.provide(effect, SolanaGateway.layer(change(chain.options))))

layer(solana, options)("SolanaGateway payouts", (it) => {
  it.effect("checkAddress: a payout's destination rule (base58 of 32 bytes, on the curve or not), kept as given", () =>
    Effect.gen(function* () {
      const g = yield* ChainGateway.ChainGateway
      const wallet = freshDestination().toBase58()
      assert.strictEqual(yield* g.checkAddress(rail, wallet), wallet)
      // a program-derived address (off the curve) owns token accounts too
      const pda = PublicKey.findProgramAddressSync([Buffer.from("vault")], TOKEN_PROGRAM_ID)[0].toBase58()
      assert.strictEqual(yield* g.checkAddress(rail, pda), pda)
      for (const address of [
        "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
        wallet.slice(0, -4),
        `${wallet}1111`,
        wallet.replace(/.$/, "0"),
        ""
      ]) {
        const refused = yield* Effect.flip(g.checkAddress(rail, address))
        assert.strictEqual(refused.reason, "invalid_address", address)
        assert.include(refused.message, "base58 of 32 bytes")
      }
      const production = { chain: "solana", environment: "production" } as const
      assert.strictEqual((yield* Effect.flip(g.checkAddress(production, wallet))).reason, "unsupported_rail")
    })
  )

  it.effect(
    "a payout lands: signature and slot, the account created and credited exactly, the hot wallet debited",
    () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        const destination = freshDestination()
        const hotBefore = chain.rpc.tokenBalance(chain.accountOf(chain.hot.publicKey))
        const lamportsOf = (key: PublicKey) => chain.rpc.svm.getBalance(key.toBase58() as never) ?? 0n
        const lamportsBefore = lamportsOf(chain.hot.publicKey)

        const prepared = yield* gateway.preparePayout(orderOf(destination, "7.123456"))
        assert.strictEqual(Base58.decode(prepared.transactionHash)?.length, 64)
        const persisted = persistedOf(prepared)
        assert.strictEqual(persisted.v, 2)
        assert.strictEqual(persisted.versions.length, 1)
        const version = latestOf(prepared)
        assert.deepStrictEqual(Object.keys(version).sort(), [
          "blockhash",
          "computeUnitLimit",
          "computeUnitPrice",
          "lastValidBlockHeight",
          "signature",
          "signedAt",
          "transaction"
        ])
        assert.strictEqual(version.signature, prepared.transactionHash)
        assert.isTrue(version.lastValidBlockHeight > chain.rpc.head())
        // not broadcast yet, and able to land: it waits (only an expired payout is Unknown)
        assert.deepStrictEqual(yield* gateway.lookupPayout(rail, prepared), { _tag: "Pending" })

        yield* gateway.broadcastPayout(rail, prepared)
        const slot = chain.rpc.head()
        assert.deepStrictEqual(yield* gateway.lookupPayout(rail, prepared), { _tag: "Pending" })
        chain.rpc.advance(chain.depth - 2)
        assert.deepStrictEqual(yield* gateway.lookupPayout(rail, prepared), { _tag: "Pending" })
        chain.rpc.advance(1)
        const found = yield* gateway.lookupPayout(rail, prepared)
        assert.strictEqual(found._tag, "Confirmed")
        if (found._tag === "Confirmed") {
          assert.strictEqual(found.blockNumber, slot)
          assert.strictEqual(found.transactionHash, prepared.transactionHash)
          assert.isFalse(found.cancelled)
          // what it moved in SOL: the fee, and the rent of the account it created, both from the hot wallet
          const fee =
            5000n + (BigInt(version.computeUnitPrice) * BigInt(version.computeUnitLimit!) + 999_999n) / 1_000_000n
          const rent = chain.rpc.svm.minimumBalanceForRentExemption(165n)
          assert.strictEqual(lamportsOf(chain.hot.publicKey) - lamportsBefore, -fee - rent)
          const sol = (lamports: bigint) => Money.fromBaseUnits(lamports, 9)
          const native = found.native!
          assert.isTrue(BigDecimal.equals(native.hotWallet, sol(-fee - rent)))
          assert.isTrue(BigDecimal.equals(native.fundingAddress, Money.zero))
          assert.isTrue(BigDecimal.equals(native.fees, sol(fee)))
          assert.isTrue(BigDecimal.equals(native.rent, sol(-rent)))
        }

        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 7_123_456n)
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(chain.hot.publicKey)), hotBefore - 7_123_456n)
        const landed = chain.rpc.paidBy(chain.hot.publicKey).filter((t) => t.signature === prepared.transactionHash)
        assert.deepStrictEqual(landed, [{ signature: prepared.transactionHash, slot, err: null }])
      })
  )

  it.effect("a destination that already has its token account is credited on top, and pays no rent", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const destination = freshDestination()
      chain.send(destination, 1n)
      const prepared = yield* gateway.preparePayout(orderOf(destination, "1.5"))
      yield* gateway.broadcastPayout(rail, prepared)
      const found = yield* settle(prepared)
      assert.strictEqual(found._tag, "Confirmed")
      assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 1_500_001n)
      if (found._tag === "Confirmed") {
        assert.isTrue(BigDecimal.equals(found.native!.rent, Money.zero))
        assert.isTrue(BigDecimal.equals(found.native!.hotWallet, Money.subtract(Money.zero, found.native!.fees)))
      }
    })
  )

  it.effect("one payout prepared twice is one transaction; two payouts of the same amount to one wallet are two", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const destination = freshDestination()
      const order = orderOf(destination, "2")
      const first = yield* gateway.preparePayout(order)
      assert.deepStrictEqual(yield* gateway.preparePayout(order), first)
      const other = yield* gateway.preparePayout({ ...order, payoutId: freshPayoutId() })
      assert.notStrictEqual(other.transactionHash, first.transactionHash)
      yield* gateway.broadcastPayout(rail, first)
      yield* gateway.broadcastPayout(rail, other)
      yield* gateway.broadcastPayout(rail, first)
      assert.strictEqual((yield* settle(first))._tag, "Confirmed")
      assert.strictEqual((yield* settle(other))._tag, "Confirmed")
      assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 4_000_000n)
    })
  )

  it.effect("a hot wallet short of tokens or of SOL refuses to prepare with insufficient_funds", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const testChain = yield* TestChain
      yield* testChain.drainHotWallet
      const error = yield* Effect.flip(gateway.preparePayout(orderOf(freshDestination(), "1")))
      yield* testChain.refillHotWallet
      assert.strictEqual(error.reason, "insufficient_funds")

      // tokens but too little SOL for the fee and the new account's rent
      const poor = Keypair.generate()
      chain.rpc.airdrop(poor.publicKey, 1_000_000n)
      chain.rpc.mintTo(chain.mint, poor.publicKey, 10_000_000n, chain.authority)
      const lacking = yield* withGateway(
        (o) => ({ ...o, hotWalletKey: Redacted.make(Base58.encode(poor.secretKey)) }),
        Effect.flip(ChainGateway.ChainGateway.use((g) => g.preparePayout(orderOf(freshDestination(), "1"))))
      )
      assert.strictEqual(lacking.reason, "insufficient_funds")
      assert.match(lacking.message, /lamports/)
    })
  )

  it.effect("the balance must cover what payouts signed and not confirmed have committed, and the amount", () =>
    Effect.gen(function* () {
      const chain = yield* SolanaChain
      // a hot wallet of its own holding exactly 100 USDC (and SOL for fees and rent)
      const hot = Keypair.generate()
      chain.rpc.airdrop(hot.publicKey, 1_000_000_000n)
      chain.rpc.mintTo(chain.mint, hot.publicKey, 100_000_000n, chain.authority)
      const withCommitted = (destination: PublicKey, amount: string, committed: string) => ({
        ...orderOf(destination, amount),
        committed: Money.unsafe(committed)
      })
      const prepare = (order: ChainGateway.PayoutOrder) => ChainGateway.ChainGateway.use((g) => g.preparePayout(order))
      yield* withGateway(
        (o) => ({ ...o, hotWalletKey: Redacted.make(Base58.encode(hot.secretKey)) }),
        Effect.gen(function* () {
          // 60 signed and not confirmed: another 60 would fail on chain and burn its fee, so it is not signed
          const refused = yield* Effect.flip(prepare(withCommitted(freshDestination(), "60", "60")))
          assert.strictEqual(refused.reason, "insufficient_funds")
          assert.include(refused.message, "holds 100 USDC")
          assert.include(refused.message, "60 USDC of it committed")
          assert.include(refused.message, "needs 60 USDC")
          // one base unit more than is free: refused too
          const over = yield* Effect.flip(prepare(withCommitted(freshDestination(), "40.000001", "60")))
          assert.strictEqual(over.reason, "insufficient_funds")
          // what is left exactly: signed, and it pays
          const destination = freshDestination()
          const prepared = yield* prepare(withCommitted(destination, "40", "60"))
          yield* ChainGateway.ChainGateway.use((g) => g.broadcastPayout(rail, prepared))
          assert.strictEqual((yield* settle(prepared))._tag, "Confirmed")
          assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 40_000_000n)
          // nothing committed: the balance alone decides
          const alone = yield* Effect.flip(prepare(withCommitted(freshDestination(), "60.000001", "0")))
          assert.strictEqual(alone.reason, "insufficient_funds")
          yield* prepare(withCommitted(freshDestination(), "60", "0"))
        }).pipe(Effect.provideService(SolanaChain, chain))
      )
    })
  )

  it.effect(
    "funds gone between sign and broadcast: the broadcast is refused and nothing lands; refilled, the same bytes pay",
    () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        const testChain = yield* TestChain
        const destination = freshDestination()
        const prepared = yield* gateway.preparePayout(orderOf(destination, "3"))
        yield* testChain.drainHotWallet
        const refused = yield* Effect.flip(gateway.broadcastPayout(rail, prepared))
        assert.strictEqual(refused.reason, "insufficient_funds")
        assert.deepStrictEqual(yield* gateway.lookupPayout(rail, prepared), { _tag: "Pending" })
        assert.isFalse(chain.rpc.paidBy(chain.hot.publicKey).some((t) => t.signature === prepared.transactionHash))

        yield* testChain.refillHotWallet
        yield* gateway.broadcastPayout(rail, prepared)
        assert.strictEqual((yield* settle(prepared))._tag, "Confirmed")
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 3_000_000n)
      })
  )

  it.effect("a transaction that lands with an error fails its lookup only at depth; the next prepare is new", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const testChain = yield* TestChain
      const destination = freshDestination()
      const order = orderOf(destination, "4")
      const prepared = yield* gateway.preparePayout(order)
      yield* testChain.drainHotWallet
      // sent by someone without preflight: it lands, pays its fee, and fails in the transfer
      const bytes = Buffer.from(latestOf(prepared).transaction, "base64")
      const sent = chain.rpc.submit(VersionedTransaction.deserialize(bytes))
      yield* testChain.refillHotWallet
      assert.isTrue(sent.landed)
      // the transfer, after the two compute-budget instructions and the account creation
      assert.deepStrictEqual(sent.err, { InstructionError: [3, { Custom: 1 }] })
      assert.deepStrictEqual(yield* gateway.lookupPayout(rail, prepared), { _tag: "Pending" })
      chain.rpc.advance(chain.depth - 1)
      const failed = yield* gateway.lookupPayout(rail, prepared)
      assert.deepInclude(failed, { _tag: "Failed", reason: "insufficient_funds" })
      // it paid its fee, and nothing else: the account it would have created was rolled back
      const native = failed._tag === "Failed" ? failed.native! : assert.fail("not failed")
      assert.isTrue(Money.isPositive(native.fees))
      assert.isTrue(Money.equals(native.hotWallet, Money.subtract(Money.zero, native.fees)))
      assert.isTrue(Money.isZero(native.rent) && Money.isZero(native.fundingAddress))

      const again = yield* gateway.preparePayout(order)
      assert.notStrictEqual(again.transactionHash, prepared.transactionHash)
      yield* gateway.broadcastPayout(rail, again)
      assert.strictEqual((yield* settle(again))._tag, "Confirmed")
      assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 4_000_000n)
    })
  )

  it.effect(
    "a crash between sign and broadcast: the restarted gateway sends the persisted bytes, one transaction pays",
    () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        const destination = freshDestination()
        const prepared = yield* gateway.preparePayout(orderOf(destination, "5.5"))
        // the process dies here, after core persisted `prepared`; a new one looks it up and re-broadcasts
        const found = yield* withGateway(
          (o) => o,
          Effect.gen(function* () {
            const restarted = yield* ChainGateway.ChainGateway
            assert.deepStrictEqual(yield* restarted.lookupPayout(rail, prepared), { _tag: "Pending" })
            yield* restarted.broadcastPayout(rail, prepared)
            yield* restarted.broadcastPayout(rail, prepared)
            chain.rpc.advance(chain.depth - 1)
            yield* restarted.broadcastPayout(rail, prepared)
            return yield* restarted.lookupPayout(rail, prepared)
          })
        )
        assert.strictEqual(found._tag, "Confirmed")
        // and the old process, had it survived, finds the same
        const survivor = yield* gateway.lookupPayout(rail, prepared)
        assert.strictEqual(
          survivor._tag === "Confirmed" && found._tag === "Confirmed" && survivor.blockNumber === found.blockNumber,
          true
        )
        const paying = chain.rpc.paidBy(chain.hot.publicKey).filter((t) => t.signature === prepared.transactionHash)
        assert.strictEqual(paying.length, 1)
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 5_500_000n)
      })
  )

  it.effect("an expired blockhash with nothing landed: Pending until final, then Unknown, never Failed", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const destination = freshDestination()
      const order = orderOf(destination, "6")
      const prepared = yield* gateway.preparePayout(order)
      const { lastValidBlockHeight } = latestOf(prepared)

      // just past its last valid height: it can no longer land, but that is not final yet
      chain.rpc.advance(lastValidBlockHeight + 1 - chain.rpc.head())
      const late = yield* Effect.flip(gateway.broadcastPayout(rail, prepared))
      assert.strictEqual(late.reason, "blockhash_expired")
      assert.deepStrictEqual(yield* gateway.lookupPayout(rail, prepared), { _tag: "Pending" })
      assert.strictEqual((yield* gateway.replacePayout(rail, prepared, "due"))._tag, "Waiting")
      // final: nothing landed and nothing can, which is not a failure of the payout (core signs
      // it again through replacePayout; a process without a store prepares it again)
      chain.rpc.advance(LitesvmRpc.finalizedLag)
      assert.deepStrictEqual(yield* gateway.lookupPayout(rail, prepared), { _tag: "Unknown" })

      const again = yield* gateway.preparePayout(order)
      assert.notStrictEqual(again.transactionHash, prepared.transactionHash)
      yield* gateway.broadcastPayout(rail, again)
      assert.strictEqual((yield* settle(again))._tag, "Confirmed")
      assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 6_000_000n)
      assert.isFalse(chain.rpc.paidBy(chain.hot.publicKey).some((t) => t.signature === prepared.transactionHash))
    })
  )

  it.effect("a landed payout broadcast again after its blockhash expired is the harmless repeat it is", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const destination = freshDestination()
      const prepared = yield* gateway.preparePayout(orderOf(destination, "2"))
      yield* gateway.broadcastPayout(rail, prepared)
      assert.strictEqual((yield* settle(prepared))._tag, "Confirmed")
      // the node now answers "Blockhash not found" to it, as a cluster does to any old transaction
      chain.rpc.expireBlockhash()
      yield* gateway.broadcastPayout(rail, prepared)
      chain.rpc.advance(1)
      assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 2_000_000n)
      assert.strictEqual(
        chain.rpc.paidBy(chain.hot.publicKey).filter((t) => t.signature === prepared.transactionHash).length,
        1
      )
    })
  )

  it.effect("a remembered payout whose blockhash expired is signed anew", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const order = orderOf(freshDestination(), "1")
      const first = yield* gateway.preparePayout(order)
      chain.rpc.expireBlockhash()
      const second = yield* gateway.preparePayout(order)
      assert.notStrictEqual(second.transactionHash, first.transactionHash)
      assert.deepStrictEqual(yield* gateway.preparePayout(order), second)
    })
  )

  it.effect("malformed orders, foreign rails and foreign persisted payouts are refused", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const destination = freshDestination()
      const reason = <A>(effect: Effect.Effect<A, ChainGateway.ChainError>) =>
        Effect.map(Effect.flip(effect), (e) => e.reason)
      const prepare = (order: ChainGateway.PayoutOrder) => reason(gateway.preparePayout(order))
      assert.strictEqual(yield* prepare(orderOf(destination, "1.0000001")), "invalid_amount")
      assert.strictEqual(yield* prepare(orderOf(destination, "0")), "invalid_amount")
      assert.strictEqual(yield* prepare({ ...orderOf(destination, "1"), destination: "0x12" }), "invalid_address")
      // a token account or the mint is not a wallet: tokens sent "to" it would be lost
      assert.strictEqual(yield* prepare(orderOf(chain.accountOf(chain.funder.publicKey), "1")), "invalid_address")
      assert.strictEqual(yield* prepare(orderOf(chain.mint, "1")), "invalid_address")
      assert.strictEqual(yield* prepare(orderOf(TOKEN_PROGRAM_ID, "1")), "invalid_address")
      assert.strictEqual(
        yield* prepare({ ...orderOf(destination, "1"), rail: { ...rail, environment: "production" } }),
        "unsupported_rail"
      )
      assert.strictEqual(
        yield* prepare({ ...orderOf(destination, "1"), rail: { ...rail, token: "USDT" } }),
        "unsupported_token"
      )
      const noWallet = yield* withGateway(
        ({ hotWalletKey: _, ...rest }) => rest,
        Effect.flip(ChainGateway.ChainGateway.use((g) => g.preparePayout(orderOf(destination, "1"))))
      )
      assert.strictEqual(noWallet.reason, "no_hot_wallet")

      const prepared = yield* gateway.preparePayout(orderOf(destination, "1"))
      const other = yield* gateway.preparePayout(orderOf(destination, "1"))
      assert.strictEqual(
        yield* reason(gateway.broadcastPayout(rail, { ...prepared, persisted: "garbage" })),
        "invalid_prepared"
      )
      assert.strictEqual(
        yield* reason(gateway.lookupPayout(rail, { ...prepared, transactionHash: other.transactionHash })),
        "invalid_prepared"
      )
      const tampered = JSON.stringify({
        v: 2,
        versions: [{ ...latestOf(prepared), blockhash: Keypair.generate().publicKey.toBase58() }]
      })
      assert.strictEqual(
        yield* reason(gateway.lookupPayout(rail, { ...prepared, persisted: tampered })),
        "invalid_prepared"
      )
      assert.strictEqual(
        yield* reason(gateway.broadcastPayout({ ...rail, chain: "ethereum" }, prepared)),
        "unsupported_rail"
      )
    })
  )

  it.effect("an RPC answering 429 to a broadcast is rate_limited; sent again, the payout lands", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const prepared = yield* gateway.preparePayout(orderOf(freshDestination(), "1"))
      chain.rpc.failNext(1, 429)
      assert.strictEqual((yield* Effect.flip(gateway.broadcastPayout(rail, prepared))).reason, "rate_limited")
      yield* gateway.broadcastPayout(rail, prepared)
      assert.strictEqual((yield* settle(prepared))._tag, "Confirmed")
    })
  )
})
