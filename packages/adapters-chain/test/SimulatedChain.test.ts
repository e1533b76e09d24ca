import { assert, describe, it } from "@effect/vitest"
import { ChainGateway, Money, type Rail } from "@ratelock/core"
import { Effect } from "effect"
import * as Base58 from "../src/internal/base58.ts"
import * as ChainRouter from "../src/ChainRouter.ts"
import * as SimulatedChain from "../src/SimulatedChain.ts"

const rail = (chain: Rail.Chain, environment: "sandbox" | "production" = "sandbox"): ChainGateway.Rail => ({
  chain,
  environment,
  token: "USDC"
})
const evmAddress = /^0x[0-9a-f]{40}$/
const evmHash = /^0x[0-9a-f]{64}$/
const amount = Money.unsafe

const withChain = <A, E>(
  f: (chain: SimulatedChain.SimulatedChainShape) => Effect.Effect<A, E, ChainGateway.ChainGateway>
) => Effect.provide(SimulatedChain.SimulatedChain.use(f), SimulatedChain.layer)

describe("base58", () => {
  it("round-trips and keeps leading zero bytes as '1'", () => {
    const bytes = Uint8Array.from([0, 0, 1, 2, 255, 128])
    assert.deepStrictEqual(Base58.decode(Base58.encode(bytes)), bytes)
    assert.strictEqual(Base58.encode(Uint8Array.from([0, 0, 0])), "111")
    // a known vector: "hello world"
    assert.strictEqual(Base58.encode(new TextEncoder().encode("hello world")), "StV1DL6CwTryKyV")
    assert.isUndefined(Base58.decode("0OIl"))
  })
})

describe("SimulatedChain", () => {
  it.effect("funding addresses are well-formed per chain", () =>
    withChain((chain) =>
      Effect.gen(function* () {
        assert.match(yield* chain.fundingAddress(rail("ethereum"), 0), evmAddress)
        assert.match(yield* chain.fundingAddress(rail("polygon"), 0), evmAddress)
        const solana = yield* chain.fundingAddress(rail("solana"), 0)
        assert.match(solana, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
        assert.strictEqual(Base58.decode(solana)?.length, 32)
      })
    )
  )

  it.effect("addresses are deterministic and distinct by index, chain and environment", () =>
    Effect.gen(function* () {
      const first = yield* withChain((chain) => chain.fundingAddress(rail("ethereum"), 7))
      const again = yield* withChain((chain) => chain.fundingAddress(rail("ethereum"), 7))
      assert.strictEqual(first, again)
      const others = yield* withChain((chain) =>
        Effect.all([
          chain.fundingAddress(rail("ethereum"), 8),
          chain.fundingAddress(rail("ethereum", "production"), 7),
          chain.fundingAddress(rail("polygon"), 7)
        ])
      )
      assert.strictEqual(new Set([first, ...others]).size, 4)
    })
  )

  it.effect("refuses a negative or fractional HD index", () =>
    withChain((chain) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(chain.fundingAddress(rail("solana"), -1))
        assert.strictEqual(error.reason, "invalid_index")
        assert.strictEqual((yield* Effect.flip(chain.fundingAddress(rail("solana"), 1.5))).reason, "invalid_index")
      })
    )
  )

  it.effect("funding is observed after the cursor, per address, token and network", () =>
    withChain((chain) =>
      Effect.gen(function* () {
        const eth = rail("ethereum")
        const address = yield* chain.fundingAddress(eth, 0)
        const other = yield* chain.fundingAddress(eth, 1)

        const empty = yield* chain.observeFunding(eth, address, null)
        assert.deepStrictEqual(empty.transfers, [])

        const t1 = yield* chain.fund(eth, address, amount("10.5"))
        yield* chain.fund(eth, other, amount("3"))
        yield* chain.fund({ ...eth, token: "USDT" }, address, amount("4"))
        yield* chain.fund(rail("ethereum", "production"), address, amount("5"))
        assert.match(t1.transactionHash, evmHash)
        assert.strictEqual(t1.blockNumber, 1)

        const first = yield* chain.observeFunding(eth, address, empty.cursor)
        assert.deepStrictEqual(
          first.transfers.map((t) => [t.transactionHash, Money.format(t.amount)]),
          [[t1.transactionHash, "10.5"]]
        )
        // nothing new after the returned cursor, even from a checksummed spelling of the address
        const none = yield* chain.observeFunding(eth, address.toUpperCase().replace("0X", "0x"), first.cursor)
        assert.deepStrictEqual(none.transfers, [])

        const t2 = yield* chain.fund(eth, address, amount("2"))
        const second = yield* chain.observeFunding(eth, address, first.cursor)
        assert.deepStrictEqual(
          second.transfers.map((t) => t.transactionHash),
          [t2.transactionHash]
        )
        assert.isTrue(Number(second.cursor) > Number(first.cursor))
        assert.notStrictEqual(t1.transactionHash, t2.transactionHash)
      })
    )
  )

  it.effect("solana transfers carry a base58 64-byte signature", () =>
    withChain((chain) =>
      Effect.gen(function* () {
        const sol = rail("solana")
        const address = yield* chain.fundingAddress(sol, 3)
        const transfer = yield* chain.fund(sol, address, amount("1"))
        assert.strictEqual(Base58.decode(transfer.transactionHash)?.length, 64)
        const seen = yield* chain.observeFunding(sol, address, null)
        assert.strictEqual(seen.transfers.length, 1)
      })
    )
  )

  it.effect("checkAddress: a payout's form per chain, EVM stored lowercase; the same rule refuses a payout", () =>
    withChain((chain) =>
      Effect.gen(function* () {
        const on = (c: Rail.Chain, environment: "sandbox" | "production" = "sandbox") => ({ chain: c, environment })
        const mixed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
        for (const c of ["ethereum", "polygon"] as const) {
          assert.strictEqual(yield* chain.checkAddress(on(c), mixed), mixed.toLowerCase())
          assert.strictEqual(yield* chain.checkAddress(on(c, "production"), mixed), mixed.toLowerCase())
        }
        const solana = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
        assert.strictEqual(yield* chain.checkAddress(on("solana"), solana), solana)
        // the simulated chain checks the form only, as it does a payout's destination: no checksum,
        // and the zero address is an address like any other
        assert.strictEqual(
          yield* chain.checkAddress(on("ethereum"), "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"),
          mixed.toLowerCase()
        )
        const zero = "0x0000000000000000000000000000000000000000"
        assert.strictEqual(yield* chain.checkAddress(on("ethereum"), zero), zero)
        const refusals: ReadonlyArray<readonly [Rail.Chain, string]> = [
          ["ethereum", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea"],
          ["ethereum", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg"],
          ["polygon", solana],
          ["solana", mixed],
          ["solana", solana.slice(0, -4)],
          ["ethereum", ""]
        ]
        for (const [c, address] of refusals) {
          const refused = yield* Effect.flip(chain.checkAddress(on(c), address))
          assert.strictEqual(refused.reason, "invalid_address", `${c} ${address}`)
          assert.include(refused.message, c === "solana" ? "base58 of 32 bytes" : "0x and 40 hex digits")
          // a payout to it is refused alike
          const payout = yield* Effect.flip(
            chain.preparePayout({
              payoutId: `p-${c}-${address}`,
              rail: rail(c),
              destination: address,
              amount: amount("1"),
              committed: Money.zero
            })
          )
          assert.strictEqual(payout.reason, "invalid_address")
        }
      })
    )
  )

  it.effect("refuses malformed addresses, cursors, amounts and unissued tokens", () =>
    withChain((chain) =>
      Effect.gen(function* () {
        const eth = rail("ethereum")
        const address = yield* chain.fundingAddress(eth, 0)
        assert.strictEqual((yield* Effect.flip(chain.fund(eth, "0x1234", amount("1")))).reason, "invalid_address")
        assert.strictEqual(
          (yield* Effect.flip(chain.fund(rail("solana"), address, amount("1")))).reason,
          "invalid_address"
        )
        assert.strictEqual((yield* Effect.flip(chain.fund(eth, address, amount("0")))).reason, "invalid_amount")
        const eurcOnPolygon = { chain: "polygon", environment: "sandbox", token: "EURC" } as const
        assert.strictEqual(
          (yield* Effect.flip(chain.fund(eurcOnPolygon, address, amount("1")))).reason,
          "unsupported_token"
        )
        assert.strictEqual((yield* Effect.flip(chain.observeFunding(eth, address, "abc"))).reason, "invalid_cursor")
      })
    )
  )

  it.effect("payouts: prepare is deterministic, broadcast confirms, a second broadcast is harmless", () =>
    withChain((chain) =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const pol = rail("polygon")
        const destination = yield* chain.fundingAddress(pol, 42)
        const order = {
          payoutId: "payout-1",
          rail: pol,
          destination,
          amount: amount("12.345678"),
          committed: Money.zero
        }

        const prepared = yield* gateway.preparePayout(order)
        assert.match(prepared.transactionHash, evmHash)
        assert.deepStrictEqual(yield* gateway.preparePayout(order), prepared)
        assert.notStrictEqual(
          (yield* gateway.preparePayout({ ...order, payoutId: "payout-2" })).transactionHash,
          prepared.transactionHash
        )
        assert.deepStrictEqual(yield* gateway.lookupPayout(pol, prepared), { _tag: "Unknown" })

        yield* gateway.broadcastPayout(pol, prepared)
        const confirmed = yield* gateway.lookupPayout(pol, prepared)
        assert.strictEqual(confirmed._tag, "Confirmed")

        yield* gateway.broadcastPayout(pol, prepared)
        assert.deepStrictEqual(yield* gateway.lookupPayout(pol, prepared), confirmed)
      })
    )
  )

  it.effect("a rejected payout fails its lookup and the next attempt gets a new transaction", () =>
    withChain((chain) =>
      Effect.gen(function* () {
        const sol = rail("solana")
        const destination = yield* chain.fundingAddress(sol, 1)
        const order = { payoutId: "payout-9", rail: sol, destination, amount: amount("1"), committed: Money.zero }
        const first = yield* chain.preparePayout(order)
        assert.strictEqual(Base58.decode(first.transactionHash)?.length, 64)
        yield* chain.failNextPayout
        yield* chain.broadcastPayout(sol, first)
        assert.strictEqual((yield* chain.lookupPayout(sol, first))._tag, "Failed")

        const second = yield* chain.preparePayout(order)
        assert.notStrictEqual(second.transactionHash, first.transactionHash)
        yield* chain.broadcastPayout(sol, second)
        assert.strictEqual((yield* chain.lookupPayout(sol, second))._tag, "Confirmed")
      })
    )
  )

  it.effect("refuses to broadcast what it did not prepare", () =>
    withChain((chain) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          chain.broadcastPayout(rail("ethereum"), { transactionHash: "0x00", persisted: "garbage" })
        )
        assert.strictEqual(error.reason, "invalid_prepared")
      })
    )
  )
})

describe("ChainRouter", () => {
  it.effect("checkAddress goes to the rail's gateway; a rail without one is unsupported_rail", () =>
    withChain((sim) =>
      Effect.gen(function* () {
        const router = ChainRouter.make({
          sandbox: undefined,
          production: { polygon: sim }
        })
        const address = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
        assert.strictEqual(
          yield* router.checkAddress({ chain: "polygon", environment: "production" }, address),
          address.toLowerCase()
        )
        for (const rail of [
          { chain: "ethereum", environment: "production" },
          { chain: "polygon", environment: "sandbox" }
        ] as const) {
          const refused = yield* Effect.flip(router.checkAddress(rail, address))
          assert.strictEqual(refused.reason, "unsupported_rail")
          assert.strictEqual(refused.message, `${rail.chain} is not enabled for ${rail.environment}`)
        }
      })
    )
  )
})

describe("ChainRouter: balances and sweeps", () => {
  it.effect(
    "balances, fundingKeys and draftSweep go to the rail's gateway; a rail without one is unsupported_rail",
    () =>
      withChain((sim) =>
        Effect.gen(function* () {
          const router = ChainRouter.make({ sandbox: ChainRouter.everyChain(sim), production: undefined })
          const sol = rail("solana")
          const source = yield* sim.fundingAddress(sol, 5)
          yield* sim.fund(sol, source, amount("2.5"))
          assert.deepStrictEqual((yield* router.balances(sol, [source])).map(Money.format), ["2.5"])
          assert.strictEqual(yield* router.fundingKeys(sol), "held")
          const order = {
            sweepId: "sweep-1",
            rail: sol,
            source,
            fundingIndex: 5,
            destination: null,
            amount: amount("2.5")
          }
          const draft = yield* router.draftSweep(order)
          const prepared = yield* draft.sign(null)
          yield* router.broadcastPayout(sol, prepared)
          assert.strictEqual((yield* router.lookupPayout(sol, prepared))._tag, "Confirmed")
          assert.deepStrictEqual((yield* router.balances(sol, [source])).map(Money.format), ["0"])

          const production = rail("solana", "production")
          const refusals = yield* Effect.all([
            Effect.flip(router.balances(production, [source])),
            Effect.flip(router.fundingKeys(production)),
            Effect.flip(router.draftSweep({ ...order, rail: production }))
          ])
          assert.deepStrictEqual(
            refusals.map((e) => e.reason),
            ["unsupported_rail", "unsupported_rail", "unsupported_rail"]
          )
        })
      )
  )
})
