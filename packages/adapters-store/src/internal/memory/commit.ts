/**
 * `ContractRepo.commit` as one atomic step: a compare-and-set of the contract on its version (the
 * number of history entries), plus its new history entry, the outgoing event, the incoming event,
 * the funding transfer, the ledger entries and the change of its corridor's open notional. A
 * version mismatch or any uniqueness conflict (transfer, incoming Idempotency-Key, event ids) fails
 * with `StaleContract` and writes nothing.
 */
import { Exit, HashMap, Option } from "effect"
import { ContractRepo, Ledger, StoreError } from "@ratelock/core"
import { moveUsage } from "./corridors.ts"
import { unleased } from "./lease.ts"
import { scopedKey } from "./scope.ts"
import { type State, type Step, write } from "./state.ts"

/** A transfer's chain identity: counted or recorded as unmatched, once. */
export const transferKey = (t: Pick<ContractRepo.FundingTransfer, "chain" | "transactionHash" | "index">): string =>
  `${t.chain}|${t.transactionHash}|${t.index}`

/** Appends the entries to their contracts' entries, numbered after every entry booked before them. */
const book = (state: State, entries: ReadonlyArray<Ledger.LedgerEntry>): Pick<State, "ledger" | "ledgerBooked"> => ({
  ledger: entries.reduce(
    (ledger, entry, n) =>
      HashMap.set(ledger, entry.contractId, [
        ...Option.getOrElse(HashMap.get(ledger, entry.contractId), () => []),
        { seq: state.ledgerBooked + n, entry }
      ]),
    state.ledger
  ),
  ledgerBooked: state.ledgerBooked + entries.length
})

/** True when the change collides with what is stored: a stale version or a duplicate. */
const conflicts = (state: State, change: ContractRepo.ContractChange): boolean => {
  const stored = HashMap.get(state.contracts, change.contract.id)
  if (Option.isNone(stored) || ContractRepo.version(stored.value.row) !== change.expectedVersion) return true
  if (change.transfer !== null && HashMap.has(state.transfers, transferKey(change.transfer))) return true
  const incoming = change.incoming
  if (
    incoming !== null &&
    (HashMap.has(state.incoming, incoming.id) ||
      HashMap.has(state.incomingKeys, scopedKey(incoming, incoming.idempotencyKey)))
  ) {
    return true
  }
  return change.outgoing !== null && HashMap.has(state.outgoing, change.outgoing.id)
}

export const commitStep =
  (change: ContractRepo.ContractChange) =>
  (state: State): Step<void, StoreError.StaleContract> => {
    const contract = change.contract
    const unbalanced = Ledger.imbalance(change.ledger)
    if (unbalanced !== undefined) {
      return Exit.die(
        new Error(
          `commit of contract ${contract.id}: ledger entries of ${unbalanced.currency} sum to ${unbalanced.total}, not zero`
        )
      )
    }
    if (contract.history.length !== change.expectedVersion + 1) {
      return Exit.die(new Error(`commit of contract ${contract.id} must append exactly one history entry`))
    }
    if (conflicts(state, change)) return Exit.fail(new StoreError.StaleContract({ contractId: contract.id }))

    const { incoming, outgoing, transfer } = change
    return write({
      ...moveUsage(state, change),
      // writing the row releases its lease
      contracts: HashMap.set(state.contracts, contract.id, unleased(contract)),
      transfers:
        transfer === null ? state.transfers : HashMap.set(state.transfers, transferKey(transfer), change.contract.id),
      incoming: incoming === null ? state.incoming : HashMap.set(state.incoming, incoming.id, incoming),
      incomingKeys:
        incoming === null
          ? state.incomingKeys
          : HashMap.set(state.incomingKeys, scopedKey(incoming, incoming.idempotencyKey), incoming.id),
      outgoing: outgoing === null ? state.outgoing : HashMap.set(state.outgoing, outgoing.id, unleased(outgoing)),
      ...book(state, change.ledger),
      fundingCursors:
        change.fundingCursor === undefined
          ? state.fundingCursors
          : HashMap.set(state.fundingCursors, contract.id, change.fundingCursor)
    })
  }
