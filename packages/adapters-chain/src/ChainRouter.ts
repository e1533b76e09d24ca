/**
 * One `ChainGateway` over several: each call goes to the gateway of its rail's environment and
 * chain (the simulated chain for the sandbox, the real ones for production). A rail with no
 * gateway fails with `unsupported_rail`, never reaches another network.
 */
import { ChainGateway, type Partner, type Rail } from "@ratelock/core"
import { Effect } from "effect"
import { chainError } from "./internal/checks.ts"

export type Routes = Readonly<
  Record<Partner.Environment, Partial<Record<Rail.Chain, ChainGateway.ChainGatewayShape>> | undefined>
>

export const make = (routes: Routes): ChainGateway.ChainGatewayShape => {
  const route = <A>(
    rail: Omit<ChainGateway.Rail, "token">,
    f: (gateway: ChainGateway.ChainGatewayShape) => Effect.Effect<A, ChainGateway.ChainError>
  ): Effect.Effect<A, ChainGateway.ChainError> => {
    const gateway = routes[rail.environment]?.[rail.chain]
    return gateway === undefined
      ? Effect.fail(chainError(rail.chain, "unsupported_rail", `${rail.chain} is not enabled for ${rail.environment}`))
      : f(gateway)
  }
  return ChainGateway.ChainGateway.of({
    checkAddress: (rail, address) => route(rail, (g) => g.checkAddress(rail, address)),
    fundingAddress: (rail, index) => route(rail, (g) => g.fundingAddress(rail, index)),
    observeFunding: (rail, address, cursor) => route(rail, (g) => g.observeFunding(rail, address, cursor)),
    observeFundingBatch: (rail, targets) => route(rail, (g) => g.observeFundingBatch(rail, targets)),
    draftPayout: (order) => route(order.rail, (g) => g.draftPayout(order)),
    preparePayout: (order) => route(order.rail, (g) => g.preparePayout(order)),
    broadcastPayout: (rail, prepared) => route(rail, (g) => g.broadcastPayout(rail, prepared)),
    lookupPayout: (rail, prepared) => route(rail, (g) => g.lookupPayout(rail, prepared)),
    replacePayout: (rail, prepared, mode) => route(rail, (g) => g.replacePayout(rail, prepared, mode)),
    inspectPayout: (rail, prepared) => route(rail, (g) => g.inspectPayout(rail, prepared)),
    balances: (rail, addresses) => route(rail, (g) => g.balances(rail, addresses)),
    nativeBalances: (rail, addresses) => route(rail, (g) => g.nativeBalances(rail, addresses)),
    fundingKeys: (rail) => route(rail, (g) => g.fundingKeys(rail)),
    draftSweep: (order) => route(order.rail, (g) => g.draftSweep(order)),
    hotWallet: (rail) => route(rail, (g) => g.hotWallet(rail))
  })
}

/** The same gateway for every chain of an environment (the simulated chain serves them all). */
export const everyChain = (
  gateway: ChainGateway.ChainGatewayShape
): Partial<Record<Rail.Chain, ChainGateway.ChainGatewayShape>> => ({
  ethereum: gateway,
  polygon: gateway,
  solana: gateway
})
