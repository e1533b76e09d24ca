/**
 * Solana on litesvm for the tests: a chain with a 6-decimal USDC-like mint, a funder holding
 * plenty of it, a hot wallet with tokens and SOL, and the real `SolanaGateway` over the JSON-RPC
 * front end; plus the `TestChain` harness the gateway contract suite drives.
 *
 * Depth: at `finalized` (the default) a transaction in slot s is reported once the head is 31
 * slots past it, i.e. with 32 confirmations counting its own slot; at `confirmed`, 2.
 */
import { ChainGateway, Money } from "@ratelock/core"
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync
} from "@solana/spl-token"
import { ComputeBudgetProgram, Keypair, PublicKey } from "@solana/web3.js"
import { BigDecimal, Context, Effect, Layer, Redacted } from "effect"
import * as Base58 from "../../src/internal/base58.ts"
import * as SolanaGateway from "../../src/SolanaGateway.ts"
import * as LitesvmRpc from "./litesvmRpc.ts"
import { TestChain } from "./TestChain.ts"

/** The BIP-39 test mnemonic; production index 0 is Phantom's first account for it. */
export const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
export const decimals = 6
export const rail: ChainGateway.Rail = { chain: "solana", environment: "sandbox", token: "USDC" }
const sol = 1_000_000_000n
const tokens = (whole: bigint) => whole * 10n ** BigInt(decimals)

export interface SolanaChainShape {
  readonly rpc: LitesvmRpc.LitesvmRpc
  readonly mint: PublicKey
  /** Mint authority, with SOL to pay for test transactions. */
  readonly authority: Keypair
  /** Holds plenty of the mint and sends funding transfers. */
  readonly funder: Keypair
  readonly hot: Keypair
  /** The gateway's options on this chain (spread them to vary one). */
  readonly options: SolanaGateway.Options
  readonly depth: number
  /** The associated token account of `owner` for the chain's mint. */
  readonly accountOf: (owner: PublicKey | string) => PublicKey
  /**
   * Sends `units` base units from the funder to `owner`'s associated account (created if missing),
   * paying `microLamports` per compute unit (none: no compute-budget instruction).
   */
  readonly send: (owner: PublicKey | string, units: bigint, microLamports?: number) => string
}

export class SolanaChain extends Context.Service<SolanaChain, SolanaChainShape>()(
  "@ratelock/adapters-chain/test/SolanaChain"
) {}

export const layerChain = (settings: { readonly commitment?: SolanaGateway.Commitment } = {}) =>
  Layer.effect(
    SolanaChain,
    Effect.gen(function* () {
      const rpc = yield* Effect.acquireRelease(
        Effect.promise(() => LitesvmRpc.start()),
        (rpc) => Effect.promise(() => rpc.close())
      )
      const [authority, funder, hot] = [Keypair.generate(), Keypair.generate(), Keypair.generate()]
      rpc.airdrop(authority.publicKey, 1000n * sol)
      rpc.airdrop(funder.publicKey, 100n * sol)
      rpc.airdrop(hot.publicKey, 100n * sol)
      const mint = rpc.createMint(authority, decimals, Keypair.generate())
      rpc.mintTo(mint, funder.publicKey, tokens(1_000_000_000n), authority)
      rpc.mintTo(mint, hot.publicKey, tokens(1_000_000n), authority)
      const commitment = settings.commitment ?? "finalized"
      const accountOf = (owner: PublicKey | string) => getAssociatedTokenAddressSync(mint, new PublicKey(owner), true)
      const send = (owner: PublicKey | string, units: bigint, microLamports?: number) =>
        rpc.run(
          [funder],
          ...(microLamports === undefined ? [] : [ComputeBudgetProgram.setComputeUnitPrice({ microLamports })]),
          createAssociatedTokenAccountIdempotentInstruction(
            funder.publicKey,
            accountOf(owner),
            new PublicKey(owner),
            mint
          ),
          createTransferCheckedInstruction(
            accountOf(funder.publicKey),
            mint,
            accountOf(owner),
            funder.publicKey,
            units,
            decimals
          )
        )
      return SolanaChain.of({
        rpc,
        mint,
        authority,
        funder,
        hot,
        options: {
          environment: "sandbox",
          rpcUrl: rpc.url,
          tokens: { USDC: { mint: mint.toBase58() } },
          seed: Redacted.make(mnemonic),
          hotWalletKey: Redacted.make(Base58.encode(hot.secretKey)),
          commitment
        },
        depth: (commitment === "confirmed" ? LitesvmRpc.confirmedLag : LitesvmRpc.finalizedLag) + 1,
        accountOf,
        send
      })
    })
  )

const testChain = Effect.gen(function* () {
  const chain = yield* SolanaChain
  const { rpc, mint, hot, funder, authority } = chain
  return TestChain.of({
    rail,
    depth: chain.depth,
    fund: (address, amount) =>
      Effect.sync(() => ({ transactionHash: chain.send(address, Money.toBaseUnits(amount, decimals)) })),
    advance: (slots) => Effect.sync(() => rpc.advance(slots)),
    balanceOf: (address) =>
      Effect.sync(() =>
        BigDecimal.normalize(Money.fromBaseUnits(rpc.tokenBalance(chain.accountOf(address)), decimals))
      ),
    freshDestination: Effect.sync(() => Keypair.generate().publicKey.toBase58()),
    drainHotWallet: Effect.sync(() => {
      const held = rpc.tokenBalance(chain.accountOf(hot.publicKey))
      if (held === 0n) return
      rpc.run(
        [hot],
        createTransferCheckedInstruction(
          chain.accountOf(hot.publicKey),
          mint,
          chain.accountOf(funder.publicKey),
          hot.publicKey,
          held,
          decimals
        )
      )
    }),
    refillHotWallet: Effect.sync(() => rpc.mintTo(mint, hot.publicKey, tokens(1_000_000n), authority))
  })
})

/** Looks a payout (or a sweep) up, one slot at a time, until the answer is final. */
export const settle = (prepared: ChainGateway.PreparedPayout) =>
  Effect.gen(function* () {
    const gateway = yield* ChainGateway.ChainGateway
    const chain = yield* SolanaChain
    for (let i = 0; i < 3 * chain.depth; i++) {
      const found = yield* gateway.lookupPayout(rail, prepared)
      if (found._tag === "Confirmed" || found._tag === "Failed") return found
      chain.rpc.advance(1)
    }
    return yield* gateway.lookupPayout(rail, prepared)
  })

/** The gateway on a chain already in context. */
export const layerGateway: Layer.Layer<ChainGateway.ChainGateway, ChainGateway.ChainError, SolanaChain> = Layer.unwrap(
  SolanaChain.useSync((chain) => SolanaGateway.layer(chain.options))
)

/** A fresh litesvm chain, the gateway on it, and the contract suite's harness. */
export const layerWith = (settings: { readonly commitment?: SolanaGateway.Commitment } = {}) =>
  Layer.mergeAll(layerGateway, Layer.effect(TestChain, testChain)).pipe(Layer.provideMerge(layerChain(settings)))

export const layer: Layer.Layer<ChainGateway.ChainGateway | TestChain | SolanaChain, ChainGateway.ChainError> =
  layerWith()
