/**
 * Core's `ChainGateway` on an EVM chain (ethereum or polygon) for one environment, over JSON-RPC
 * with viem.
 *
 * - Funding addresses: BIP-44 `m/44'/60'/<account>'/0/<index>`, account 0 for production and 1
 *   for sandbox, from a mnemonic or watch-only from that account's xpub; `0x` + 40 lowercase hex.
 * - Funding: ERC-20 `Transfer` logs into the address, polled from a cursor (the last block fully
 *   scanned), read only at `confirmations` depth; other tokens' transfers come back as `stray`.
 * - Payouts: an ERC-20 `transfer` from the hot wallet, signed locally at the nonce core's store
 *   allocates and persisted by core before it is broadcast; a payout not mined in time while the
 *   chain asks more gets a replacement at the same nonce (fees +12.5 % at least, never above the
 *   cap), and an operator may bump or cancel one; every version is persisted, the lookup reads
 *   them all and fails a payout only once none can ever be mined.
 * - Sweeps: a gas top-up from the hot wallet and the funding address's own `transfer`, signed
 *   together and persisted as one job the payout calls take (the persisted row says which it is).
 * - Balances of many addresses at the funding depth, of a token or of the native currency:
 *   Multicall3 where the chain has it, else JSON-RPC batches of `eth_call`s (`eth_getBalance`s);
 *   every RPC request counted (`internal/evm/rpc.ts`). The hot wallet's own reading
 *   (`hotWallet`) is at the latest block.
 *
 * Building the layer checks the RPC (chain id) and every configured token's `decimals()` on chain:
 * a token that does not answer or disagrees fails the layer with `token_mismatch`, so the service
 * refuses to start rather than pay in the wrong units.
 */
import { ChainGateway, type Partner, Rail } from "@ratelock/core"
import { Effect, Layer, Redacted } from "effect"
import { type Address, createPublicClient, isAddress, parseGwei, type PrivateKeyAccount } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { chainError, checkIndex } from "./internal/checks.ts"
import * as Balances from "./internal/evm/balances.ts"
import * as Errors from "./internal/evm/errors.ts"
import * as Erc20 from "./internal/evm/erc20.ts"
import * as Funding from "./internal/evm/funding.ts"
import * as Hd from "./internal/evm/hd.ts"
import * as Legs from "./internal/evm/legs.ts"
import { checkServed, type EvmChain, type EvmNode, type Token, tokenOf } from "./internal/evm/node.ts"
import * as Payouts from "./internal/evm/payouts.ts"
import * as Persisted from "./internal/evm/persisted.ts"
import * as Rpc from "./internal/evm/rpc.ts"
import * as Sweeps from "./internal/evm/sweeps.ts"
import { payableAddress } from "./internal/evm/tokenTransfer.ts"

export type { EvmChain } from "./internal/evm/node.ts"

export interface Options {
  readonly chain: EvmChain
  /** The one environment this gateway serves; other rails fail with `unsupported_rail`. */
  readonly environment: Partner.Environment
  readonly rpcUrl: string
  /** When set, the RPC must report this chain id (e.g. 1, 137), or the layer fails with `chain_mismatch`. */
  readonly chainId?: number
  /** Token contracts by currency; `decimals` defaults to core's table and is checked on chain. */
  readonly tokens: Partial<Record<Rail.FundsCurrency, { readonly address: string; readonly decimals?: number }>>
  /** The funding HD key: a BIP-39 mnemonic, or the xpub of the environment's account node `m/44'/60'/<account>'`. */
  readonly funding:
    | { readonly _tag: "Mnemonic"; readonly mnemonic: Redacted.Redacted<string> }
    | { readonly _tag: "Xpub"; readonly xpub: string }
  /** The hot wallet's private key (64 hex digits, 0x optional); without it payouts fail with `no_hot_wallet`. */
  readonly hotWalletKey?: Redacted.Redacted<string>
  /** Blocks a transfer or payout needs (its own included) before it counts. Default: `defaultConfirmations`. */
  readonly confirmations?: number
  /** Blocks per `eth_getLogs` request (providers cap the range). Default 1,000. */
  readonly maxLogRange?: number
  /** How far below the safe block a new contract's first observation starts. Default: about a day of blocks. */
  readonly lookbackBlocks?: number
  /**
   * A payout not mined this many seconds after its latest version was signed, while that version's
   * max fee is below what the chain asks, is replaced (same nonce, higher fees). Default:
   * `defaultReplaceAfterSeconds` (the host's `RATELOCK_<CHAIN>_REPLACE_AFTER_SECONDS`).
   */
  readonly replaceAfterSeconds?: number
  /**
   * The operator's cap on a payout's max fee per gas, in gwei: no version pays more, and at the cap
   * a payout waits for fees to fall: a decimal string (as the environment gives it: exact) or a
   * number (at most nine decimals count). Default: `defaultMaxFeeGwei` (`RATELOCK_<CHAIN>_MAX_FEE_GWEI`).
   */
  readonly maxFeeGwei?: number | string
  /**
   * Where `balances` and `nativeBalances` find Multicall3 (default its address on ethereum, polygon
   * and most chains, `Balances.multicall3Address`); when the chain has no code there, or with null,
   * balances are read by JSON-RPC batches of `eth_call`s (native ones: `eth_getBalance`s) instead.
   */
  readonly multicallAddress?: string | null
}

export const defaultConfirmations: Record<EvmChain, number> = { ethereum: 12, polygon: 64 }

/** About a day: 12 s blocks on ethereum, 2 s on polygon. */
export const defaultLookbackBlocks: Record<EvmChain, number> = { ethereum: 7_200, polygon: 43_200 }

export const defaultMaxLogRange = 1_000

/** Ten ethereum blocks, thirty polygon blocks. */
export const defaultReplaceAfterSeconds: Record<EvmChain, number> = { ethereum: 120, polygon: 60 }

/** Far above normal fees (polygon's base fee is quoted in tens to hundreds of gwei), below a runaway. */
export const defaultMaxFeeGwei: Record<EvmChain, number> = { ethereum: 200, polygon: 2_000 }

const positiveInt = (n: number) => Number.isSafeInteger(n) && n >= 1

const make = Effect.fnUntraced(function* (options: Options) {
  const chain = options.chain
  const invalid = (message: string) => Effect.fail(chainError(chain, "invalid_config", message))
  const confirmations = options.confirmations ?? defaultConfirmations[chain]
  const maxLogRange = options.maxLogRange ?? defaultMaxLogRange
  const lookbackBlocks = options.lookbackBlocks ?? defaultLookbackBlocks[chain]
  if (
    !positiveInt(confirmations) ||
    !positiveInt(maxLogRange) ||
    !(positiveInt(lookbackBlocks) || lookbackBlocks === 0)
  ) {
    return yield* invalid("confirmations and maxLogRange must be whole numbers ≥ 1, lookbackBlocks ≥ 0")
  }
  const replaceAfterSeconds = options.replaceAfterSeconds ?? defaultReplaceAfterSeconds[chain]
  if (!Number.isFinite(replaceAfterSeconds) || replaceAfterSeconds < 0) {
    return yield* invalid(`replaceAfterSeconds must be a number of seconds ≥ 0, got ${replaceAfterSeconds}`)
  }
  const maxFeeGwei = options.maxFeeGwei ?? defaultMaxFeeGwei[chain]
  // gwei to wei exactly: a decimal's digits as written, a number's to nine decimals
  const gweiText =
    typeof maxFeeGwei === "string"
      ? maxFeeGwei.trim()
      : Number.isFinite(maxFeeGwei) && maxFeeGwei < 1e12
        ? maxFeeGwei.toFixed(9)
        : ""
  const maxFeePerGas = /^\d{1,12}(\.\d{1,9})?$/.test(gweiText) ? parseGwei(gweiText) : 0n
  if (maxFeePerGas <= 0n) {
    return yield* invalid(`maxFeeGwei must be a positive number of gwei, got ${maxFeeGwei}`)
  }

  const funding = options.funding
  const external = Hd.externalChain(
    funding._tag === "Mnemonic" ? { _tag: "Mnemonic", mnemonic: Redacted.value(funding.mnemonic) } : funding,
    options.environment
  )
  if (typeof external === "string") return yield* invalid(external)

  let wallet: PrivateKeyAccount | undefined
  if (options.hotWalletKey !== undefined) {
    const raw = Redacted.value(options.hotWalletKey).trim()
    const key = raw.startsWith("0x") ? raw : `0x${raw}`
    if (!/^0x[0-9a-fA-F]{64}$/.test(key)) {
      return yield* invalid("the hot wallet key must be 64 hex digits (0x optional)")
    }
    wallet = yield* Effect.try({
      try: () => privateKeyToAccount(key as `0x${string}`),
      catch: () => chainError(chain, "invalid_config", "the hot wallet key is not a valid secp256k1 key")
    })
  }

  // every request counted in the metric registry of the layer's context
  const context = yield* Effect.context<never>()
  const labels = { chain, environment: options.environment }
  const client = createPublicClient({ transport: Rpc.transport(options.rpcUrl, labels, context) })
  const chainId = yield* Errors.call(chain, "reading the chain id", () => client.getChainId())
  if (options.chainId !== undefined && chainId !== options.chainId) {
    return yield* chainError(chain, "chain_mismatch", `the RPC serves chain id ${chainId}, expected ${options.chainId}`)
  }

  const tokens = new Map<Rail.FundsCurrency, Token>()
  for (const [currency, configured] of Object.entries(options.tokens) as Array<
    [Rail.FundsCurrency, { readonly address: string; readonly decimals?: number }]
  >) {
    const expected = configured.decimals ?? Rail.tokenDecimals(currency, chain)
    if (Rail.tokenDecimals(currency, chain) === undefined || expected === undefined) {
      return yield* chainError(chain, "unsupported_token", `${currency} is not issued on ${chain}`)
    }
    if (!isAddress(configured.address, { strict: false })) {
      return yield* invalid(`the ${currency} contract address is malformed: ${configured.address}`)
    }
    const address = configured.address.toLowerCase() as Address
    const decimals = yield* Errors.attempt(() =>
      client.readContract({ address, abi: Erc20.abi, functionName: "decimals" })
    ).pipe(
      Effect.mapError((failure) =>
        failure._tag === "Contract"
          ? chainError(
              chain,
              "token_mismatch",
              `${currency} at ${address} does not answer decimals(): ${failure.message}`
            )
          : Errors.toChainError(chain, `reading ${currency} decimals`, failure)
      )
    )
    if (decimals !== expected) {
      return yield* chainError(
        chain,
        "token_mismatch",
        `${currency} at ${address} has ${decimals} decimals on chain, configured ${expected}`
      )
    }
    tokens.set(currency, { currency, address, decimals })
  }

  const node: EvmNode = {
    chain,
    environment: options.environment,
    client,
    chainId,
    confirmations,
    maxLogRange,
    lookbackBlocks,
    tokens
  }
  const multicall = options.multicallAddress === undefined ? Balances.multicall3Address : options.multicallAddress
  if (multicall !== null && !isAddress(multicall, { strict: false })) {
    return yield* invalid(`the Multicall3 address is malformed: ${multicall}`)
  }
  const multicallCode =
    multicall === null
      ? undefined
      : yield* Errors.call(chain, "reading Multicall3's code", () => client.getCode({ address: multicall }))
  const reader: Balances.Reader =
    multicall !== null && multicallCode !== undefined && multicallCode !== "0x"
      ? { _tag: "Multicall3", address: multicall.toLowerCase() as Address }
      : {
          _tag: "Batch",
          client: createPublicClient({
            transport: Rpc.transport(options.rpcUrl, labels, context, Balances.balancesPerCall)
          })
        }

  const legs = Legs.make(node, {
    replaceAfterMillis: replaceAfterSeconds * 1000,
    maxFeePerGas,
    capSetting: `RATELOCK_${chain.toUpperCase()}_MAX_FEE_GWEI`
  })
  const payouts = Payouts.make(node, legs, wallet)
  const sweeps = Sweeps.make(node, legs, wallet, external)
  const draftPayout = Effect.fn("EvmGateway.draftPayout")(payouts.draft)

  /** A persisted payout or sweep, each to its own handling. */
  const dispatch =
    <A>(
      onPayout: (payout: Persisted.Payout) => Effect.Effect<A, ChainGateway.ChainError>,
      onSweep: (sweep: Persisted.Sweep) => Effect.Effect<A, ChainGateway.ChainError>
    ) =>
    (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout) =>
      Effect.andThen(checkServed(node, rail), Persisted.read(chain, chainId, prepared)).pipe(
        Effect.flatMap((job) => (job._tag === "Sweep" ? onSweep(job.sweep) : onPayout(job.payout)))
      )

  const fundingAddress = Effect.fn("EvmGateway.fundingAddress")(function* (rail: ChainGateway.Rail, index: number) {
    yield* tokenOf(node, rail)
    yield* checkIndex(rail, index)
    if (index > Hd.maxIndex) {
      return yield* chainError(chain, "invalid_index", `HD index must be below 2^31, got ${index}`)
    }
    return Hd.address(external, index)
  })

  return ChainGateway.ChainGateway.of({
    // a payout's destination rule, on this gateway's chain and environment
    checkAddress: (rail, address) => Effect.andThen(checkServed(node, rail), payableAddress(chain, address)),
    fundingAddress,
    observeFunding: Effect.fn("EvmGateway.observeFunding")(
      (rail: ChainGateway.Rail, address: string, cursor: string | null) => Funding.observe(node, rail, address, cursor)
    ),
    observeFundingBatch: Effect.fn("EvmGateway.observeFundingBatch")(
      (rail: ChainGateway.Rail, targets: ReadonlyArray<ChainGateway.FundingTarget>) =>
        Funding.observeMany(node, rail, targets)
    ),
    draftPayout,
    preparePayout: Effect.fn("EvmGateway.preparePayout")(ChainGateway.signAtPending(draftPayout)),
    broadcastPayout: Effect.fn("EvmGateway.broadcastPayout")(dispatch(payouts.broadcast, sweeps.broadcast)),
    lookupPayout: Effect.fn("EvmGateway.lookupPayout")(dispatch(payouts.lookup, sweeps.lookup)),
    replacePayout: Effect.fn("EvmGateway.replacePayout")(
      (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout, mode: ChainGateway.ReplaceMode) =>
        dispatch(
          (payout) => payouts.replace(payout, mode),
          (sweep) => sweeps.replace(sweep, mode)
        )(rail, prepared)
    ),
    inspectPayout: Effect.fn("EvmGateway.inspectPayout")(dispatch(payouts.inspect, sweeps.inspect)),
    balances: Effect.fn("EvmGateway.balances")(Balances.make(node, reader)),
    nativeBalances: Effect.fn("EvmGateway.nativeBalances")(Balances.native(node, reader)),
    fundingKeys: Effect.fn("EvmGateway.fundingKeys")(sweeps.fundingKeys),
    draftSweep: Effect.fn("EvmGateway.draftSweep")(sweeps.draft),
    hotWallet: Effect.fn("EvmGateway.hotWallet")(payouts.hotWallet)
  })
})

/** The gateway for one chain and environment; fails to build on a bad key, RPC or token. */
export const layer = (options: Options): Layer.Layer<ChainGateway.ChainGateway, ChainGateway.ChainError> =>
  Layer.effect(ChainGateway.ChainGateway, make(options))
