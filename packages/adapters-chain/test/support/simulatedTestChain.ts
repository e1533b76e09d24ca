/**
 * The simulated chain as a `TestChain`: it confirms at once (depth 1), so `advance` has nothing
 * to do; a balance is what confirmed payouts paid into an address (the harness watches what is
 * broadcast); "draining" the hot wallet makes the chain reject the next payout, as a real chain
 * rejects one it cannot fund.
 */
import { ChainGateway, Money } from "@ratelock/core"
import { Effect, Layer, Option, Ref } from "effect"
import * as Ledger from "../../src/internal/ledger.ts"
import * as Simulated from "../../src/SimulatedChain.ts"
import { TestChain } from "./TestChain.ts"

const rail: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }

let nextDestination = 900_000_000 + Math.floor(Math.random() * 1e8)

const make = Effect.gen(function* () {
  const sim = yield* Simulated.SimulatedChain
  const broadcasts = yield* Ref.make<ReadonlyArray<ChainGateway.PreparedPayout>>([])

  const gateway = ChainGateway.ChainGateway.of({
    ...sim,
    broadcastPayout: (payoutRail, prepared) =>
      Effect.tap(sim.broadcastPayout(payoutRail, prepared), () => Ref.update(broadcasts, (all) => [...all, prepared]))
  })

  const balanceOf = Effect.fn("SimulatedTestChain.balanceOf")(function* (address: string) {
    const paid = new Map<string, Money.Decimal>()
    for (const prepared of yield* Ref.get(broadcasts)) {
      const order = Option.getOrUndefined(Ledger.decodePrepared(prepared.persisted))
      if (order === undefined || order.destination !== address) continue
      const found = yield* Effect.orDie(sim.lookupPayout(rail, prepared))
      if (found._tag === "Confirmed") paid.set(prepared.transactionHash, Money.unsafe(order.amount))
    }
    return [...paid.values()].reduce(Money.sum, Money.zero)
  })

  const testChain = TestChain.of({
    rail,
    depth: 1,
    fund: (address, amount) => Effect.orDie(sim.fund(rail, address, amount)),
    advance: () => Effect.void,
    balanceOf,
    freshDestination: Effect.orDie(Effect.suspend(() => sim.fundingAddress(rail, nextDestination++))),
    drainHotWallet: sim.failNextPayout,
    refillHotWallet: Effect.void
  })
  return { gateway, testChain }
})

/** The simulated chain behind core's port, with its harness. */
export const layer: Layer.Layer<ChainGateway.ChainGateway | TestChain> = Layer.unwrap(
  Effect.map(make, ({ gateway, testChain }) =>
    Layer.merge(Layer.succeed(ChainGateway.ChainGateway, gateway), Layer.succeed(TestChain, testChain))
  )
).pipe(Layer.provide(Simulated.layer))
