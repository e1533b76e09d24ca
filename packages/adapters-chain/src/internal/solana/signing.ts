/**
 * Signing one version of a job (a payout, a sweep): a recent blockhash, the compute-unit price the
 * chain asks (or the next one after `previous`), the limit from the node's simulation, the fee
 * checked against what the fee payer holds, then the signatures. Each job builds its own
 * instructions and checks; this is what they share.
 *
 * The limit is the node's simulation of the transaction (never signed: a node cannot send what it
 * simulated) with a 20 % margin; the price a percentile of the node's recent prioritization fees
 * for the accounts the transaction writes, capped (see `fees.ts`).
 */
import type { ChainGateway } from "@ratelock/core"
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import {
  type Keypair,
  type PublicKey,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction
} from "@solana/web3.js"
import { DateTime, Effect } from "effect"
import { Base64 } from "effect/encoding"
import * as Base58 from "../base58.ts"
import { chainError } from "../checks.ts"
import * as Errors from "./errors.ts"
import * as Fees from "./fees.ts"
import type { SolanaNode } from "./node.ts"
import type * as Persisted from "./persisted.ts"

/** SPL Token's `TransferChecked` instruction tag. */
const transferChecked = 12

/** How versions are priced (micro-lamports per compute unit). */
export interface FeePolicy {
  /** The percentile (0–100) of the node's recent prioritization fees a version pays. */
  readonly percentile: number
  /** No version pays more than this. */
  readonly maxPrice: number
}

/** What one version is signed from. */
export interface Job {
  /** What the messages call it (`payout`, `sweep`). */
  readonly what: string
  /** The fee payer, who signs first. */
  readonly payer: Keypair
  /** The other signers (a sweep's funding key). */
  readonly cosigners: ReadonlyArray<Keypair>
  /** Everything after the compute budget. */
  readonly instructions: ReadonlyArray<TransactionInstruction>
  /** The accounts it writes, whose recent fees set its price. */
  readonly writable: ReadonlyArray<PublicKey>
  /** Whether the destination's token account exists now (see `Fees.unitLimit`). */
  readonly destinationExists: boolean
  /** Fails unless the fee payer can pay `fee` lamports on top of what the job itself costs it. */
  readonly enough: (fee: bigint) => Effect.Effect<void, ChainGateway.ChainError>
}

/**
 * The same program, data and accounts, instruction by instruction (a decompiled instruction's
 * signer and writable flags are its message's, the union over all instructions, so they are not
 * compared: the message signed again is compiled from the rebuilt instructions).
 */
export const sameInstructions = (a: ReadonlyArray<TransactionInstruction>, b: ReadonlyArray<TransactionInstruction>) =>
  a.length === b.length &&
  a.every(
    (x, i) =>
      x.programId.equals(b[i]!.programId) &&
      Buffer.from(x.data).equals(Buffer.from(b[i]!.data)) &&
      x.keys.length === b[i]!.keys.length &&
      x.keys.every((key, k) => key.pubkey.equals(b[i]!.keys[k]!.pubkey))
  )

/** A signed message's instructions after its compute budget, decompiled. */
export const bodyOf = (transaction: VersionedTransaction) =>
  Effect.try({
    try: () =>
      TransactionMessage.decompile(transaction.message).instructions.filter(
        (instruction) => !instruction.programId.equals(Fees.programId)
      ),
    catch: () => chainError("solana", "invalid_prepared", "the transaction's message cannot be read")
  })

/** The accounts a signed message writes (what its priority fee competes for). */
export const writableAccounts = (transaction: VersionedTransaction) =>
  transaction.message.staticAccountKeys.filter((_, i) => transaction.message.isAccountWritable(i))

export const make = (node: SolanaNode, policy: FeePolicy) => {
  const connection = node.connection

  /** The price the chain asks now for a transaction writing `accounts`: the percentile of recent fees. */
  const asked = (accounts: ReadonlyArray<PublicKey>) =>
    Effect.map(
      Errors.call("reading recent prioritization fees", () =>
        connection.getRecentPrioritizationFees({ lockedWritableAccounts: [...accounts] })
      ),
      (fees) =>
        Fees.percentile(
          fees.map((fee) => fee.prioritizationFee),
          policy.percentile
        )
    )

  /** The units `job` consumes in the node's simulation (undefined: not reported). */
  const simulated = Effect.fnUntraced(function* (job: Job, blockhash: string) {
    // the compute budget as it will be, but for the price (which changes what the fee payer is
    // charged, not the units): so a wallet with just enough SOL for the real fee is not refused
    const message = new TransactionMessage({
      payerKey: job.payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [...Fees.instructions(0, Fees.maxUnitLimit), ...job.instructions]
    }).compileToLegacyMessage()
    const { value } = yield* Errors.call(`simulating the ${job.what}`, () =>
      connection.simulateTransaction(new VersionedTransaction(message), { sigVerify: false, commitment: "confirmed" })
    )
    if (value.err !== null) {
      const last = value.logs?.findLast((line) => /error|failed|insufficient/i.test(line))
      return yield* Effect.fail(
        chainError(
          "solana",
          Errors.failureReason(value.err),
          `the node's simulation of the ${job.what} failed: ${JSON.stringify(value.err)}${last === undefined ? "" : ` (${last})`}`
        )
      )
    }
    return value.unitsConsumed ?? undefined
  })

  /**
   * Prices and signs a version of `job`: the first (`previous` null) at what the chain asks, a
   * later one above the `previous` price; both capped.
   */
  const sign = Effect.fnUntraced(function* (job: Job, previous: number | null) {
    const baseFee = Fees.baseFee * BigInt(1 + job.cosigners.length)
    // the base fee first: what the node's simulation would refuse in less clear words
    yield* job.enough(baseFee)
    const [{ blockhash, lastValidBlockHeight }, ask] = yield* Effect.all(
      [
        Errors.call("reading a recent blockhash", () => connection.getLatestBlockhash("confirmed")),
        asked(job.writable)
      ],
      { concurrency: 2 }
    )
    const price =
      previous === null ? Fees.firstPrice(ask, policy.maxPrice) : Fees.nextPrice(previous, ask, policy.maxPrice)
    const limit = Fees.unitLimit(yield* simulated(job, blockhash), job.destinationExists)
    yield* job.enough(baseFee + Fees.priorityFee(price, limit))
    const message = new TransactionMessage({
      payerKey: job.payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [...Fees.instructions(price, limit), ...job.instructions]
    }).compileToLegacyMessage()
    const transaction = new VersionedTransaction(message)
    transaction.sign([job.payer, ...job.cosigners])
    const version: Persisted.StoredVersion = {
      signature: Base58.encode(transaction.signatures[0]!),
      transaction: Base64.encode(transaction.serialize()),
      blockhash,
      lastValidBlockHeight,
      computeUnitPrice: price,
      computeUnitLimit: limit,
      signedAt: yield* DateTime.now
    }
    return version
  })

  return { policy, asked, sign }
}

export type Signer = ReturnType<typeof make>

/** The hot wallet: the fee payer of every job, and what pays the rent of the accounts they create. */
export interface HotWallet {
  readonly keypair: Keypair
  /** Rent-exempt minimums: a new token account, and the wallet itself (0 bytes), which must stay exempt. */
  readonly rent: { readonly tokenAccount: bigint; readonly wallet: bigint }
}

/**
 * `Job.enough` for a fee payer holding `lamports` whose job also pays `rent` (a new token account
 * and the payer's own exemption, which it must keep).
 */
export const enoughLamports =
  (lamports: bigint, rent: bigint) =>
  (fee: bigint): Effect.Effect<void, ChainGateway.ChainError> =>
    lamports >= fee + rent
      ? Effect.void
      : Effect.fail(
          chainError(
            "solana",
            "insufficient_funds",
            `the hot wallet holds ${lamports} lamports, the fee (${fee}) and rent (${rent}) need ${fee + rent}`
          )
        )

/**
 * What a signed create-the-account-if-missing + `TransferChecked` pair moves (the two instructions
 * both jobs start with), or undefined when they are not that.
 */
export const transferOf = (
  create: TransactionInstruction | undefined,
  transfer: TransactionInstruction | undefined
) => {
  if (create === undefined || transfer === undefined) return undefined
  if (!create.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID) || !transfer.programId.equals(TOKEN_PROGRAM_ID)) {
    return undefined
  }
  const destination = create.keys[2]?.pubkey
  const mint = create.keys[3]?.pubkey
  const authority = transfer.keys[3]?.pubkey
  if (destination === undefined || mint === undefined || authority === undefined) return undefined
  if (transfer.data.length !== 10 || transfer.data[0] !== transferChecked) return undefined
  return { destination, mint, authority, units: Buffer.from(transfer.data).readBigUInt64LE(1) }
}
