/**
 * The double-entry ledger of a contract's money: what each transition moves between accounts. Debits
 * are positive, credits negative; the entries of one transition sum to zero per currency. (The
 * book's hedges have a ledger of their own: `HedgeLedger`.)
 */
import { type DateTime, Schema } from "effect"
import type { ContractRecord } from "../terms/Contract.ts"
import type { Command, Transition } from "./ContractMachine.ts"
import * as Money from "../kernel/Money.ts"
import { Environment } from "../terms/Partner.ts"
import { FundsCurrency } from "../kernel/Rail.ts"

/**
 * The accounts: `funding_wallet`, tokens sitting on the contracts' funding addresses (asset);
 * `partner_prepayment`, funds received before the contract is fully funded (owed back to the
 * partner until then); `premium_income`, premiums and forward fees earned; `deposits_held`,
 * forward deposits held for the partner (liability); `forfeited_deposits`, deposits kept when a
 * forward's window ended with no exercise; `payout_expense`, FX deltas paid to customers
 * (expense); `payout_wallet`, the hot wallet payouts are sent from (asset); `refunds_payable`, a
 * forward's deposit released to the partner once its payout settled, until the refund reaches the
 * partner's refund address (liability; the refund is booked in `TreasuryLedger`).
 */
export const Account = Schema.Literals([
  "funding_wallet",
  "partner_prepayment",
  "premium_income",
  "deposits_held",
  "forfeited_deposits",
  "payout_expense",
  "payout_wallet",
  "refunds_payable"
])
export type Account = typeof Account.Type

export const EntryKind = Schema.Literals([
  "funds_received",
  "premium_received",
  "deposit_held",
  "deposit_released",
  "deposit_forfeited",
  "payout_paid"
])
export type EntryKind = typeof EntryKind.Type

/**
 * What an entry books in any ledger (a contract's here, the hedges' in `HedgeLedger`), for that
 * ledger's kinds, accounts and currencies.
 */
export const entryFields = <Kinds extends Schema.Top, Accounts extends Schema.Top, Currencies extends Schema.Top>(
  kind: Kinds,
  account: Accounts,
  currency: Currencies
) => ({
  kind,
  account,
  currency,
  /** Signed: debit > 0, credit < 0. */
  amount: Schema.BigDecimal,
  at: Schema.DateTimeUtc
})

export const LedgerEntry = Schema.Struct({
  contractId: Schema.String,
  partnerId: Schema.String,
  environment: Environment,
  ...entryFields(EntryKind, Account, FundsCurrency)
}).annotate({ identifier: "LedgerEntry" })
export type LedgerEntry = typeof LedgerEntry.Type

const pair = (
  c: ContractRecord,
  kind: EntryKind,
  debit: Account,
  credit: Account,
  currency: FundsCurrency,
  amount: Money.Decimal,
  at: DateTime.Utc
): ReadonlyArray<LedgerEntry> => {
  if (Money.isZero(amount)) return []
  const base = { contractId: c.id, partnerId: c.partnerId, environment: c.environment, kind, currency, at }
  return [
    { ...base, account: debit, amount },
    { ...base, account: credit, amount: Money.subtract(Money.zero, amount) }
  ]
}

/** The entries a transition books, given the contract before it and the command that caused it. */
export const entriesFor = (
  before: ContractRecord,
  command: Command,
  transition: Transition
): ReadonlyArray<LedgerEntry> => {
  const c = transition.contract
  const at = transition.entry.at
  const token = c.settlementCurrency
  const deposit = c.depositAmount ?? Money.zero
  switch (command._tag) {
    case "FundingObserved": {
      const received = pair(c, "funds_received", "funding_wallet", "partner_prepayment", token, command.amount, at)
      if (before.status === c.status || c.status !== "active") return received
      return [
        ...received,
        ...pair(c, "premium_received", "partner_prepayment", "premium_income", token, c.premiumAmount, at),
        ...pair(c, "deposit_held", "partner_prepayment", "deposits_held", token, deposit, at)
      ]
    }
    case "PayoutSettled":
      return [
        ...pair(
          c,
          "payout_paid",
          "payout_expense",
          "payout_wallet",
          c.exercise?.payoutCurrency ?? token,
          command.amount,
          at
        ),
        // a forward's deposit is owed back to the partner once the customer transacted; the refund
        // from the hot wallet settles it (`Refunds`)
        ...pair(c, "deposit_released", "deposits_held", "refunds_payable", token, deposit, at)
      ]
    case "WindowEnded":
      return c.status === "deposit_forfeited"
        ? pair(c, "deposit_forfeited", "deposits_held", "forfeited_deposits", token, deposit, at)
        : []
    default:
      return []
  }
}

/** Sum of the entries per currency: every currency must come to zero. */
export const balances = <C extends string>(
  entries: ReadonlyArray<{ readonly currency: C; readonly amount: Money.Decimal }>
): ReadonlyMap<C, Money.Decimal> => {
  const sums = new Map<C, Money.Decimal>()
  for (const e of entries) sums.set(e.currency, Money.sum(sums.get(e.currency) ?? Money.zero, e.amount))
  return sums
}

/**
 * The first currency whose entries do not sum to zero, with its sum: ledger entries a commit or a
 * fill writes must balance per currency, and a store dies (writing nothing) when they do not.
 */
export const imbalance = <C extends string>(
  entries: ReadonlyArray<{ readonly currency: C; readonly amount: Money.Decimal }>
): { readonly currency: C; readonly total: string } | undefined => {
  for (const [currency, total] of balances(entries)) {
    if (!Money.isZero(total)) return { currency, total: Money.format(total) }
  }
  return undefined
}
