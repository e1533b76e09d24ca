/**
 * The money commands' JSON, made in one place from core's results: what each route of the operator
 * API's money group answers (`api/OperatorMoney.ts`) and what `ratelock funds|payouts|treasury …
 * --json` prints on the database, so the CLI prints the same in both modes. The keys are in the
 * order of the routes' schemas, the order a client decoding the answer prints them in.
 */
import {
  Money,
  type MovementRepo,
  type PayoutRepo,
  type ReconciliationRepo,
  type TreasuryLedger,
  TreasuryFlows,
  type UnmatchedFunds
} from "@ratelock/core"
import { Option } from "effect"

/** `funds unmatched`: oldest first. */
export const unmatchedJson = (items: ReadonlyArray<UnmatchedFunds.UnmatchedListing>) => ({ items })

/** `funds refund`: the movement recorded, which the workers send from the hot wallet. */
export const refundJson = (movement: MovementRepo.Movement) => ({
  id: movement.id,
  key: movement.key,
  contract_id: movement.contractId,
  amount: Money.format(movement.amount),
  currency: movement.currency,
  destination: movement.destination
})

/** `payouts bump|cancel`: the payout with the version stored and broadcast. */
export const replacedJson = (payout: PayoutRepo.PayoutRecord) => ({
  contract_id: payout.contractId,
  payout_id: payout.id,
  status: payout.status,
  transaction_hash: payout.transactionHash,
  nonce: payout.nonce,
  replacements: payout.replacements
})

/** `treasury reconcile`: a run per environment and chain served. */
export const reconciledJson = (runs: ReadonlyArray<ReconciliationRepo.ReconciliationRun>) => ({
  reconciliation: runs.map(TreasuryFlows.reconciliationRow)
})

/** `treasury record-inflow`: the entries booked, which sum to zero. */
export const inflowJson = (booked: {
  readonly source: string
  readonly entries: ReadonlyArray<TreasuryLedger.TreasuryEntry>
}) => ({
  source: booked.source,
  entries: booked.entries.map((e) => ({ account: e.account, currency: e.currency, amount: Money.format(e.amount) }))
})

/** An inflow's amount: a decimal above 0. */
export const inflowAmount = (text: string): Option.Option<Money.Decimal> =>
  Option.filter(Money.parse(text), Money.isPositive)

/** Why an amount is refused, in the words of the CLI (`--amount`) and of the API (`amount`). */
export const notAnInflowAmount = (name: string, text: string) => `${name} must be a positive decimal, got ${text}`
