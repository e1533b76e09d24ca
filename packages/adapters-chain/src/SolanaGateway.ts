/**
 * Core's `ChainGateway` on Solana for one environment, over JSON-RPC with `@solana/web3.js` 1.x
 * and SPL Token (classic program; Token-2022 mints are refused).
 *
 * - Funding addresses: SLIP-10 ed25519 `m/44'/501'/<account>'/<index>'`, account 0 for production
 *   and 1 for sandbox; the address handed out is the owner (wallet), and the gateway watches its
 *   associated token account for the rail's mint.
 * - Funding: polled from a cursor (a slot), reading only what the node holds at the configured
 *   commitment (`finalized` by default: that is the depth); transfers into the owner's other token
 *   accounts come back as `stray`.
 * - Payouts: a compute-unit limit (the node's simulation + 20 %) and price (a percentile of the
 *   node's recent prioritization fees, capped), create-the-account-if-missing + `TransferChecked`
 *   from the hot wallet, signed locally with a recent blockhash and persisted by core before it is
 *   broadcast. A payout whose blockhash expired with nothing landed is signed again at a higher
 *   price (`replacePayout`), every version kept; the lookup answers for all of them, and fails a
 *   payout only once a version executed with an error. Bumps before expiry and cancellations do
 *   not exist on Solana: two versions that could both land could both pay.
 * - Sweeps: one transaction the hot wallet pays and the funding key co-signs, moving the funding
 *   account's tokens to the hot wallet or the treasury and closing it (its rent back to the hot
 *   wallet), persisted as a job the payout calls accept (`internal/solana/sweeps.ts`).
 * - Balances at the funding commitment: the owners' associated accounts, or their lamports, 100
 *   per `getMultipleAccounts`. The hot wallet's own reading (`hotWallet`) is at `confirmed`.
 *
 * Building the layer reads every configured mint from the chain: a missing mint, a non-SPL-Token
 * account or decimals that disagree with the configured ones fail the layer with `token_mismatch`,
 * so the service refuses to start rather than pay in the wrong units.
 */
import { ChainGateway, type Partner, Rail } from "@ratelock/core"
import { TOKEN_PROGRAM_ID, unpackMint } from "@solana/spl-token"
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { Effect, Layer, Redacted } from "effect"
import * as Base58 from "./internal/base58.ts"
import { chainError, checkIndex } from "./internal/checks.ts"
import * as Balances from "./internal/solana/balances.ts"
import * as Errors from "./internal/solana/errors.ts"
import * as Fees from "./internal/solana/fees.ts"
import * as Funding from "./internal/solana/funding.ts"
import * as Hd from "./internal/solana/hd.ts"
import {
  checkServed,
  type Commitment,
  parseAddress,
  type SolanaNode,
  type Token,
  tokenOf
} from "./internal/solana/node.ts"
import * as Payouts from "./internal/solana/payouts.ts"
import * as Signing from "./internal/solana/signing.ts"
import * as Sweeps from "./internal/solana/sweeps.ts"

export type { Commitment } from "./internal/solana/node.ts"

/** The percentile of the node's recent prioritization fees a payout pays unless configured: 75. */
export const defaultPriorityFeePercentile: number = Fees.defaultPercentile

/**
 * The cap on a payout's compute-unit price unless configured: 1,000,000 micro-lamports per unit,
 * so a payout's priority fee stays under about 0.00005 SOL (0.0002 SOL when the node's simulation
 * reports no units and the 200,000-unit fallback limit applies).
 */
export const defaultMaxPriorityFeeMicroLamports: number = Fees.defaultMaxPrice

export interface Options {
  /** The one environment this gateway serves; other rails fail with `unsupported_rail`. */
  readonly environment: Partner.Environment
  readonly rpcUrl: string
  /** SPL Token mints by currency; `decimals` defaults to core's table and is checked on chain. */
  readonly tokens: Partial<Record<Rail.FundsCurrency, { readonly mint: string; readonly decimals?: number }>>
  /** The funding HD seed: a BIP-39 english mnemonic. */
  readonly seed: Redacted.Redacted<string>
  /** The hot wallet's base58 64-byte secret key; without it payouts fail with reason `no_hot_wallet`. */
  readonly hotWalletKey?: Redacted.Redacted<string>
  /** What counts as confirmed, for transfers and payouts alike. Default `finalized`. */
  readonly commitment?: Commitment
  /**
   * The percentile (0–100) of the node's recent prioritization fees, for the accounts a payout
   * writes, that its compute-unit price follows. Default {@link defaultPriorityFeePercentile}.
   */
  readonly priorityFeePercentile?: number
  /**
   * The most any version of a payout pays per compute unit, in micro-lamports (what
   * `RATELOCK_SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS` is to set, wired in the host). Default
   * {@link defaultMaxPriorityFeeMicroLamports}.
   */
  readonly maxPriorityFeeMicroLamports?: number
}

/** Rent-exempt sizes: an SPL token account, and a plain wallet (no data). */
const tokenAccountSize = 165

const make = Effect.fnUntraced(function* (options: Options) {
  const invalid = (message: string) => Effect.fail(chainError("solana", "invalid_config", message))
  const commitment = options.commitment ?? "finalized"
  if (commitment !== "finalized" && commitment !== "confirmed") {
    return yield* invalid(`commitment must be "confirmed" or "finalized", got ${commitment}`)
  }
  const percentile = options.priorityFeePercentile ?? defaultPriorityFeePercentile
  if (!Number.isFinite(percentile) || percentile < 0 || percentile > 100) {
    return yield* invalid(`the priority fee percentile must be between 0 and 100, got ${percentile}`)
  }
  const maxPrice = options.maxPriorityFeeMicroLamports ?? defaultMaxPriorityFeeMicroLamports
  // 10^12 micro-lamports per unit is a lamport per unit millions of times over: anything above is a typo
  if (!Number.isSafeInteger(maxPrice) || maxPrice < 0 || maxPrice > 1e12) {
    return yield* invalid(`the maximum priority fee must be a whole number of micro-lamports ≥ 0, got ${maxPrice}`)
  }
  const account = Hd.accountNode(Redacted.value(options.seed), options.environment)
  if (typeof account === "string") return yield* invalid(account)

  let keypair: Keypair | undefined
  if (options.hotWalletKey !== undefined) {
    const secret = Base58.decode(Redacted.value(options.hotWalletKey).trim())
    if (secret?.length !== 64) return yield* invalid("the hot wallet key must be base58 of a 64-byte secret key")
    keypair = yield* Effect.try({
      try: () => Keypair.fromSecretKey(secret),
      catch: () => chainError("solana", "invalid_config", "the hot wallet key's public half does not match its secret")
    })
  }

  const connection = yield* Effect.try({
    // no retries inside web3.js on HTTP 429: core's workers retry on their own schedule
    try: () => new Connection(options.rpcUrl, { commitment, disableRetryOnRateLimit: true }),
    catch: () => chainError("solana", "invalid_config", "the RPC URL must start with http: or https:")
  })

  const configured = Object.entries(options.tokens) as Array<
    [Rail.FundsCurrency, { readonly mint: string; readonly decimals?: number }]
  >
  const mints: Array<PublicKey> = []
  for (const [currency, token] of configured) {
    if (Base58.decode(token.mint)?.length !== 32)
      return yield* invalid(`the ${currency} mint is malformed: ${token.mint}`)
    mints.push(new PublicKey(token.mint))
  }
  const infos =
    mints.length === 0
      ? []
      : yield* Errors.call("reading the configured mints", () => connection.getMultipleAccountsInfo(mints, commitment))
  const tokens = new Map<Rail.FundsCurrency, Token>()
  for (const [i, [currency, token]] of configured.entries()) {
    const expected = token.decimals ?? Rail.tokenDecimals(currency, "solana")
    if (expected === undefined)
      return yield* chainError("solana", "unsupported_token", `${currency} is not issued on solana`)
    const mint = mints[i]!
    const info = infos[i] ?? null
    const decimals = yield* Effect.try({
      try: () => unpackMint(mint, info, TOKEN_PROGRAM_ID).decimals,
      catch: () =>
        chainError(
          "solana",
          "token_mismatch",
          info === null
            ? `${currency} mint ${token.mint} does not exist on this cluster`
            : `${currency} mint ${token.mint} is not an SPL Token mint (Token-2022 is not supported)`
        )
    })
    if (decimals !== expected) {
      return yield* chainError(
        "solana",
        "token_mismatch",
        `${currency} mint ${token.mint} has ${decimals} decimals on chain, configured ${expected}`
      )
    }
    tokens.set(currency, { currency, mint, decimals })
  }

  let hotWallet: Signing.HotWallet | undefined
  if (keypair !== undefined) {
    const [tokenAccount, wallet] = yield* Effect.all([
      Errors.call("reading rent", () => connection.getMinimumBalanceForRentExemption(tokenAccountSize)),
      Errors.call("reading rent", () => connection.getMinimumBalanceForRentExemption(0))
    ])
    hotWallet = { keypair, rent: { tokenAccount: BigInt(tokenAccount), wallet: BigInt(wallet) } }
  }

  const node: SolanaNode = { environment: options.environment, connection, commitment, tokens }
  const signer = Signing.make(node, { percentile, maxPrice })
  const sweeps = Sweeps.make(node, hotWallet, account, signer)
  const payouts = yield* Payouts.make(node, hotWallet, signer, sweeps.resign)

  const fundingAddress = Effect.fn("SolanaGateway.fundingAddress")(function* (rail: ChainGateway.Rail, index: number) {
    yield* tokenOf(node, rail)
    yield* checkIndex(rail, index)
    if (index > Hd.maxIndex)
      return yield* chainError("solana", "invalid_index", `HD index must be below 2^31, got ${index}`)
    return Hd.address(account, index)
  })

  const observeFunding = Effect.fn("SolanaGateway.observeFunding")(
    (rail: ChainGateway.Rail, address: string, cursor: string | null) => Funding.observe(node, rail, address, cursor)
  )
  const draftPayout = Effect.fn("SolanaGateway.draftPayout")(payouts.draft)
  return ChainGateway.ChainGateway.of({
    // a payout's destination rule, on this gateway's environment; base58 has one spelling: kept as given
    checkAddress: (rail, address) => Effect.as(Effect.andThen(checkServed(node, rail), parseAddress(address)), address),
    fundingAddress,
    observeFunding,
    // Solana's RPC lists signatures one account at a time
    observeFundingBatch: ChainGateway.observeEach(observeFunding, 4),
    draftPayout,
    preparePayout: ChainGateway.signAtPending(draftPayout),
    broadcastPayout: Effect.fn("SolanaGateway.broadcastPayout")(payouts.broadcast),
    lookupPayout: Effect.fn("SolanaGateway.lookupPayout")(payouts.lookup),
    replacePayout: Effect.fn("SolanaGateway.replacePayout")(payouts.replace),
    inspectPayout: Effect.fn("SolanaGateway.inspectPayout")(payouts.inspect),
    balances: Effect.fn("SolanaGateway.balances")((rail: ChainGateway.Rail, addresses: ReadonlyArray<string>) =>
      Balances.read(node, rail, addresses)
    ),
    nativeBalances: Effect.fn("SolanaGateway.nativeBalances")(
      (rail: Pick<ChainGateway.Rail, "chain" | "environment">, addresses: ReadonlyArray<string>) =>
        Balances.native(node, rail, addresses)
    ),
    // the seed is required: ed25519 has no watch-only derivation, so every funding key is held
    fundingKeys: Effect.fn("SolanaGateway.fundingKeys")((rail: Pick<ChainGateway.Rail, "chain" | "environment">) =>
      Effect.as(checkServed(node, rail), "held" as const)
    ),
    draftSweep: Effect.fn("SolanaGateway.draftSweep")(sweeps.draft),
    hotWallet: Effect.fn("SolanaGateway.hotWallet")(payouts.wallet)
  })
})

/** The gateway for one environment; fails to build on a bad key, an unreachable RPC or a wrong mint. */
export const layer = (options: Options): Layer.Layer<ChainGateway.ChainGateway, ChainGateway.ChainError> =>
  Layer.effect(ChainGateway.ChainGateway, make(options))
