/**
 * What every ledger entry books, whatever it books for (a contract's commit in `ledger_entries`,
 * a hedge order's fill in `hedge_ledger_entries`): its kind, account, currency, amount and time,
 * named and mapped once for both row modules.
 */
import type { Money } from "@ratelock/core"
import type { DateTime, Schema } from "effect"
import { decimal, Numeric, numeric, Timestamp, timestamp, utc } from "./columns.ts"

/** The columns, for the literal sets of one ledger's kinds, accounts and currencies. */
export const entryColumns = <Kind extends Schema.Top, Account extends Schema.Top, Currency extends Schema.Top>(
  kind: Kind,
  account: Account,
  currency: Currency
) => ({ kind, account, currency, amount: Numeric, at: Timestamp })

/** The fields, as the entry records type them. */
interface Entry<Kind, Account, Currency> {
  readonly kind: Kind
  readonly account: Account
  readonly currency: Currency
  readonly amount: Money.Decimal
  readonly at: DateTime.Utc
}

/** The columns an entry is written as. */
export const entryRow = <Kind, Account, Currency>(e: Entry<Kind, Account, Currency>) => ({
  kind: e.kind,
  account: e.account,
  currency: e.currency,
  amount: numeric(e.amount),
  at: timestamp(e.at)
})

/** The entry a row holds. */
export const entryOf = <Kind, Account, Currency>(r: {
  readonly kind: Kind
  readonly account: Account
  readonly currency: Currency
  readonly amount: string
  readonly at: Date
}): Entry<Kind, Account, Currency> => ({
  kind: r.kind,
  account: r.account,
  currency: r.currency,
  amount: decimal(r.amount),
  at: utc(r.at)
})
