/**
 * The chain for end-to-end tests: `@ratelock/adapters-chain`'s simulated chain (well-formed
 * addresses and hashes, transfers the test records, payouts that confirm once broadcast), with
 * two hooks on `fundingAddress`: `holdFundingAddress` keeps contract creation waiting, so a test
 * can catch a request in flight; `breakNextFundingAddress` makes the next call fail
 * (`ChainError`) or die.
 */
import { SimulatedChain } from "@ratelock/adapters-chain"
import { ChainGateway } from "@ratelock/core"
import { Context, Deferred, Effect, Layer, Ref } from "effect"

export class ChainHooks extends Context.Service<
  ChainHooks,
  {
    /** Contract creation waits on `fundingAddress` until the returned effect runs. */
    readonly holdFundingAddress: Effect.Effect<Effect.Effect<void>>
    readonly breakNextFundingAddress: (how: "fail" | "die") => Effect.Effect<void>
  }
>()("test/ChainHooks") {}

export const layer: Layer.Layer<ChainHooks | SimulatedChain.SimulatedChain | ChainGateway.ChainGateway> =
  Layer.effectContext(
    Effect.gen(function* () {
      const simulated = yield* SimulatedChain.SimulatedChain
      const hold = yield* Ref.make<Deferred.Deferred<void> | undefined>(undefined)
      const broken = yield* Ref.make<"fail" | "die" | undefined>(undefined)

      const gateway = ChainGateway.ChainGateway.of({
        ...simulated,
        fundingAddress: (rail, index) =>
          Effect.gen(function* () {
            const gate = yield* Ref.get(hold)
            if (gate !== undefined) yield* Deferred.await(gate)
            const how = yield* Ref.getAndSet(broken, undefined)
            if (how === "die")
              return yield* Effect.die(new Error("stub chain: SELECT * FROM secrets; at Stub.line(42)"))
            if (how === "fail") {
              return yield* new ChainGateway.ChainError({
                chain: rail.chain,
                reason: "rpc_unavailable",
                message: "rpc at 10.0.0.7 refused"
              })
            }
            return yield* simulated.fundingAddress(rail, index)
          })
      })

      const hooks = ChainHooks.of({
        holdFundingAddress: Effect.gen(function* () {
          const gate = yield* Deferred.make<void>()
          yield* Ref.set(hold, gate)
          return Effect.andThen(Ref.set(hold, undefined), Deferred.succeed(gate, undefined))
        }),
        breakNextFundingAddress: (how) => Ref.set(broken, how)
      })
      return Context.make(ChainGateway.ChainGateway, gateway).pipe(
        Context.add(ChainHooks, hooks),
        Context.add(SimulatedChain.SimulatedChain, simulated)
      )
    })
  ).pipe(Layer.provide(SimulatedChain.layer))
