/**
 * Sweeps on litesvm through the JSON-RPC front end: a funding address's token account, funded by a
 * customer's transfer, emptied into the hot wallet or a treasury wallet and closed, its rent back
 * to the hot wallet; the SOL each moved, to the lamport; broadcasts repeated; an expired blockhash
 * signed again; and the balances of many addresses (of the token, of SOL) in a few calls, at the
 * funding commitment. Each test sweeps its own HD indexes and pays its own fresh destinations.
 */
import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money, type TreasuryLedger } from "@ratelock/core"
import { Keypair, PublicKey } from "@solana/web3.js"
import { BigDecimal, Effect } from "effect"
import * as LitesvmRpc from "../support/litesvmRpc.ts"
import {
  decimals,
  rail,
  SolanaChain,
  type SolanaChainShape,
  layer as solana,
  settle
} from "../support/solanaTestChain.ts"

const options = { excludeTestServices: true, timeout: "60 seconds" } as const
let nextIndex = 5_000 + Math.floor(Math.random() * 1_000_000) * 100
const freshIndex = () => ++nextIndex
const freshDestination = () => Keypair.generate().publicKey
const sol = (lamports: bigint) => Money.fromBaseUnits(lamports, 9)

interface Persisted {
  readonly v: number
  readonly kind?: string
  readonly fundingIndex?: number
  readonly versions: ReadonlyArray<{
    readonly signature: string
    readonly lastValidBlockHeight: number
    readonly computeUnitPrice: number
    readonly computeUnitLimit: number
  }>
}
const persistedOf = (prepared: ChainGateway.PreparedPayout) => JSON.parse(prepared.persisted) as Persisted
const latestOf = (prepared: ChainGateway.PreparedPayout) => persistedOf(prepared).versions.at(-1)!

/** What a version costs its fee payer: two signatures, and the priority fee on its whole limit. */
const feeOf = (version: ReturnType<typeof latestOf>) =>
  10_000n + (BigInt(version.computeUnitPrice) * BigInt(version.computeUnitLimit) + 999_999n) / 1_000_000n

/** A funding address at a fresh index, funded by a customer's transfer of `units` (which creates its account). */
const funded = (units: bigint) =>
  Effect.gen(function* () {
    const gateway = yield* ChainGateway.ChainGateway
    const chain = yield* SolanaChain
    const fundingIndex = freshIndex()
    const source = yield* gateway.fundingAddress(rail, fundingIndex)
    chain.send(source, units)
    return { fundingIndex, source, account: chain.accountOf(source) }
  })

const sweepOf = (
  funding: { readonly fundingIndex: number; readonly source: string },
  amount: string,
  destination: PublicKey | null = null
): ChainGateway.SweepOrder => ({
  sweepId: `sweep-${crypto.randomUUID()}`,
  rail,
  source: funding.source,
  fundingIndex: funding.fundingIndex,
  destination: destination === null ? null : destination.toBase58(),
  amount: Money.unsafe(amount)
})

const signSweep = (order: ChainGateway.SweepOrder) =>
  Effect.gen(function* () {
    const draft = yield* (yield* ChainGateway.ChainGateway).draftSweep(order)
    assert.isNull(draft.nonceAccount)
    return yield* draft.sign(null)
  })

const confirmed = (prepared: ChainGateway.PreparedPayout) =>
  Effect.gen(function* () {
    const found = yield* settle(prepared)
    if (found._tag !== "Confirmed") return assert.fail(`not confirmed: ${JSON.stringify(found)}`)
    return found
  })

/** Signs, broadcasts and settles a sweep: what it moved in SOL, and its signed job. */
const sweep = (order: ChainGateway.SweepOrder) =>
  Effect.gen(function* () {
    const prepared = yield* signSweep(order)
    yield* (yield* ChainGateway.ChainGateway).broadcastPayout(rail, prepared)
    return { prepared, found: yield* confirmed(prepared) }
  })

const lamportsOf = (chain: SolanaChainShape, key: PublicKey) => chain.rpc.svm.getBalance(key.toBase58() as never) ?? 0n
const exists = (chain: SolanaChainShape, key: PublicKey) => chain.rpc.svm.getAccount(key.toBase58() as never).exists

const assertNative = (actual: TreasuryLedger.NativeMovement | undefined, expected: Record<string, bigint>) => {
  assert.isDefined(actual)
  for (const [field, lamports] of Object.entries(expected)) {
    const value = actual![field as keyof TreasuryLedger.NativeMovement]
    assert.isTrue(BigDecimal.equals(value, sol(lamports)), `${field}: ${Money.format(value)}, expected ${lamports}`)
  }
  const { hotWallet, fundingAddress, fees, rent } = actual!
  assert.isTrue(Money.isZero(Money.subtract(Money.sum(Money.sum(hotWallet, fundingAddress), fees), rent)))
}

layer(solana, options)("SolanaGateway sweeps", (it) => {
  it.effect("the funding keys are held: the seed is on the server", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      assert.strictEqual(yield* gateway.fundingKeys({ chain: "solana", environment: "sandbox" }), "held")
      const foreign = yield* Effect.flip(gateway.fundingKeys({ chain: "solana", environment: "production" }))
      assert.strictEqual(foreign.reason, "unsupported_rail")
    })
  )

  it.effect(
    "a customer's deposit swept to the hot wallet: the account closed, the amount and the rent back, to the lamport",
    () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        const hot = chain.hot.publicKey
        const funding = yield* funded(12_345_678n)
        const rentBack = lamportsOf(chain, funding.account)
        assert.isTrue(rentBack > 0n)
        const hotTokens = chain.rpc.tokenBalance(chain.accountOf(hot))
        const hotLamports = lamportsOf(chain, hot)

        const prepared = yield* signSweep(sweepOf(funding, "12.345678"))
        const persisted = persistedOf(prepared)
        assert.strictEqual(persisted.v, 2)
        assert.strictEqual(persisted.kind, "sweep")
        assert.strictEqual(persisted.fundingIndex, funding.fundingIndex)
        assert.strictEqual(persisted.versions.length, 1)
        assert.strictEqual(latestOf(prepared).signature, prepared.transactionHash)
        assert.deepStrictEqual(yield* gateway.lookupPayout(rail, prepared), { _tag: "Pending" })

        yield* gateway.broadcastPayout(rail, prepared)
        yield* gateway.broadcastPayout(rail, prepared)
        const found = yield* confirmed(prepared)
        assert.strictEqual(found.transactionHash, prepared.transactionHash)
        assert.isFalse(found.cancelled)
        // broadcast again once landed, and again once its blockhash expired: still one transaction
        yield* gateway.broadcastPayout(rail, prepared)
        chain.rpc.expireBlockhash()
        yield* gateway.broadcastPayout(rail, prepared)
        assert.deepStrictEqual(
          chain.rpc.paidBy(hot).filter((t) => t.signature === prepared.transactionHash),
          [{ signature: prepared.transactionHash, slot: found.blockNumber, err: null }]
        )

        assert.isFalse(exists(chain, funding.account), "the funding account is closed")
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(hot)), hotTokens + 12_345_678n)
        const fee = feeOf(latestOf(prepared))
        assert.strictEqual(lamportsOf(chain, hot) - hotLamports, rentBack - fee)
        // the funding owner signs, holds nothing and pays nothing
        assert.strictEqual(lamportsOf(chain, new PublicKey(funding.source)), 0n)
        assertNative(found.native, { hotWallet: rentBack - fee, fundingAddress: 0n, fees: fee, rent: rentBack })

        // a later deposit to the same address opens the account again; the next sweep takes it
        chain.send(funding.source, 1n)
        yield* sweep(sweepOf(funding, "0.000001"))
        assert.isFalse(exists(chain, funding.account))
        assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(hot)), hotTokens + 12_345_679n)
      })
  )

  it.effect("a sweep to a treasury wallet without a token account creates it; the rents are accounted", () =>
    Effect.gen(function* () {
      const chain = yield* SolanaChain
      const hot = chain.hot.publicKey
      const treasury = freshDestination()
      const funding = yield* funded(7_000_000n)
      // a token account may carry lamports beyond its rent: the close returns them all
      chain.rpc.airdrop(funding.account, 1234n)
      const returned = lamportsOf(chain, funding.account)
      const hotLamports = lamportsOf(chain, hot)
      const hotTokens = chain.rpc.tokenBalance(chain.accountOf(hot))

      const { prepared, found } = yield* sweep(sweepOf(funding, "7", treasury))

      assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(treasury)), 7_000_000n)
      assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(hot)), hotTokens)
      assert.isFalse(exists(chain, funding.account))
      const paid = lamportsOf(chain, chain.accountOf(treasury))
      assert.strictEqual(paid, chain.rpc.svm.minimumBalanceForRentExemption(165n))
      const fee = feeOf(latestOf(prepared))
      assert.strictEqual(lamportsOf(chain, hot) - hotLamports, returned - paid - fee)
      assert.strictEqual(returned - paid, 1234n)
      assertNative(found.native, { hotWallet: 1234n - fee, fundingAddress: 0n, fees: fee, rent: 1234n })
    })
  )

  it.effect("more on the account than the sweep's amount: the amount moves, the account and the rest stay", () =>
    Effect.gen(function* () {
      const chain = yield* SolanaChain
      const hot = chain.hot.publicKey
      const funding = yield* funded(5_000_000n)
      const hotLamports = lamportsOf(chain, hot)
      const { prepared, found } = yield* sweep(sweepOf(funding, "3"))
      assert.strictEqual(chain.rpc.tokenBalance(funding.account), 2_000_000n)
      const fee = feeOf(latestOf(prepared))
      assert.strictEqual(lamportsOf(chain, hot) - hotLamports, -fee)
      assertNative(found.native, { hotWallet: -fee, fundingAddress: 0n, fees: fee, rent: 0n })
    })
  )

  it.effect("an expired sweep is signed again by the payout rules, once final; the new version lands once", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const hot = chain.hot.publicKey
      const funding = yield* funded(4_000_000n)
      const hotTokens = chain.rpc.tokenBalance(chain.accountOf(hot))
      const rentBack = lamportsOf(chain, funding.account)
      const first = yield* signSweep(sweepOf(funding, "4"))
      assert.strictEqual((yield* gateway.replacePayout(rail, first, "due"))._tag, "Waiting")
      assert.strictEqual((yield* Effect.flip(gateway.replacePayout(rail, first, "cancel"))).reason, "unsupported")

      // past its last valid height: it can no longer land, but that is not final yet
      chain.rpc.advance(latestOf(first).lastValidBlockHeight + 1 - chain.rpc.head())
      assert.strictEqual((yield* Effect.flip(gateway.broadcastPayout(rail, first))).reason, "blockhash_expired")
      assert.strictEqual((yield* gateway.replacePayout(rail, first, "due"))._tag, "Waiting")
      chain.rpc.advance(LitesvmRpc.finalizedLag)
      assert.deepStrictEqual(yield* gateway.lookupPayout(rail, first), { _tag: "Unknown" })

      // a row whose funding index was changed does not sign for another key
      const tampered = { ...first, persisted: JSON.stringify({ ...persistedOf(first), fundingIndex: freshIndex() }) }
      assert.strictEqual((yield* Effect.flip(gateway.replacePayout(rail, tampered, "due"))).reason, "invalid_prepared")

      const replaced = yield* gateway.replacePayout(rail, first, "due")
      if (replaced._tag !== "Replaced") return assert.fail(`not replaced: ${JSON.stringify(replaced)}`)
      const second = replaced.prepared
      const persisted = persistedOf(second)
      assert.strictEqual(persisted.kind, "sweep")
      assert.strictEqual(persisted.fundingIndex, funding.fundingIndex)
      assert.deepStrictEqual(
        persisted.versions.map((v) => v.signature),
        [first.transactionHash, second.transactionHash]
      )
      assert.isTrue(latestOf(second).computeUnitPrice > latestOf(first).computeUnitPrice)
      const inspected = yield* gateway.inspectPayout(rail, second)
      assert.strictEqual(inspected.versions.length, 2)

      yield* gateway.broadcastPayout(rail, second)
      const found = yield* confirmed(second)
      assert.strictEqual(found.transactionHash, second.transactionHash)
      assert.isFalse(exists(chain, funding.account))
      assert.strictEqual(chain.rpc.tokenBalance(chain.accountOf(hot)), hotTokens + 4_000_000n)
      // the raised price is charged on the whole limit, as the ledger books it
      const fee = feeOf(latestOf(second))
      assert.isTrue(fee > 10_000n)
      assertNative(found.native, { hotWallet: rentBack - fee, fundingAddress: 0n, fees: fee, rent: rentBack })
      const landed = chain.rpc.paidBy(hot).map((t) => t.signature)
      assert.isFalse(landed.includes(first.transactionHash))
      // the old version broadcast again cannot land: nothing moves twice
      assert.strictEqual((yield* Effect.flip(gateway.broadcastPayout(rail, first))).reason, "blockhash_expired")
    })
  )

  it.effect("sweeps that cannot be signed are refused before anything is signed", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const reason = (order: ChainGateway.SweepOrder) => Effect.map(Effect.flip(signSweep(order)), (e) => e.reason)
      const funding = yield* funded(2_000_000n)
      const message = yield* Effect.flip(signSweep(sweepOf(funding, "2.000001")))
      assert.strictEqual(message.reason, "insufficient_funds")
      assert.include(message.message, "holds 2 USDC")
      const empty = { fundingIndex: freshIndex(), source: "" }
      const emptySource = yield* gateway.fundingAddress(rail, empty.fundingIndex)
      assert.strictEqual(yield* reason(sweepOf({ ...empty, source: emptySource }, "1")), "insufficient_funds")
      assert.strictEqual(
        yield* reason({ ...sweepOf(funding, "1"), fundingIndex: funding.fundingIndex + 1 }),
        "invalid_address"
      )
      assert.strictEqual(yield* reason(sweepOf(funding, "1", new PublicKey(funding.source))), "invalid_address")
      assert.strictEqual(yield* reason(sweepOf(funding, "1", chain.mint)), "invalid_address")
      assert.strictEqual(yield* reason(sweepOf(funding, "0")), "invalid_amount")
      assert.strictEqual(yield* reason(sweepOf(funding, "1.0000001")), "invalid_amount")
      assert.strictEqual(yield* reason({ ...sweepOf(funding, "1"), fundingIndex: -1 }), "invalid_index")
      assert.strictEqual(
        yield* reason({ ...sweepOf(funding, "1"), rail: { ...rail, token: "USDT" } }),
        "unsupported_token"
      )
      assert.strictEqual(
        yield* reason({ ...sweepOf(funding, "1"), rail: { ...rail, environment: "production" } }),
        "unsupported_rail"
      )
      // nothing was signed or sent: the deposit is still there
      assert.strictEqual(chain.rpc.tokenBalance(funding.account), 2_000_000n)
    })
  )

  it.effect("balances of 250 addresses, some without a token account, in three calls, as read one by one", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const owners = Array.from({ length: 250 }, (_, i) => {
        const owner = freshDestination()
        if (i % 3 === 0) chain.send(owner, BigInt(i * 1_000_001 + 1))
        return owner
      })
      // a program-derived address owns a token account as a wallet does
      const pda = PublicKey.findProgramAddressSync(
        [Buffer.from(`vault-${crypto.randomUUID().slice(0, 8)}`)],
        chain.mint
      )[0]
      chain.send(pda, 42n)
      const addresses = [...owners, pda, chain.hot.publicKey].map((key) => key.toBase58())

      const before = chain.rpc.calls("getMultipleAccounts")
      const balances = yield* gateway.balances(rail, addresses)
      assert.strictEqual(chain.rpc.calls("getMultipleAccounts") - before, 3)
      assert.strictEqual(balances.length, addresses.length)
      addresses.forEach((address, i) => {
        const units = chain.rpc.tokenBalance(chain.accountOf(address))
        assert.isTrue(BigDecimal.equals(balances[i]!, Money.fromBaseUnits(units, decimals)), address)
      })
      assert.isTrue(BigDecimal.equals(balances[1]!, Money.zero))
      assert.isTrue(BigDecimal.equals(balances[3]!, Money.unsafe("3.000004")))
      assert.isTrue(BigDecimal.equals(balances[250]!, Money.unsafe("0.000042")))

      assert.deepStrictEqual(yield* gateway.balances(rail, []), [])
      assert.strictEqual(chain.rpc.calls("getMultipleAccounts") - before, 3)
      assert.strictEqual((yield* Effect.flip(gateway.balances(rail, ["0x12"]))).reason, "invalid_address")
      assert.strictEqual(
        (yield* Effect.flip(gateway.balances({ ...rail, environment: "production" }, addresses))).reason,
        "unsupported_rail"
      )
    })
  )

  it.effect(
    "native balances at the funding commitment, to the lamport, 100 a call; a sweep landed and not yet finalized is not counted",
    () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        const solana = { chain: "solana", environment: "sandbox" } as const
        const hot = chain.hot.publicKey
        const depthOf = (keys: ReadonlyArray<PublicKey>) =>
          gateway.nativeBalances(
            solana,
            keys.map((key) => key.toBase58())
          )
        const lamports = (balances: ReadonlyArray<Money.Decimal>) => balances.map((b) => Money.toBaseUnits(b, 9))
        chain.rpc.readAtCommitment(true)
        const owners = Array.from({ length: 150 }, freshDestination)
        for (const [i, owner] of owners.entries())
          if (i % 50 === 1) chain.rpc.airdrop(owner, BigInt(i) * 1_000_000_007n)
        // in the head slot: finalized once the head is 31 slots past it
        chain.rpc.advance(chain.depth - 2)
        assert.deepStrictEqual(lamports(yield* depthOf([owners[1]!, owners[51]!])), [0n, 0n])
        chain.rpc.advance(1)
        const before = chain.rpc.calls("getMultipleAccounts")
        const native = yield* depthOf([...owners, hot])
        assert.strictEqual(chain.rpc.calls("getMultipleAccounts") - before, 2)
        assert.deepStrictEqual(
          lamports(native),
          [...owners, hot].map((key) => lamportsOf(chain, key))
        )
        assert.deepStrictEqual(lamports([native[1]!, native[0]!, native[101]!]), [1_000_000_007n, 0n, 101_000_000_707n])
        assert.strictEqual(Money.format(native[1]!), "1.000000007")

        // a sweep into the hot wallet lands: its latest reading (`hotWallet`, at `confirmed`) has
        // the SOL and tokens it moved, the balances at the funding commitment not until it is final
        const funding = yield* funded(5_000_000n)
        chain.rpc.advance(chain.depth)
        const [hotLamports, hotTokens] = [lamportsOf(chain, hot), chain.rpc.tokenBalance(chain.accountOf(hot))]
        const prepared = yield* signSweep(sweepOf(funding, "5"))
        yield* gateway.broadcastPayout(rail, prepared)
        chain.rpc.advance(1)
        assert.notStrictEqual(lamportsOf(chain, hot), hotLamports)
        const reading = (yield* gateway.hotWallet(solana))!
        assert.deepStrictEqual(lamports(reading.balances.filter((b) => b.asset === "NATIVE").map((b) => b.amount)), [
          lamportsOf(chain, hot)
        ])
        const atDepth = Effect.all([
          Effect.map(depthOf([hot]), lamports),
          Effect.map(gateway.balances(rail, [hot.toBase58(), funding.source]), (b) =>
            b.map((units) => Money.toBaseUnits(units, decimals))
          )
        ])
        chain.rpc.advance(chain.depth - 3)
        assert.deepStrictEqual(yield* atDepth, [[hotLamports], [hotTokens, 5_000_000n]])
        chain.rpc.advance(1)
        assert.deepStrictEqual(yield* atDepth, [[lamportsOf(chain, hot)], [hotTokens + 5_000_000n, 0n]])

        assert.deepStrictEqual(yield* gateway.nativeBalances(solana, []), [])
        assert.strictEqual((yield* Effect.flip(gateway.nativeBalances(solana, ["0x12"]))).reason, "invalid_address")
        assert.strictEqual(
          (yield* Effect.flip(gateway.nativeBalances({ ...solana, environment: "production" }, []))).reason,
          "unsupported_rail"
        )
      }).pipe(
        Effect.ensuring(Effect.flatMap(SolanaChain, (chain) => Effect.sync(() => chain.rpc.readAtCommitment(false))))
      )
  )
})
