/**
 * Funding observation on litesvm through the JSON-RPC front end: depth, stable keys, stray
 * tokens, what is not a payment, cursors, and the RPC's failures.
 */
import { assert, describe, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeAccount3Instruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js"
import { Effect, Redacted } from "effect"
import * as Hd from "../../src/internal/solana/hd.ts"
import * as SolanaGateway from "../../src/SolanaGateway.ts"
import * as LitesvmRpc from "../support/litesvmRpc.ts"
import { decimals, mnemonic, rail, SolanaChain, layer as solana, layerWith } from "../support/solanaTestChain.ts"

let nextIndex = 5_000 + Math.floor(Math.random() * 1_000_000)
const freshIndex = () => ++nextIndex
const key = (t: { readonly transactionHash: string; readonly index: number }) => `${t.transactionHash}#${t.index}`
const options = { excludeTestServices: true, timeout: "60 seconds" } as const

/** A fresh deposit address and the cursor of an observation made before anything was sent to it. */
const freshDeposit = Effect.gen(function* () {
  const gateway = yield* ChainGateway.ChainGateway
  const address = yield* gateway.fundingAddress(rail, freshIndex())
  const start = yield* gateway.observeFunding(rail, address, null)
  assert.deepStrictEqual(start.transfers, [])
  return { address, cursor: start.cursor }
})

layer(solana, options)("SolanaGateway funding (finalized)", (it) => {
  it.effect("the funding address is the sandbox account's HD owner; its token account is watched", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const index = freshIndex()
      const sandbox = Hd.accountNode(mnemonic, "sandbox")
      if (typeof sandbox === "string") return assert.fail(sandbox)
      assert.strictEqual(yield* gateway.fundingAddress(rail, index), Hd.address(sandbox, index))
      const refused = yield* Effect.flip(gateway.fundingAddress(rail, 2 ** 31))
      assert.strictEqual(refused.reason, "invalid_index")
    })
  )

  it.effect("a transfer is reported only at depth, with its slot, exact amount and instruction index", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const { address, cursor } = yield* freshDeposit
      const slot = chain.rpc.head()
      const signature = chain.send(address, 12_345_678n)

      chain.rpc.advance(chain.depth - 2)
      const early = yield* gateway.observeFunding(rail, address, cursor)
      assert.deepStrictEqual(early.transfers, [])
      assert.isTrue(Number(early.cursor) < slot, "the cursor stays below the transfer until it is final")

      chain.rpc.advance(1)
      const seen = yield* gateway.observeFunding(rail, address, early.cursor)
      assert.deepStrictEqual(
        seen.transfers.map((t) => [t.transactionHash, t.index, t.blockNumber, Money.format(t.amount)]),
        // instruction 0 creates the account, 1 is the transfer
        [[signature, 1000, slot, "12.345678"]]
      )
      assert.deepStrictEqual(seen.stray, [])
      assert.strictEqual(Number(seen.cursor), slot)

      chain.rpc.advance(5)
      const after = yield* gateway.observeFunding(rail, address, seen.cursor)
      assert.deepStrictEqual(after.transfers, [])
      assert.isTrue(Number(after.cursor) > Number(seen.cursor))
    })
  )

  it.effect("partial payments are separate transfers; an older cursor reports the same keys again", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const { address, cursor } = yield* freshDeposit
      chain.send(address, 40_000_000n)
      chain.rpc.advance(1)
      chain.send(address, 60_500_000n)
      chain.rpc.advance(chain.depth - 1)

      const first = yield* gateway.observeFunding(rail, address, cursor)
      assert.deepStrictEqual(
        first.transfers.map((t) => Money.format(t.amount)),
        ["40", "60.5"]
      )
      const again = yield* gateway.observeFunding(rail, address, null)
      assert.deepStrictEqual(again.transfers.map(key), first.transfers.map(key))
      // from between the two, only the second
      const between = String(first.transfers[0]!.blockNumber)
      const later = yield* gateway.observeFunding(rail, address, between)
      assert.deepStrictEqual(later.transfers.map(key), [key(first.transfers[1]!)])
    })
  )

  it.effect("a mint into the deposit account counts (bridged USDC arrives minted)", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const { address, cursor } = yield* freshDeposit
      chain.rpc.mintTo(chain.mint, new PublicKey(address), 3_000_000n, chain.authority)
      chain.rpc.advance(chain.depth - 1)
      const seen = yield* gateway.observeFunding(rail, address, cursor)
      assert.deepStrictEqual(
        seen.transfers.map((t) => [t.index, Money.format(t.amount)]),
        [[1000, "3"]]
      )
    })
  )

  it.effect("other tokens and other accounts of the owner are stray; failed and zero transfers are nothing", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const { rpc, funder, authority, mint } = chain
      const { address, cursor } = yield* freshDeposit
      const owner = new PublicKey(address)

      // another mint, into the owner's associated account for it
      const other = rpc.createMint(authority, 9, Keypair.generate())
      rpc.mintTo(other, owner, 5n, authority)
      // the rail's mint, into a token account of the owner that is not the associated one
      const side = Keypair.generate()
      rpc.run(
        [funder, side],
        SystemProgram.createAccount({
          fromPubkey: funder.publicKey,
          newAccountPubkey: side.publicKey,
          lamports: Number(rpc.svm.minimumBalanceForRentExemption(165n)),
          space: 165,
          programId: TOKEN_PROGRAM_ID
        }),
        createInitializeAccount3Instruction(side.publicKey, mint, owner),
        createTransferCheckedInstruction(
          chain.accountOf(funder.publicKey),
          mint,
          side.publicKey,
          funder.publicKey,
          7n,
          decimals
        )
      )
      // zero tokens into the deposit account (address-poisoning spam)
      const zero = chain.send(owner, 0n)
      // a transfer in a transaction that then fails: it lands (fee paid) but moves nothing
      const empty = getAssociatedTokenAddressSync(other, funder.publicKey)
      const failing = new Transaction({
        feePayer: funder.publicKey,
        blockhash: rpc.svm.latestBlockhash(),
        lastValidBlockHeight: rpc.head() + 150
      }).add(
        createTransferCheckedInstruction(
          chain.accountOf(funder.publicKey),
          mint,
          chain.accountOf(owner),
          funder.publicKey,
          9n,
          decimals
        ),
        createAssociatedTokenAccountIdempotentInstruction(funder.publicKey, empty, funder.publicKey, other),
        createTransferCheckedInstruction(
          empty,
          other,
          getAssociatedTokenAddressSync(other, owner),
          funder.publicKey,
          1n,
          9
        )
      )
      failing.sign(funder)
      const failed = rpc.submit(failing)
      assert.isTrue(failed.landed)
      assert.deepStrictEqual(failed.err, { InstructionError: [2, { Custom: 1 }] })

      rpc.advance(chain.depth - 1)
      const seen = yield* gateway.observeFunding(rail, address, cursor)
      assert.deepStrictEqual(seen.transfers, [])
      assert.sameDeepMembers(
        (seen.stray ?? []).map((s) => [s.token, s.baseUnits]),
        [
          [other.toBase58(), "5"],
          [mint.toBase58(), "7"]
        ]
      )
      assert.isFalse(
        (seen.stray ?? []).some((s) => s.transactionHash === zero || s.transactionHash === failed.signature)
      )
    })
  )

  it.effect("a node without the owner index still reports funding, without stray; an unhealthy one fails", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const { address, cursor } = yield* freshDeposit
      const signature = chain.send(address, 2_000_000n)
      chain.rpc.advance(chain.depth - 1)
      chain.rpc.refuse("getTokenAccountsByOwner", -32010)
      const seen = yield* gateway
        .observeFunding(rail, address, cursor)
        .pipe(Effect.ensuring(Effect.sync(() => chain.rpc.refuse("getTokenAccountsByOwner", undefined))))
      assert.deepStrictEqual(
        seen.transfers.map((t) => t.transactionHash),
        [signature]
      )
      assert.isUndefined(seen.stray)
      chain.rpc.refuse("getTokenAccountsByOwner", -32005)
      const unhealthy = yield* Effect.flip(gateway.observeFunding(rail, address, cursor)).pipe(
        Effect.ensuring(Effect.sync(() => chain.rpc.refuse("getTokenAccountsByOwner", undefined)))
      )
      assert.strictEqual(unhealthy.reason, "rpc_unavailable")
    })
  )

  it.effect("a node behind the cursor reports nothing and keeps the cursor", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const { address } = yield* freshDeposit
      const ahead = String(chain.rpc.head() + 1000)
      const seen = yield* gateway.observeFunding(rail, address, ahead)
      assert.deepStrictEqual(seen.transfers, [])
      assert.strictEqual(seen.cursor, ahead)
    })
  )

  it.effect("refuses malformed cursors and addresses, other rails and unconfigured tokens", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const { address } = yield* freshDeposit
      const reason = <A>(effect: Effect.Effect<A, ChainGateway.ChainError>) =>
        Effect.map(Effect.flip(effect), (e) => e.reason)
      assert.strictEqual(yield* reason(gateway.observeFunding(rail, address, "abc")), "invalid_cursor")
      assert.strictEqual(yield* reason(gateway.observeFunding(rail, "0xabc", null)), "invalid_address")
      assert.strictEqual(
        yield* reason(gateway.observeFunding({ ...rail, environment: "production" }, address, null)),
        "unsupported_rail"
      )
      assert.strictEqual(
        yield* reason(gateway.observeFunding({ ...rail, chain: "polygon" }, address, null)),
        "unsupported_rail"
      )
      assert.strictEqual(
        yield* reason(gateway.observeFunding({ ...rail, token: "EURC" }, address, null)),
        "unsupported_token"
      )
      assert.strictEqual(yield* reason(gateway.fundingAddress({ ...rail, token: "EURC" }, 1)), "unsupported_token")
    })
  )

  it.effect("an RPC answering 429 is rate_limited, 503 or nothing at all is rpc_unavailable", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway.ChainGateway
      const chain = yield* SolanaChain
      const { address } = yield* freshDeposit
      chain.rpc.failNext(1, 429)
      assert.strictEqual((yield* Effect.flip(gateway.observeFunding(rail, address, null))).reason, "rate_limited")
      chain.rpc.failNext(1, 503)
      assert.strictEqual((yield* Effect.flip(gateway.observeFunding(rail, address, null))).reason, "rpc_unavailable")
      // the layer reads the mints at start: an RPC nobody answers on refuses to start
      const unreachable = SolanaGateway.layer({ ...chain.options, rpcUrl: "http://127.0.0.1:9" })
      const refused = yield* Effect.flip(Effect.provide(Effect.void, unreachable))
      assert.strictEqual(refused.reason, "rpc_unavailable")
    })
  )
})

describe("SolanaGateway funding (confirmed)", () => {
  layer(layerWith({ commitment: "confirmed" }), options)("at commitment confirmed", (it) => {
    it.effect("a transfer counts one slot later", () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const chain = yield* SolanaChain
        assert.strictEqual(chain.depth, LitesvmRpc.confirmedLag + 1)
        const { address, cursor } = yield* freshDeposit
        const signature = chain.send(address, 1_000_000n)
        assert.deepStrictEqual((yield* gateway.observeFunding(rail, address, cursor)).transfers, [])
        chain.rpc.advance(1)
        const seen = yield* gateway.observeFunding(rail, address, cursor)
        assert.deepStrictEqual(
          seen.transfers.map((t) => t.transactionHash),
          [signature]
        )
      })
    )
  })
})

describe("SolanaGateway configuration", () => {
  layer(solana, options)("on litesvm", (it) => {
    it.effect("a mint whose decimals differ, a missing mint or a non-mint account refuse the layer", () =>
      Effect.gen(function* () {
        const chain = yield* SolanaChain
        const start = (tokens: SolanaGateway.Options["tokens"]) =>
          Effect.map(
            Effect.flip(Effect.provide(Effect.void, SolanaGateway.layer({ ...chain.options, tokens }))),
            (e) => e.reason
          )
        const mint = chain.mint.toBase58()
        assert.strictEqual(yield* start({ USDC: { mint, decimals: 9 } }), "token_mismatch")
        assert.strictEqual(yield* start({ USDT: { mint: Keypair.generate().publicKey.toBase58() } }), "token_mismatch")
        assert.strictEqual(yield* start({ USDC: { mint: chain.funder.publicKey.toBase58() } }), "token_mismatch")
        assert.strictEqual(yield* start({ USDC: { mint: "not-base58!" } }), "invalid_config")
        // the configured decimals, when right, are accepted
        yield* Effect.provide(
          Effect.void,
          SolanaGateway.layer({ ...chain.options, tokens: { USDC: { mint, decimals } } })
        )
      })
    )

    it.effect("a bad mnemonic, hot wallet key or commitment refuse the layer", () =>
      Effect.gen(function* () {
        const chain = yield* SolanaChain
        const start = (changes: Partial<SolanaGateway.Options>) =>
          Effect.map(
            Effect.flip(Effect.provide(Effect.void, SolanaGateway.layer({ ...chain.options, ...changes }))),
            (e) => e.reason
          )
        assert.strictEqual(yield* start({ seed: Redacted.make("abandon abandon") }), "invalid_config")
        assert.strictEqual(yield* start({ hotWalletKey: Redacted.make("3xyz") }), "invalid_config")
        assert.strictEqual(yield* start({ commitment: "processed" as never }), "invalid_config")
      })
    )
  })
})
