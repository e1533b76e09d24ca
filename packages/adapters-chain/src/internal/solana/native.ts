/**
 * What a landed transaction of this gateway moved in SOL, read from its metadata for the treasury
 * ledger: the fee payer's (the hot wallet's) change, the other signers' (a sweep's funding owner,
 * which holds no lamports and signs for free: zero), the fee, and the rent, returned by the token
 * accounts it closed less what the token accounts it created took.
 *
 * Those are every lamport the transaction moves, so `hotWallet + fundingAddress + fees − rent` is
 * zero; a transaction where it is not moved lamports this gateway does not know about, and the
 * ledger would book them wrong: that is a defect, not a chain condition to wait out.
 */
import { type ChainGateway, Money, type TreasuryLedger } from "@ratelock/core"
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import type { VersionedTransactionResponse } from "@solana/web3.js"
import { Effect } from "effect"
import { chainError } from "../checks.ts"

/** SOL's decimals. */
export const solDecimals = 9

/** SPL Token's `CloseAccount` instruction tag. */
const closeAccount = 9

export const movementOf = (
  landed: VersionedTransactionResponse
): Effect.Effect<TreasuryLedger.NativeMovement, ChainGateway.ChainError> => {
  const meta = landed.meta
  if (meta === null) {
    return Effect.fail(
      chainError("solana", "rpc_unavailable", `the node returns ${landed.transaction.signatures[0]} without its meta`)
    )
  }
  const message = landed.transaction.message
  const keys = message.staticAccountKeys
  const change = (i: number) => BigInt(meta.postBalances[i] ?? 0) - BigInt(meta.preBalances[i] ?? 0)
  let created = 0n
  let returned = 0n
  for (const instruction of message.compiledInstructions) {
    const program = keys[instruction.programIdIndex]
    // an associated account created (idempotently: one that existed took nothing)
    const made = instruction.accountKeyIndexes[1]
    if (program?.equals(ASSOCIATED_TOKEN_PROGRAM_ID) && made !== undefined && (meta.preBalances[made] ?? 0) === 0) {
      created += change(made)
    }
    const closed = instruction.accountKeyIndexes[0]
    if (program?.equals(TOKEN_PROGRAM_ID) && instruction.data[0] === closeAccount && closed !== undefined) {
      returned -= change(closed)
    }
  }
  const hotWallet = change(0)
  let fundingAddress = 0n
  for (let i = 1; i < message.header.numRequiredSignatures; i++) fundingAddress += change(i)
  const fees = BigInt(meta.fee)
  const rent = returned - created
  if (hotWallet + fundingAddress + fees - rent !== 0n) {
    return Effect.die(
      new Error(
        `solana transaction ${landed.transaction.signatures[0]} moved lamports the gateway does not account for: ` +
          `hot wallet ${hotWallet}, funding address ${fundingAddress}, fee ${fees}, rent ${rent} do not balance`
      )
    )
  }
  const sol = (lamports: bigint) => Money.fromBaseUnits(lamports, solDecimals)
  return Effect.succeed({
    hotWallet: sol(hotWallet),
    fundingAddress: sol(fundingAddress),
    fees: sol(fees),
    rent: sol(rent)
  })
}
