/**
 * Core's money loop on the real Solana gateway over litesvm, with adapters-store's memory store:
 * a forward funded by the customer's transfer is swept whole into the hot wallet (its token account
 * closed, the rent back to the hot wallet), exercised with a payout, its deposit refunded once to
 * the partner's refund address; the reconciliation finds the books and the chain agree to the
 * lamport and the token unit, while a sweep is landed and not yet final too (the chain read at the
 * depth the books follow, the hot wallet's balances as the funding addresses'), and a token sent
 * straight to the hot wallet is one difference of exactly that amount, once final, until it is
 * recorded.
 */
import { assert, layer } from "@effect/vitest"
import { MemoryStore } from "@ratelock/adapters-store"
import {
  ContractRepo,
  Contracts,
  Funding,
  IdGenerator,
  Inbound,
  MarketData,
  Money,
  MovementRepo,
  Movements,
  type Partner,
  PartnerRepo,
  Payouts,
  QuoteRequest,
  Quotes,
  Reconciliation,
  Requests,
  SettlementRails,
  Sweeps
} from "@ratelock/core"
import { Keypair } from "@solana/web3.js"
import { DateTime, Duration, Effect, Layer, Option, Schema } from "effect"
import { SolanaChain, layer as solana } from "../support/solanaTestChain.ts"

const scope: Partner.PartnerScope = { partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0042", environment: "sandbox" }
const onlySolana: SettlementRails.SettlementRailsShape = {
  supports: (environment, chain, token) => environment === "sandbox" && chain === "solana" && token === "USDC"
}

const world = Layer.mergeAll(
  solana,
  MemoryStore.layerMemory,
  MarketData.MarketData.layerDefaults,
  IdGenerator.IdGenerator.layerTest,
  Layer.succeed(SettlementRails.SettlementRails, onlySolana),
  // each round advances the chain, not the clock: a movement is looked up again every round
  Layer.succeed(Movements.LookEvery, Duration.zero)
)

/** Every pass that moves money, with a slot between each, until `done` holds (or 40 rounds). */
const roundsUntil = <E, R>(done: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    const chain = yield* SolanaChain
    for (let i = 0; i < 40; i++) {
      yield* Funding.confirmFunding()
      yield* Payouts.runDue()
      yield* Sweeps.plan()
      yield* Movements.runDue()
      if (yield* done) return
      chain.rpc.advance(4)
    }
    assert.fail("the money loop did not finish in 40 rounds")
  })

const lamportsOf = (
  chain: { readonly rpc: { readonly svm: { getBalance: (a: never) => bigint | null } } },
  key: string
) => chain.rpc.svm.getBalance(key as never) ?? 0n

const contractOf = (id: string) =>
  ContractRepo.ContractRepo.use((r) => r.findById(id)).pipe(Effect.map(Option.getOrThrow))

layer(world, { excludeTestServices: true, timeout: "120 seconds" })("the money loop on litesvm", (it) => {
  it.effect("swept and closed, a deposit refunded once, the books and the chain agree", () =>
    Effect.gen(function* () {
      const chain = yield* SolanaChain
      // account reads at their commitment, as a cluster answers them: the reconciliation's balances
      // at `finalized` do not have what landed in the last 31 slots
      chain.rpc.readAtCommitment(true)
      const refundOwner = Keypair.generate().publicKey.toBase58()
      const customer = Keypair.generate().publicKey.toBase58()
      const hot = chain.hot.publicKey
      const lamportsBefore = lamportsOf(chain, hot.toBase58())
      // the hot wallet's opening balances are the operator's money
      for (const [currency, amount] of [
        ["USDC", Money.fromBaseUnits(chain.rpc.tokenBalance(chain.accountOf(hot)), 6)],
        ["SOL", Money.fromBaseUnits(lamportsBefore, 9)]
      ] as const) {
        yield* Reconciliation.recordInflow({
          environment: "sandbox",
          chain: "solana",
          wallet: "hot_wallet",
          currency,
          amount,
          as: "topup"
        })
      }
      yield* PartnerRepo.PartnerRepo.use((r) =>
        r.insertPartner({ id: scope.partnerId, name: "Sol Pay", createdAt: DateTime.makeUnsafe(Date.now()) })
      )
      yield* PartnerRepo.PartnerRepo.use((r) =>
        r.saveRefundAddress({
          partnerId: scope.partnerId,
          environment: "sandbox",
          chain: "solana",
          address: refundOwner,
          updatedAt: DateTime.makeUnsafe(Date.now())
        })
      )

      const now = DateTime.makeUnsafe(Date.now())
      const quote = yield* Quotes.create(
        scope,
        Schema.decodeUnknownSync(QuoteRequest.QuoteRequest)(
          Requests.quoteAt(now, {
            contract_type: "forward",
            chain: "solana",
            settlement_currency: "USDC",
            customer_reference_id: "cust-solana"
          })
        )
      )
      const contract = yield* Contracts.create(scope, { quote_id: quote.id })
      const fundingAccount = chain.accountOf(contract.funding_wallet_address)
      chain.send(contract.funding_wallet_address, Money.toBaseUnits(contract.total_amount, 6))
      const hotTokensBefore = chain.rpc.tokenBalance(chain.accountOf(hot))

      // swept whole into the hot wallet, the funding account closed
      const repo = yield* MovementRepo.MovementRepo
      const sweeps = repo.list({ kinds: ["sweep"], limit: 10 })
      // the sweep landed (confirmed a slot later), not yet finalized: the workers have not booked it,
      // and the reconciliation, reading the hot wallet at the depth the books follow, finds nothing
      yield* roundsUntil(Effect.map(sweeps, (s) => s.length === 1 && s[0]!.status === "prepared"))
      chain.rpc.advance(1)
      const landed = (yield* sweeps)[0]!
      assert.strictEqual(landed.status, "prepared")
      assert.isTrue(chain.rpc.paidBy(hot).some((t) => t.signature === landed.transactionHash && t.err === null))
      assert.notStrictEqual(chain.rpc.tokenBalance(chain.accountOf(hot)), hotTokensBefore, "the sweep moved the tokens")
      const mined = yield* Reconciliation.reconcileRail("sandbox", "solana")
      assert.strictEqual(mined.error, null)
      assert.deepStrictEqual(
        mined.differences.map((d) => [d.wallet, d.currency, Money.format(d.difference)]),
        []
      )
      // the funding address, the hot wallet's USDC at one `balances` call, where it is (`hotWallet`), its SOL
      assert.deepStrictEqual([mined.checked, mined.chainCalls], [3, 3])
      yield* roundsUntil(Effect.map(sweeps, (s) => s.length === 1 && s[0]!.status === "confirmed"))
      assert.strictEqual(lamportsOf(chain, fundingAccount.toBase58()), 0n, "the funding token account is closed")
      assert.strictEqual(
        chain.rpc.tokenBalance(chain.accountOf(hot)) - hotTokensBefore,
        Money.toBaseUnits(contract.total_amount, 6)
      )

      // exercised: the customer paid, the deposit back at the refund address once
      yield* Inbound.ingest(scope, {
        idempotencyKey: `exercise-${contract.id}`,
        event: {
          event_type: "contract_exercised",
          fx_contract_id: contract.id,
          executed_at: DateTime.makeUnsafe(Date.now()),
          live_execution_rate: Money.unsafe("5.10"),
          payout_wallet_address: customer,
          chain: "solana"
        },
        payload: {}
      })
      const refunds = repo.list({ kinds: ["refund"], limit: 10 })
      yield* roundsUntil(
        Effect.gen(function* () {
          const found = yield* refunds
          return (
            (yield* contractOf(contract.id)).status === "settled" &&
            found.length === 1 &&
            found[0]!.status === "confirmed"
          )
        })
      )
      assert.strictEqual(
        chain.rpc.tokenBalance(chain.accountOf(refundOwner)),
        Money.toBaseUnits(contract.deposit_amount!, 6)
      )

      // the books and the chain agree, to the lamport
      chain.rpc.advance(chain.depth)
      const clean = yield* Reconciliation.reconcileRail("sandbox", "solana")
      assert.strictEqual(clean.error, null)
      assert.deepStrictEqual(
        clean.differences.map((d) => [d.wallet, d.currency, Money.format(d.difference)]),
        []
      )

      // 5 USDC straight into the hot wallet: one difference once final, until recorded
      chain.send(hot, 5_000_000n)
      chain.rpc.advance(1)
      assert.deepStrictEqual((yield* Reconciliation.reconcileRail("sandbox", "solana")).differences, [])
      chain.rpc.advance(chain.depth)
      const found = yield* Reconciliation.reconcileRail("sandbox", "solana")
      assert.deepStrictEqual(
        found.differences.map((d) => [d.wallet, d.currency, Money.toBaseUnits(d.difference, 6)]),
        [["hot_wallet", "USDC", 5_000_000n]]
      )
      yield* Reconciliation.recordInflow({
        environment: "sandbox",
        chain: "solana",
        wallet: "hot_wallet",
        currency: "USDC",
        amount: Money.unsafe("5"),
        as: "unmatched"
      })
      assert.deepStrictEqual((yield* Reconciliation.reconcileRail("sandbox", "solana")).differences, [])
    })
  )
})
