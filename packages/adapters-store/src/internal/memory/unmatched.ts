/**
 * Unmatched transfers in memory: funds into a contract's address that did not fund it, one row
 * per chain identity (the first record wins), never for a transfer a commit counted; one of the
 * settlement token is booked in the treasury ledger in the same step
 * (`TreasuryLedger.unmatchedEntries`).
 */
import { Effect, Exit, HashMap, Option } from "effect"
import { type ContractRepo, StoreError, TreasuryLedger } from "@ratelock/core"
import { transferKey } from "./commit.ts"
import { atomically, read, type State, type StateRef, type Step, write } from "./state.ts"
import { bookEntries } from "./treasury.ts"

type Unmatched = Pick<ContractRepo.ContractRepoShape, "recordUnmatchedTransfer" | "unmatchedTransfers">

/** Oldest first by `(observedAt, blockNumber, index, transactionHash)`, as the SQL store orders them. */
const compare = (a: ContractRepo.UnmatchedTransfer, b: ContractRepo.UnmatchedTransfer): number =>
  a.observedAt.epochMilliseconds - b.observedAt.epochMilliseconds ||
  a.blockNumber - b.blockNumber ||
  a.index - b.index ||
  (a.transactionHash < b.transactionHash ? -1 : a.transactionHash > b.transactionHash ? 1 : 0)

const recordStep =
  (transfer: ContractRepo.UnmatchedTransfer) =>
  (state: State): Step<void, StoreError.StoreError> => {
    const contract = HashMap.get(state.contracts, transfer.contractId)
    if (Option.isNone(contract)) {
      return Exit.fail(new StoreError.StoreError({ message: `contract ${transfer.contractId} does not exist` }))
    }
    const key = transferKey(transfer)
    if (HashMap.has(state.unmatched, key) || HashMap.has(state.transfers, key)) return write(state)
    const [, booked] = bookEntries(state, TreasuryLedger.unmatchedEntries(transfer, contract.value.row))
    return write({ ...booked, unmatched: HashMap.set(state.unmatched, key, transfer) })
  }

export const makeUnmatched = (ref: StateRef): Unmatched => {
  const recordUnmatchedTransfer = Effect.fn("MemoryStore.contracts.recordUnmatchedTransfer")(function* (
    transfer: ContractRepo.UnmatchedTransfer
  ) {
    return yield* atomically(ref, recordStep(transfer))
  })

  const unmatchedTransfers = Effect.fn("MemoryStore.contracts.unmatchedTransfers")(function* (
    filter: ContractRepo.UnmatchedFilter
  ) {
    return yield* read(ref, (state) =>
      Array.from(HashMap.values(state.unmatched))
        .filter((t) => filter.contractId === undefined || t.contractId === filter.contractId)
        .filter(
          (t) =>
            filter.transactionHash === undefined ||
            t.transactionHash.toLowerCase() === filter.transactionHash.toLowerCase()
        )
        .sort(compare)
        .slice(0, Math.max(0, filter.limit))
    )
  })

  return { recordUnmatchedTransfer, unmatchedTransfers }
}
