/**
 * Which (chain, token) rails each environment settles on. By default every rail whose token is
 * issued on the chain (`Rail.tokenDecimals`), in every environment, as the simulated chain does; a
 * host with real gateways narrows production to the tokens it has configured. A quote on a rail
 * outside the set fails with `unsupported_settlement_rail`.
 */
import { Context } from "effect"
import type { Environment } from "../terms/Partner.ts"
import { type Chain, type FundsCurrency, tokenDecimals } from "../kernel/Rail.ts"

export interface SettlementRailsShape {
  readonly supports: (environment: Environment, chain: Chain, token: FundsCurrency) => boolean
}

/** Every issued token on every chain, in every environment. */
export const everyIssuedToken: SettlementRailsShape = {
  supports: (_environment, chain, token) => tokenDecimals(token, chain) !== undefined
}

export const SettlementRails = Context.Reference<SettlementRailsShape>("@ratelock/core/SettlementRails", {
  defaultValue: () => everyIssuedToken
})
