/**
 * The memo every transaction this gateway signs ends with, `ratelock:<id>:<nonce>`: the id (a
 * payout's or a sweep's, its first 64 characters) names the job on chain for reconciliation, and
 * the random nonce keeps two jobs (or two versions of one) that move the same amount between the
 * same accounts from being one transaction with one signature.
 */
import { PublicKey, TransactionInstruction } from "@solana/web3.js"
import { Effect, Random } from "effect"

export const programId = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")

/** The id as the memo carries it. */
export const idOf = (id: string): string => id.slice(0, 64)

/** A fresh nonce, base 36. */
export const nonce: Effect.Effect<string> = Effect.map(Random.nextIntBetween(0, 2 ** 48, { halfOpen: true }), (n) =>
  n.toString(36)
)

export const instruction = (id: string, nonce: string): TransactionInstruction =>
  new TransactionInstruction({ programId, keys: [], data: Buffer.from(`ratelock:${id}:${nonce}`) })

/** The id and nonce of a memo this gateway wrote, or undefined. */
export const parse = (
  instruction: TransactionInstruction
): { readonly id: string; readonly nonce: string } | undefined => {
  if (!instruction.programId.equals(programId)) return undefined
  const match = /^ratelock:(.*):([0-9a-z]+)$/s.exec(Buffer.from(instruction.data).toString("utf8"))
  return match === null ? undefined : { id: match[1]!, nonce: match[2]! }
}
