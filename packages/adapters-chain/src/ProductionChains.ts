/**
 * The real gateways production runs on, one per enabled chain, configured from the environment:
 *
 * - `RATELOCK_<CHAIN>_RPC_URL` (secret: providers put keys in it), required per enabled chain.
 * - Funding addresses: `RATELOCK_EVM_FUNDING_MNEMONIC`, or watch-only `RATELOCK_EVM_FUNDING_XPUB`
 *   (the account node `m/44'/60'/0'`), for ethereum and polygon; `RATELOCK_SOLANA_FUNDING_MNEMONIC`.
 * - Payouts: `RATELOCK_<CHAIN>_HOT_WALLET_KEY` (secret; without it payouts fail `no_hot_wallet`).
 * - Payouts that wait: `RATELOCK_<CHAIN>_REPLACE_AFTER_SECONDS` (EVM: ethereum 120, polygon 60) before an
 *   unmined payout priced below what the chain asks is replaced at its nonce, never above
 *   `RATELOCK_<CHAIN>_MAX_FEE_GWEI` (ethereum 200, polygon 2,000); Solana's compute-unit price is
 *   `RATELOCK_SOLANA_PRIORITY_FEE_PERCENTILE` (75) of the recent fees, capped by
 *   `RATELOCK_SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS` (1,000,000).
 * - `RATELOCK_<CHAIN>_CONFIRMATIONS` (ethereum 12, polygon 64), `RATELOCK_SOLANA_COMMITMENT`
 *   (`finalized`), `RATELOCK_<CHAIN>_CHAIN_ID` (1 and 137: the RPC must serve that network).
 * - Tokens: `RATELOCK_<CHAIN>_<TOKEN>` = contract address or mint, overriding the mainnet
 *   default (`TokenRegistry.mainnet`), or `none` to settle nothing in that token there;
 *   `RATELOCK_<CHAIN>_<TOKEN>_DECIMALS` the decimals expected (checked on chain at start).
 *
 * A gateway that cannot start (RPC down, wrong network, decimals mismatch) stops the service: it
 * must not take money it cannot watch.
 */
import { ChainGateway, Rail } from "@ratelock/core"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { chainError } from "./internal/checks.ts"
import * as TokenRegistry from "./TokenRegistry.ts"

export interface ProductionChainsShape {
  readonly gateways: Partial<Record<Rail.Chain, ChainGateway.ChainGatewayShape>>
  /** The tokens each enabled chain settles. */
  readonly tokens: Partial<Record<Rail.Chain, TokenRegistry.Tokens>>
}

export class ProductionChains extends Context.Service<ProductionChains, ProductionChainsShape>()(
  "@ratelock/adapters-chain/ProductionChains"
) {}

const variable = (chain: Rail.Chain, suffix: string) => `RATELOCK_${chain.toUpperCase()}_${suffix}`

const defaultChainId: Record<"ethereum" | "polygon", number> = { ethereum: 1, polygon: 137 }

/** The mainnet defaults of `chain`, each overridden or removed (`none`) by its variable. */
const tokensConfig = (chain: Rail.Chain): Config.Config<TokenRegistry.Tokens> => {
  const issued = Rail.FundsCurrency.literals.filter((token) => Rail.tokenDecimals(token, chain) !== undefined)
  return Config.map(
    Config.all(
      issued.map((token) =>
        Config.all({
          address: Config.option(Config.String(variable(chain, token))),
          decimals: Config.option(Config.Int(variable(chain, `${token}_DECIMALS`)))
        })
      )
    ),
    (settings) => {
      const tokens: Partial<Record<Rail.FundsCurrency, TokenRegistry.Token>> = {}
      issued.forEach((token, i) => {
        const set = settings[i]
        const fallback = TokenRegistry.mainnet[chain][token]
        const address = Option.getOrElse(set?.address ?? Option.none(), () => fallback?.address ?? "none").trim()
        if (address === "" || address.toLowerCase() === "none") return
        const decimals = Option.getOrUndefined(set?.decimals ?? Option.none()) ?? fallback?.decimals
        tokens[token] = decimals === undefined ? { address } : { address, decimals }
      })
      return tokens
    }
  )
}

const evmConfig = (chain: "ethereum" | "polygon") =>
  Config.all({
    rpcUrl: Config.Redacted(variable(chain, "RPC_URL")),
    chainId: Config.Int(variable(chain, "CHAIN_ID")).pipe(Config.withDefault(defaultChainId[chain])),
    mnemonic: Config.option(Config.Redacted("RATELOCK_EVM_FUNDING_MNEMONIC")),
    xpub: Config.option(Config.String("RATELOCK_EVM_FUNDING_XPUB")),
    hotWalletKey: Config.option(Config.Redacted(variable(chain, "HOT_WALLET_KEY"))),
    confirmations: Config.option(Config.Int(variable(chain, "CONFIRMATIONS"))),
    replaceAfterSeconds: Config.option(Config.Number(variable(chain, "REPLACE_AFTER_SECONDS"))),
    // a decimal string, converted to wei exactly by the gateway
    maxFeeGwei: Config.option(Config.String(variable(chain, "MAX_FEE_GWEI"))),
    tokens: tokensConfig(chain)
  })

const solanaConfig = Config.all({
  rpcUrl: Config.Redacted(variable("solana", "RPC_URL")),
  seed: Config.Redacted("RATELOCK_SOLANA_FUNDING_MNEMONIC"),
  hotWalletKey: Config.option(Config.Redacted(variable("solana", "HOT_WALLET_KEY"))),
  commitment: Config.Literals(["confirmed", "finalized"], "RATELOCK_SOLANA_COMMITMENT").pipe(
    Config.withDefault("finalized" as const)
  ),
  priorityFeePercentile: Config.option(Config.Number(variable("solana", "PRIORITY_FEE_PERCENTILE"))),
  maxPriorityFeeMicroLamports: Config.option(Config.Number(variable("solana", "MAX_PRIORITY_FEE_MICROLAMPORTS"))),
  tokens: tokensConfig("solana")
})

/** Builds a gateway layer in the surrounding scope and takes the service out of it. */
const gatewayOf = <E>(layer: Layer.Layer<ChainGateway.ChainGateway, E>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, ChainGateway.ChainGateway))

const optional = <A>(option: Option.Option<A>): A | undefined => Option.getOrUndefined(option)

/**
 * The gateways' chain libraries (viem, @solana/web3.js) load only when a chain is enabled: a
 * sandbox-only service starts without them.
 */
const load = <A>(module: () => Promise<A>) => Effect.promise(module)

const evm = Effect.fnUntraced(function* (chain: "ethereum" | "polygon") {
  const c = yield* evmConfig(chain)
  const EvmGateway = yield* load(() => import("./EvmGateway.ts"))
  const mnemonic = optional(c.mnemonic)
  const xpub = optional(c.xpub)
  if (mnemonic === undefined && xpub === undefined) {
    return yield* chainError(
      chain,
      "invalid_config",
      "set RATELOCK_EVM_FUNDING_MNEMONIC, or RATELOCK_EVM_FUNDING_XPUB for watch-only funding addresses"
    )
  }
  const hotWalletKey = optional(c.hotWalletKey)
  const confirmations = optional(c.confirmations)
  const replaceAfterSeconds = optional(c.replaceAfterSeconds)
  const maxFeeGwei = optional(c.maxFeeGwei)
  const gateway = yield* gatewayOf(
    EvmGateway.layer({
      chain,
      environment: "production",
      rpcUrl: Redacted.value(c.rpcUrl),
      chainId: c.chainId,
      tokens: c.tokens,
      funding: mnemonic !== undefined ? { _tag: "Mnemonic", mnemonic } : { _tag: "Xpub", xpub: xpub ?? "" },
      ...(hotWalletKey === undefined ? {} : { hotWalletKey }),
      ...(confirmations === undefined ? {} : { confirmations }),
      ...(replaceAfterSeconds === undefined ? {} : { replaceAfterSeconds }),
      ...(maxFeeGwei === undefined ? {} : { maxFeeGwei })
    })
  )
  return { gateway, tokens: c.tokens }
})

const solana = Effect.fnUntraced(function* () {
  const c = yield* solanaConfig
  const SolanaGateway = yield* load(() => import("./SolanaGateway.ts"))
  const hotWalletKey = optional(c.hotWalletKey)
  const priorityFeePercentile = optional(c.priorityFeePercentile)
  const maxPriorityFeeMicroLamports = optional(c.maxPriorityFeeMicroLamports)
  const tokens = Object.fromEntries(
    Object.entries(c.tokens).map(([currency, token]) => [
      currency,
      token.decimals === undefined ? { mint: token.address } : { mint: token.address, decimals: token.decimals }
    ])
  )
  const gateway = yield* gatewayOf(
    SolanaGateway.layer({
      environment: "production",
      rpcUrl: Redacted.value(c.rpcUrl),
      seed: c.seed,
      tokens,
      commitment: c.commitment,
      ...(hotWalletKey === undefined ? {} : { hotWalletKey }),
      ...(priorityFeePercentile === undefined ? {} : { priorityFeePercentile }),
      ...(maxPriorityFeeMicroLamports === undefined ? {} : { maxPriorityFeeMicroLamports })
    })
  )
  return { gateway, tokens: c.tokens }
})

/** The gateways of `chains`, each configured from the environment and checked against its chain. */
export const make = Effect.fnUntraced(function* (chains: ReadonlyArray<Rail.Chain>) {
  const gateways: Partial<Record<Rail.Chain, ChainGateway.ChainGatewayShape>> = {}
  const tokens: Partial<Record<Rail.Chain, TokenRegistry.Tokens>> = {}
  for (const chain of new Set(chains)) {
    const built = chain === "solana" ? yield* solana() : yield* evm(chain)
    gateways[chain] = built.gateway
    tokens[chain] = built.tokens
  }
  return ProductionChains.of({ gateways, tokens })
})

export const layerConfig = (
  chains: ReadonlyArray<Rail.Chain>
): Layer.Layer<ProductionChains, Config.ConfigError | ChainGateway.ChainError> =>
  Layer.effect(ProductionChains, make(chains))
