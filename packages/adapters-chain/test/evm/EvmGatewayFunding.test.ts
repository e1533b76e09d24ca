import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import { Effect, Layer } from "effect"
import type { Address } from "viem"
import { Anvil } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { depth, EvmFixture, fixture, funderIndex, gateway } from "../support/evmTestChain.ts"

const usdc: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }
const units = (amount: string) => Money.toBaseUnits(Money.unsafe(amount))

let nextIndex = 0
/** A funding address no other test of this file watches, and where a scan from now would start. */
const freshAddress = Effect.gen(function* () {
  const g = yield* ChainGateway.ChainGateway
  const address = (yield* g.fundingAddress(usdc, nextIndex++)) as Address
  const start = yield* g.observeFunding(usdc, address, null)
  assert.deepStrictEqual(start.transfers, [])
  return { address, cursor: start.cursor }
})

/** Sends `amount` of `token` from the funder, in its own block. */
const send = (token: "usdc" | "usdt" | "other", to: Address, amount: string) =>
  Effect.gen(function* () {
    const anvil = yield* Anvil
    const f = yield* EvmFixture
    const receipt = yield* Erc20.transfer(anvil.client, anvil.account(funderIndex), f[token], to, units(amount))
    return { transactionHash: receipt.transactionHash, blockNumber: Number(receipt.blockNumber) }
  })

const mine = (blocks: number) => Effect.flatMap(Anvil, (anvil) => anvil.mine(blocks))
const observe = (address: string, cursor: string | null) =>
  Effect.flatMap(ChainGateway.ChainGateway, (g) => g.observeFunding(usdc, address, cursor))
const keys = (o: ChainGateway.FundingObservation) => o.transfers.map((t) => `${t.transactionHash}:${t.index}`)

layer(gateway().pipe(Layer.provideMerge(fixture)), { excludeTestServices: true })(
  "EvmGateway funding (anvil)",
  (it) => {
    it.effect("a transfer is reported once it has the configured depth, and only once", () =>
      Effect.gen(function* () {
        const { address, cursor } = yield* freshAddress
        const sent = yield* send("usdc", address, "10.5")

        // depth 1, then 2: not yet, and the cursor stays below the transfer's block
        const early = yield* observe(address, cursor)
        assert.deepStrictEqual(early.transfers, [])
        assert.isBelow(Number(early.cursor), sent.blockNumber)
        yield* mine(depth - 2)
        const almost = yield* observe(address, early.cursor)
        assert.deepStrictEqual(almost.transfers, [])
        assert.isBelow(Number(almost.cursor), sent.blockNumber)

        yield* mine(1)
        const seen = yield* observe(address, almost.cursor)
        assert.strictEqual(seen.transfers.length, 1)
        const transfer = seen.transfers[0]!
        assert.strictEqual(transfer.transactionHash, sent.transactionHash)
        assert.strictEqual(transfer.blockNumber, sent.blockNumber)
        assert.isTrue(Money.equals(transfer.amount, Money.unsafe("10.5")))
        assert.deepStrictEqual(seen.stray, [])
        assert.strictEqual(Number(seen.cursor), sent.blockNumber)

        // from the returned cursor, nothing again, even with a checksummed spelling
        yield* mine(5)
        const again = yield* observe(`0x${address.slice(2).toUpperCase()}`, seen.cursor)
        assert.deepStrictEqual(again.transfers, [])
      })
    )

    it.effect("partial payments: each transfer reported, keyed by transaction and log index", () =>
      Effect.gen(function* () {
        const { address, cursor } = yield* freshAddress
        const first = yield* send("usdc", address, "3")
        const second = yield* send("usdc", address, "4.5")
        yield* mine(depth)
        const seen = yield* observe(address, cursor)
        assert.deepStrictEqual(
          seen.transfers.map((t) => t.transactionHash),
          [first.transactionHash, second.transactionHash]
        )
        assert.strictEqual(Money.format(Money.sum(seen.transfers[0]!.amount, seen.transfers[1]!.amount)), "7.5")
        // observing again from an earlier cursor (a crash before the cursor was saved) reports the same keys
        const replay = yield* observe(address, cursor)
        assert.deepStrictEqual(keys(replay), keys(seen))
        assert.strictEqual(new Set(keys(seen)).size, 2)
        // and from null (a new contract), too
        assert.deepStrictEqual(keys(yield* observe(address, null)), keys(seen))
      })
    )

    it.effect("a transfer reorganised away before depth is never reported", () =>
      Effect.gen(function* () {
        const anvil = yield* Anvil
        const { address, cursor } = yield* freshAddress
        const sent = yield* send("usdc", address, "99")
        assert.deepStrictEqual((yield* observe(address, cursor)).transfers, [])
        // replace the transfer's block by an empty one, then bury it
        yield* Effect.promise(() => anvil.client.request({ method: "anvil_reorg" as never, params: [1, []] as never }))
        yield* mine(depth + 2)
        const after = yield* observe(address, cursor)
        assert.deepStrictEqual(after.transfers, [])
        assert.isAtLeast(Number(after.cursor), sent.blockNumber)
        assert.deepStrictEqual((yield* observe(address, null)).transfers, [])
        const receipt = yield* Effect.promise(() =>
          anvil.client.getTransactionReceipt({ hash: sent.transactionHash }).then(
            () => "found",
            () => "gone"
          )
        )
        assert.strictEqual(receipt, "gone")
      })
    )

    it.effect("another token's transfer is stray, not funding", () =>
      Effect.gen(function* () {
        const f = yield* EvmFixture
        const { address, cursor } = yield* freshAddress
        const other = yield* send("other", address, "7")
        const usdt = yield* send("usdt", address, "2")
        const real = yield* send("usdc", address, "1")
        yield* mine(depth)
        const seen = yield* observe(address, cursor)
        assert.deepStrictEqual(
          seen.transfers.map((t) => t.transactionHash),
          [real.transactionHash]
        )
        assert.deepStrictEqual(
          seen.stray?.map((s) => [s.transactionHash, s.token, s.baseUnits, s.blockNumber]),
          [
            [other.transactionHash, f.other, "7000000", other.blockNumber],
            [usdt.transactionHash, f.usdt, "2000000", usdt.blockNumber]
          ]
        )
      })
    )

    it.effect("scans in pages of maxLogRange blocks, resuming from the cursor", () =>
      Effect.gen(function* () {
        const { address, cursor } = yield* freshAddress
        const sent = []
        for (const amount of ["1", "2", "3"]) {
          sent.push(yield* send("usdc", address, amount))
          yield* mine(3)
        }
        yield* mine(depth)
        const g = yield* ChainGateway.ChainGateway
        const anvil = yield* Anvil
        const safe = (yield* anvil.head) - depth + 1
        const seen: Array<string> = []
        let at = cursor
        let calls = 0
        while (Number(at) < safe) {
          const page = yield* g.observeFunding(usdc, address, at)
          assert.isAbove(Number(page.cursor), Number(at))
          seen.push(...page.transfers.map((t) => t.transactionHash))
          at = page.cursor
          calls++
        }
        assert.deepStrictEqual(
          seen,
          sent.map((s) => s.transactionHash)
        )
        assert.strictEqual(calls, 1) // 20 pages of 2 blocks cover this in one call
      }).pipe(Effect.provide(gateway({ maxLogRange: 2 })))
    )

    it.effect("a new contract's first observation looks back lookbackBlocks", () =>
      Effect.gen(function* () {
        const { address } = yield* freshAddress
        const sent = yield* send("usdc", address, "5")
        yield* mine(depth + 3)
        const g = yield* ChainGateway.ChainGateway
        assert.deepStrictEqual(
          (yield* g.observeFunding(usdc, address, null)).transfers.map((t) => t.transactionHash),
          [sent.transactionHash]
        )
        const short = yield* ChainGateway.ChainGateway.use((g2) => g2.observeFunding(usdc, address, null)).pipe(
          Effect.provide(gateway({ lookbackBlocks: 2 }))
        )
        assert.deepStrictEqual(short.transfers, [])
      })
    )

    it.effect("refuses malformed cursors and addresses, other rails and tokens", () =>
      Effect.gen(function* () {
        const g = yield* ChainGateway.ChainGateway
        const { address } = yield* freshAddress
        const reason = (rail: ChainGateway.Rail, to: string, cursor: string | null) =>
          Effect.map(Effect.flip(g.observeFunding(rail, to, cursor)), (e) => e.reason)
        assert.strictEqual(yield* reason(usdc, address, "abc"), "invalid_cursor")
        assert.strictEqual(yield* reason(usdc, address, "-1"), "invalid_cursor")
        assert.strictEqual(yield* reason(usdc, "0x1234", null), "invalid_address")
        assert.strictEqual(yield* reason({ ...usdc, environment: "production" }, address, null), "unsupported_rail")
        assert.strictEqual(yield* reason({ ...usdc, chain: "polygon" }, address, null), "unsupported_rail")
        assert.strictEqual(yield* reason({ ...usdc, token: "EURC" }, address, null), "unsupported_token")
      })
    )
  }
)
