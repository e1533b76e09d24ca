/**
 * Priority fees, versions signed again after expiry, and the hot wallet's balances, on litesvm
 * through the JSON-RPC front end. What the chain "asks" is made by landing transfers into the hot
 * wallet's token account (an account every payout writes) that pay a price, one slot each; each
 * test first moves past the node's 150-slot fee window so earlier tests do not count.
 */
import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync
} from "@solana/spl-token"
import {
  ComputeBudgetInstruction,
  ComputeBudgetProgram,
  Connection,
  Keypair,
  PublicKey,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction
} from "@solana/web3.js"
import { DateTime, Effect } from "effect"
import * as Base58 from "../../src/internal/base58.ts"
import * as SolanaGateway from "../../src/SolanaGateway.ts"
import * as LitesvmRpc from "../support/litesvmRpc.ts"
import { decimals, rail, SolanaChain, layer as solana, settle } from "../support/solanaTestChain.ts"

const options = { excludeTestServices: true, timeout: "60 seconds" } as const
const memoProgram = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
const freshDestination = () => Keypair.generate().publicKey
const orderOf = (destination: PublicKey, amount: string): ChainGateway.PayoutOrder => ({
  payoutId: `payout-${crypto.randomUUID()}`,
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
const versionsOf = (prepared: ChainGateway.PreparedPayout) =>
  (JSON.parse(prepared.persisted) as { v: 2; versions: Array<StoredVersion> }).versions
const transactionOf = (version: StoredVersion) =>
  VersionedTransaction.deserialize(Buffer.from(version.transaction, "base64"))

/** The compute budget a signed transaction carries, decoded with web3.js (not the gateway's code), and where. */
const budgetOf = (transaction: VersionedTransaction) => {
  const instructions = TransactionMessage.decompile(transaction.message).instructions
  const budget = instructions.flatMap(
    (instruction, position): Array<{ position: number; limit?: number; price?: number }> => {
      if (!instruction.programId.equals(ComputeBudgetProgram.programId)) return []
      const type = ComputeBudgetInstruction.decodeInstructionType(instruction)
      if (type === "SetComputeUnitLimit") {
        return [{ position, limit: ComputeBudgetInstruction.decodeSetComputeUnitLimit(instruction).units }]
      }
      if (type === "SetComputeUnitPrice") {
        return [
          { position, price: Number(ComputeBudgetInstruction.decodeSetComputeUnitPrice(instruction).microLamports) }
        ]
      }
      return []
    }
  )
  return { budget, memo: Buffer.from(instructions.at(-1)!.data).toString("utf8") }
}

/** Units litesvm's own simulation of `transaction` consumes (signed: sigverify stays on). */
const unitsOf = (chain: SolanaChain["Service"], transaction: VersionedTransaction) => {
  const kit = {
    messageBytes: transaction.message.serialize(),
    signatures: { [transaction.message.staticAccountKeys[0]!.toBase58()]: transaction.signatures[0] }
  } as unknown as Parameters<typeof chain.rpc.svm.simulateTransaction>[0]
  const simulated = chain.rpc.svm.simulateTransaction(kit)
  return Number(simulated.meta().computeUnitsConsumed())
}

/** Empties the node's fee window, then lands one priced transfer into the hot wallet per price, one slot each. */
const ask = (prices: ReadonlyArray<number>) =>
  SolanaChain.use((chain) =>
    Effect.sync(() => {
      chain.rpc.advance(LitesvmRpc.blockhashLifetime + 1)
      for (const price of prices) {
        chain.send(chain.hot.publicKey, 1n, price)
        chain.rpc.advance(1)
      }
    })
  )

/** Runs `effect` against a second gateway on the same chain, with other options. */
const withGateway = <A, E, R>(
  change: (options: SolanaGateway.Options) => SolanaGateway.Options,
  effect: Effect.Effect<A, E, R>
) => SolanaChain.use((chain) => Effect.provide(effect, SolanaGateway.layer(change(chain.options))))

// eight slots asking 1,000 … 8,000: the 75th percentile (nearest rank, 6th of 8) is 6,000, the 50th 4,000
const prices = [3000, 1000, 8000, 2000, 7000, 4000, 6000, 5000]

layer(solana, options)("SolanaGateway priority fees and re-signing", (it) => {
  it.effect(
    "a payout carries a compute-unit limit from the simulation (+20 %) and the 75th percentile's price, and pays that fee",
    () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        yield* ask(prices)
        const destination = freshDestination()
        const prepared = yield* gateway.preparePayout(orderOf(destination, "3.25"))
        const [version] = versionsOf(prepared)
        const transaction = transactionOf(version!)
        const { budget, memo } = budgetOf(transaction)
        const units = unitsOf(chain, transaction)
        // first, before the payout's own instructions; the limit covers what it consumes, with the margin
        assert.deepStrictEqual(budget, [
          { position: 0, limit: Math.ceil(units * 1.2) },
          { position: 1, price: 6000 }
        ])
        assert.match(memo, /^ratelock:payout-[0-9a-f-]+:[0-9a-z]+$/)
        assert.strictEqual(version!.computeUnitPrice, 6000)
        assert.strictEqual(version!.computeUnitLimit, Math.ceil(units * 1.2))

        const inspection = yield* gateway.inspectPayout(rail, prepared)
        assert.deepStrictEqual(
          inspection.versions.map((v) => ({ ...v, signedAt: undefined })),
          [
            {
              transactionHash: prepared.transactionHash,
              nonce: null,
              kind: "transfer",
              fees: {
                compute_unit_price_micro_lamports: "6000",
                compute_unit_limit: String(Math.ceil(units * 1.2))
              },
              signedAt: undefined
            }
          ]
        )
        assert.deepStrictEqual(inspection.chainAsks, {
          compute_unit_price_micro_lamports: "6000",
          cap_micro_lamports: String(SolanaGateway.defaultMaxPriorityFeeMicroLamports)
        })

        // landed, it cost the hot wallet the base fee, the priority fee (rounded up) and the new account's rent
        const before = chain.rpc.svm.getBalance(chain.hot.publicKey.toBase58() as never)!
        yield* gateway.broadcastPayout(rail, prepared)
        assert.strictEqual((yield* settle(prepared))._tag, "Confirmed")
        const after = chain.rpc.svm.getBalance(chain.hot.publicKey.toBase58() as never)!
        const rent = chain.rpc.svm.minimumBalanceForRentExemption(165n)
        const priority = (6000n * BigInt(Math.ceil(units * 1.2)) + 999_999n) / 1_000_000n
        assert.strictEqual(before - after, 5000n + priority + rent)
        // and what landed on chain is that transaction, compute budget first
        const onChain = yield* Effect.promise(() =>
          new Connection(chain.rpc.url).getTransaction(prepared.transactionHash, {
            commitment: "finalized",
            maxSupportedTransactionVersion: 0
          })
        )
        assert.deepStrictEqual(budgetOf(onChain!.transaction as unknown as VersionedTransaction).budget, budget)
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 3_250_000n)
      })
  )

  it.effect("to a destination whose token account exists, the limit also covers creating it again", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const destination = freshDestination()
      chain.send(destination, 1n)
      const prepared = yield* gateway.preparePayout(orderOf(destination, "1"))
      const transaction = transactionOf(versionsOf(prepared)[0]!)
      const units = unitsOf(chain, transaction)
      assert.strictEqual(versionsOf(prepared)[0]!.computeUnitLimit, Math.ceil(units * 1.2) + 25_000)
    })
  )

  it.effect("the percentile and the cap are options; malformed ones fail the layer", () =>
    Effect.gen(function* () {
      yield* ask(prices)
      const priced = (change: (o: SolanaGateway.Options) => SolanaGateway.Options) =>
        withGateway(
          change,
          Effect.gen(function* () {
            const gateway = yield* ChainGateway.ChainGateway
            const prepared = yield* gateway.preparePayout(orderOf(freshDestination(), "1"))
            const inspection = yield* gateway.inspectPayout(rail, prepared)
            return { price: versionsOf(prepared)[0]!.computeUnitPrice, asks: inspection.chainAsks }
          })
        )
      assert.strictEqual((yield* priced((o) => ({ ...o, priorityFeePercentile: 50 }))).price, 4000)
      assert.strictEqual((yield* priced((o) => ({ ...o, priorityFeePercentile: 100 }))).price, 8000)
      const capped = yield* priced((o) => ({ ...o, maxPriorityFeeMicroLamports: 2500 }))
      assert.deepStrictEqual(capped, {
        price: 2500,
        asks: { compute_unit_price_micro_lamports: "6000", cap_micro_lamports: "2500" }
      })
      const refused = (change: (o: SolanaGateway.Options) => SolanaGateway.Options) =>
        Effect.map(Effect.flip(withGateway(change, Effect.void)), (e) => e.reason)
      assert.strictEqual(yield* refused((o) => ({ ...o, priorityFeePercentile: 101 })), "invalid_config")
      assert.strictEqual(yield* refused((o) => ({ ...o, maxPriorityFeeMicroLamports: -1 })), "invalid_config")
      assert.strictEqual(yield* refused((o) => ({ ...o, maxPriorityFeeMicroLamports: 1.5 })), "invalid_config")
    })
  )

  it.effect(
    "an expired payout, signed again, pays at least 12.5 % more, lands once, and the lookup names the new version",
    () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        yield* ask(prices)
        const destination = freshDestination()
        const first = yield* gateway.preparePayout(orderOf(destination, "4.5"))
        // dropped on the way: never broadcast. While it can land, nothing else is signed
        assert.deepStrictEqual(yield* gateway.lookupPayout(rail, first), { _tag: "Pending" })
        const due = yield* gateway.replacePayout(rail, first, "due")
        assert.strictEqual(due._tag === "Waiting" && due.reason, "mining")
        const bump = yield* gateway.replacePayout(rail, first, "bump")
        assert.strictEqual(bump._tag === "Waiting" && bump.reason, "mining")
        assert.match(bump._tag === "Waiting" ? bump.message : "", /only once its blockhash expired/)
        const cancel = yield* Effect.flip(gateway.replacePayout(rail, first, "cancel"))
        assert.strictEqual(cancel.reason, "unsupported")
        assert.match(cancel.message, /no cancellation/)

        chain.rpc.expireBlockhash()
        assert.deepStrictEqual(yield* gateway.lookupPayout(rail, first), { _tag: "Unknown" })
        const replaced = yield* gateway.replacePayout(rail, first, "due")
        assert.strictEqual(replaced._tag, "Replaced")
        if (replaced._tag !== "Replaced") return
        const second = replaced.prepared
        const [old, latest] = versionsOf(second)
        assert.strictEqual(versionsOf(second).length, 2)
        assert.deepStrictEqual(old, versionsOf(first)[0])
        assert.strictEqual(latest!.signature, second.transactionHash)
        assert.notStrictEqual(latest!.blockhash, old!.blockhash)
        // the window is empty now (the chain asks 0): 6,000 × 1.125
        assert.strictEqual(latest!.computeUnitPrice, 6750)
        assert.deepStrictEqual(budgetOf(transactionOf(latest!)).budget[1], { position: 1, price: 6750 })
        assert.notStrictEqual(budgetOf(transactionOf(latest!)).memo, budgetOf(transactionOf(old!)).memo)

        yield* gateway.broadcastPayout(rail, second)
        const found = yield* settle(second)
        assert.strictEqual(found._tag, "Confirmed")
        if (found._tag === "Confirmed") {
          assert.strictEqual(found.transactionHash, second.transactionHash)
          assert.isFalse(found.cancelled)
        }
        // the first version can no longer land, sent by anyone
        assert.isFalse(chain.rpc.submit(transactionOf(old!)).landed)
        // and a version that landed is never signed again, whatever is asked
        chain.rpc.expireBlockhash()
        const after = yield* gateway.replacePayout(rail, second, "due")
        assert.strictEqual(after._tag === "Waiting" && after.reason, "mining")
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 4_500_000n)
        const paying = chain.rpc
          .paidBy(chain.hot.publicKey)
          .filter((t) => t.signature === old!.signature || t.signature === latest!.signature)
        assert.deepStrictEqual(
          paying.map((t) => t.signature),
          [latest!.signature]
        )
        // the older hash still finds the payout's landed version
        const byOld = yield* gateway.lookupPayout(rail, second)
        assert.strictEqual(byOld._tag === "Confirmed" && byOld.transactionHash, latest!.signature)
      })
  )

  it.effect(
    "signed again, a payout pays at least what the chain asks now; at the cap it is signed again at the cap",
    () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        yield* ask([100, 100, 100, 100])
        const first = yield* gateway.preparePayout(orderOf(freshDestination(), "1"))
        assert.strictEqual(versionsOf(first)[0]!.computeUnitPrice, 100)
        chain.rpc.expireBlockhash()
        // busier now: 20,000 asked, far above 100 × 1.125
        for (let i = 0; i < 4; i++) {
          chain.send(chain.hot.publicKey, 1n, 20_000)
          chain.rpc.advance(1)
        }
        const replaced = yield* gateway.replacePayout(rail, first, "due")
        assert.strictEqual(replaced._tag === "Replaced" && versionsOf(replaced.prepared)[1]!.computeUnitPrice, 20_000)

        // a gateway capped at 6,000 signs at the cap, and again at the cap once that expired too
        yield* ask(prices)
        const destination = freshDestination()
        const landed = yield* withGateway(
          (o) => ({ ...o, maxPriorityFeeMicroLamports: 6000 }),
          Effect.gen(function* () {
            const capped = yield* ChainGateway.ChainGateway
            const atCap = yield* capped.preparePayout(orderOf(destination, "2"))
            assert.strictEqual(versionsOf(atCap)[0]!.computeUnitPrice, 6000)
            chain.rpc.expireBlockhash()
            const again = yield* capped.replacePayout(rail, atCap, "due")
            if (again._tag !== "Replaced") return assert.fail(`not signed again: ${again.message}`)
            assert.deepStrictEqual(
              versionsOf(again.prepared).map((v) => v.computeUnitPrice),
              [6000, 6000]
            )
            yield* capped.broadcastPayout(rail, again.prepared)
            return yield* settle(again.prepared)
          })
        )
        assert.strictEqual(landed._tag, "Confirmed")
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(destination)), 2_000_000n)
      })
  )

  it.effect("a hot wallet that cannot fund the new version: the payout waits for funds, nothing is signed", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const first = yield* gateway.preparePayout(orderOf(freshDestination(), "1"))
      chain.rpc.expireBlockhash()
      const held = chain.rpc.tokenBalance(chain.accountOf(chain.hot.publicKey))
      chain.rpc.run(
        [chain.hot],
        createTransferCheckedInstruction(
          chain.accountOf(chain.hot.publicKey),
          chain.mint,
          chain.accountOf(chain.funder.publicKey),
          chain.hot.publicKey,
          held,
          decimals
        )
      )
      const waiting = yield* gateway.replacePayout(rail, first, "due")
      chain.rpc.mintTo(chain.mint, chain.hot.publicKey, held, chain.authority)
      assert.strictEqual(waiting._tag === "Waiting" && waiting.reason, "insufficient_funds")
      assert.strictEqual((yield* gateway.replacePayout(rail, first, "due"))._tag, "Replaced")
    })
  )

  it.effect(
    "a row persisted before versions (v1, no compute budget) is still looked up, inspected and signed again",
    () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        const connection = new Connection(chain.rpc.url, "confirmed")
        /** A payout as the gateway signed it before priority fees, persisted in that form. */
        const v1 = (destination: PublicKey, units: bigint) =>
          Effect.promise(async () => {
            const hot = chain.hot.publicKey
            const account = getAssociatedTokenAddressSync(chain.mint, destination, true)
            const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed")
            const transaction = new Transaction({ feePayer: hot, blockhash, lastValidBlockHeight }).add(
              createAssociatedTokenAccountIdempotentInstruction(hot, account, destination, chain.mint),
              createTransferCheckedInstruction(chain.accountOf(hot), chain.mint, account, hot, units, decimals),
              new TransactionInstruction({
                programId: memoProgram,
                keys: [],
                data: Buffer.from(`ratelock:payout-${crypto.randomUUID()}:abc123`)
              })
            )
            transaction.sign(chain.hot)
            const persisted = JSON.stringify({
              v: 1,
              transaction: transaction.serialize().toString("base64"),
              blockhash,
              lastValidBlockHeight
            })
            return { transactionHash: Base58.encode(transaction.signature!), persisted }
          })

        // one lands as it is
        const landing = freshDestination()
        const old = yield* v1(landing, 1_000_000n)
        assert.deepStrictEqual(yield* gateway.lookupPayout(rail, old), { _tag: "Pending" })
        const inspection = yield* gateway.inspectPayout(rail, old)
        assert.deepStrictEqual(inspection.versions, [
          {
            transactionHash: old.transactionHash,
            nonce: null,
            kind: "transfer",
            fees: { compute_unit_price_micro_lamports: "0", compute_unit_limit: "default" },
            signedAt: DateTime.makeUnsafe(0)
          }
        ])
        yield* gateway.broadcastPayout(rail, old)
        const found = yield* settle(old)
        assert.strictEqual(found._tag === "Confirmed" && found.transactionHash, old.transactionHash)
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(landing)), 1_000_000n)

        // one that was dropped is signed again, in the current form, the old version kept as it was
        const dropped = freshDestination()
        const lost = yield* v1(dropped, 2_000_000n)
        chain.rpc.expireBlockhash()
        assert.deepStrictEqual(yield* gateway.lookupPayout(rail, lost), { _tag: "Unknown" })
        const replaced = yield* gateway.replacePayout(rail, lost, "due")
        if (replaced._tag !== "Replaced") return assert.fail(`not signed again: ${replaced.message}`)
        const [kept, fresh] = versionsOf(replaced.prepared)
        assert.deepStrictEqual(
          { ...kept!, transaction: undefined },
          {
            signature: lost.transactionHash,
            transaction: undefined,
            blockhash: (JSON.parse(lost.persisted) as { blockhash: string }).blockhash,
            lastValidBlockHeight: (JSON.parse(lost.persisted) as { lastValidBlockHeight: number }).lastValidBlockHeight,
            computeUnitPrice: 0,
            computeUnitLimit: null,
            signedAt: null
          }
        )
        assert.isTrue(fresh!.computeUnitPrice >= 1)
        yield* gateway.broadcastPayout(rail, replaced.prepared)
        const paid = yield* settle(replaced.prepared)
        assert.strictEqual(paid._tag === "Confirmed" && paid.transactionHash, fresh!.signature)
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(dropped)), 2_000_000n)
      })
  )

  it.effect("the hot wallet's balances: SOL and every configured token, 0 for a token it holds no account of", () =>
    Effect.gen(function* () {
      const chain = yield* SolanaChain
      // a second token the hot wallet has never held
      const eurc = chain.rpc.createMint(chain.authority, 6, Keypair.generate())
      const wallet = yield* withGateway(
        (o) => ({ ...o, tokens: { ...o.tokens, EURC: { mint: eurc.toBase58() } } }),
        ChainGateway.ChainGateway.use((g) => g.hotWallet({ chain: "solana", environment: "sandbox" }))
      )
      const lamports = chain.rpc.svm.getBalance(chain.hot.publicKey.toBase58() as never)!
      const usdc = chain.rpc.tokenBalance(chain.accountOf(chain.hot.publicKey))
      assert.isNotNull(wallet)
      assert.strictEqual(wallet!.address, chain.hot.publicKey.toBase58())
      assert.deepStrictEqual(
        wallet!.balances.map((b) => [b.asset, Money.format(b.amount)]),
        [
          ["NATIVE", Money.format(Money.fromBaseUnits(lamports, 9))],
          ["USDC", Money.format(Money.fromBaseUnits(usdc, 6))],
          ["EURC", Money.format(Money.fromBaseUnits(0n, 6))]
        ]
      )
      assert.isTrue(lamports > 0n && usdc > 0n)

      const none = yield* withGateway(
        ({ hotWalletKey: _, ...rest }) => rest,
        ChainGateway.ChainGateway.use((g) => g.hotWallet({ chain: "solana", environment: "sandbox" }))
      )
      assert.isNull(none)
      const gateway = yield* ChainGateway.ChainGateway
      const foreign = yield* Effect.flip(gateway.hotWallet({ chain: "solana", environment: "production" }))
      assert.strictEqual(foreign.reason, "unsupported_rail")
    })
  )
})
