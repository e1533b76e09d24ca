/**
 * The chains behind the service, as one `ChainGateway`: the sandbox's simulated chain for every
 * sandbox rail, and for production the real gateway of each chain in `RATELOCK_PRODUCTION_CHAINS`
 * (configured by `ProductionChains`); a production rail without one fails `unsupported_rail`.
 * `SettlementRails` follows: production quotes only on the tokens configured for enabled chains,
 * and `EnabledRails`: a rail without a chain is refused a refund address, in words that name the
 * setting. Every call to the gateway is timed into `ratelock_chain_call_duration_seconds`.
 */
import {
  ChainRouter,
  ProductionChains,
  SimulatedChain,
  SqlSimulatedChain,
  type TokenRegistry
} from "@ratelock/adapters-chain"
import {
  ChainGateway,
  EnabledRails,
  Metrics,
  type Partner,
  type PayoutRepo,
  type Rail,
  SettlementRails
} from "@ratelock/core"
import { type Config, Effect, Layer, SchemaIssue } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import type * as HostConfig from "./HostConfig.ts"
import { HostError } from "./HostError.ts"
import * as SandboxChain from "./sandbox/SandboxChain.ts"

/**
 * The sandbox's simulated chain: its ledger lives in the service's own database (`sim_…` tables),
 * on PostgreSQL as on the embedded database, so every process sharing the database sees one chain
 * and a restart, even a crash, forgets no transfer and no payout.
 */
const sandboxChain = (settings: HostConfig.Settings) => SqlSimulatedChain.layerWith(SandboxChain.options(settings))

/** Production settles a token on a chain only where that chain has a gateway with the token configured. */
export const settlementRails = (
  tokens: Partial<Record<Rail.Chain, TokenRegistry.Tokens>>
): SettlementRails.SettlementRailsShape => ({
  supports: (environment, chain, token) =>
    environment === "sandbox"
      ? SettlementRails.everyIssuedToken.supports(environment, chain, token)
      : tokens[chain]?.[token] !== undefined
})

const formatIssue = SchemaIssue.makeFormatterDefault()

/**
 * A configuration error as the operator needs it: which variable, and what was wrong with it. The
 * variable is the path the failed decoding points at (env lookups join a path's segments with `_`).
 */
const configMessage = (error: Config.ConfigError): string => {
  const cause = error.cause
  if (cause._tag !== "SchemaError" || cause.issue._tag !== "Pointer" || cause.issue.path.length === 0) {
    return String(error)
  }
  const variable = cause.issue.path.map(String).join("_")
  const what = formatIssue(cause.issue.issue).split("\n")[0]
  return `${variable} is missing or malformed (${what})`
}

const production = (settings: HostConfig.Settings) =>
  Layer.effect(
    ProductionChains.ProductionChains,
    ProductionChains.make(settings.productionChains).pipe(
      Effect.mapError(
        (error) =>
          new HostError({
            message:
              `RATELOCK_PRODUCTION_CHAINS=${settings.productionChains.join(",")}: cannot start the production ` +
              `chains: ${error._tag === "ChainError" ? `${error.chain}: ${error.message}` : configMessage(error)}`
          })
      )
    )
  )

/** The gateway below it, each call timed (core's `Metrics.measuredGateway`). */
export const measured: Layer.Layer<ChainGateway.ChainGateway, never, ChainGateway.ChainGateway> = Layer.effect(
  ChainGateway.ChainGateway,
  Effect.gen(function* () {
    return Metrics.measuredGateway(yield* ChainGateway.ChainGateway)
  })
)

type RailSettings = Pick<HostConfig.Settings, "productionChains" | "sandbox">

/** Why the rail has no chain in this deployment, naming the setting that would give it one. */
const notEnabled = (settings: RailSettings, environment: Partner.Environment, chain: Rail.Chain): string => {
  if (environment === "sandbox") {
    return "the sandbox is off (RATELOCK_SANDBOX=false): no sandbox chain can check a sandbox refund address"
  }
  const now = settings.productionChains.length === 0 ? "empty" : `"${settings.productionChains.join(",")}"`
  return (
    `${chain} is not enabled for production (RATELOCK_PRODUCTION_CHAINS is ${now}): add ${chain} to ` +
    "RATELOCK_PRODUCTION_CHAINS, with its RPC and tokens, to set a production refund address on it"
  )
}

/**
 * The rails this deployment has a chain for: the sandbox's while it is on, and production's
 * listed chains. The gateway alone cannot say it: without production chains the one gateway is the
 * simulated chain, for production rails too.
 */
export const enabledRails = (settings: RailSettings): EnabledRails.EnabledRailsShape => ({
  whyNot: (environment, chain) =>
    (environment === "sandbox" ? settings.sandbox : settings.productionChains.includes(chain))
      ? undefined
      : notEnabled(settings, environment, chain)
})

/** The simulated chain and the routed `ChainGateway`. */
const gateways = (
  settings: HostConfig.Settings
): Layer.Layer<
  SimulatedChain.SimulatedChain | ChainGateway.ChainGateway,
  HostError | SqlError.SqlError,
  PayoutRepo.PayoutRepo | SqlClient.SqlClient
> => {
  if (settings.productionChains.length === 0) return measured.pipe(Layer.provideMerge(sandboxChain(settings)))
  const routed = Layer.effect(
    ChainGateway.ChainGateway,
    Effect.gen(function* () {
      const sandbox = yield* SimulatedChain.SimulatedChain
      const real = yield* ProductionChains.ProductionChains
      return ChainRouter.make({
        sandbox: settings.sandbox ? ChainRouter.everyChain(sandbox) : undefined,
        production: real.gateways
      })
    })
  )
  const rails = Layer.effect(
    SettlementRails.SettlementRails,
    Effect.map(ProductionChains.ProductionChains, (real) => settlementRails(real.tokens))
  )
  return measured.pipe(
    Layer.provideMerge(
      Layer.merge(routed, rails).pipe(Layer.provideMerge(sandboxChain(settings)), Layer.provide(production(settings)))
    )
  )
}

/**
 * The simulated chain (as itself, for the sandbox routes), the routed `ChainGateway`, and which
 * rails it serves (`EnabledRails`).
 */
export const layer = (
  settings: HostConfig.Settings
): Layer.Layer<
  SimulatedChain.SimulatedChain | ChainGateway.ChainGateway,
  HostError | SqlError.SqlError,
  PayoutRepo.PayoutRepo | SqlClient.SqlClient
> => Layer.merge(gateways(settings), Layer.succeed(EnabledRails.EnabledRails, enabledRails(settings)))
