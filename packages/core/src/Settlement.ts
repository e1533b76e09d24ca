/**
 * FX delta and payout: what the service owes when the customer transacted at a worse live rate.
 *
 * The customer sells BASE: a fall of the rate below the locked rate is paid, a rise is theirs.
 * Everything here is exact; the payout rounds down to the token's 6 decimals.
 */
import { type Currency, type Direction, pair } from "./Corridor.ts"
import * as Money from "./Money.ts"

export interface Lock {
  readonly direction: Direction
  readonly notionalCurrency: Currency
  readonly notionalAmount: Money.Decimal
  readonly maxTransactionAmount: Money.Decimal
  readonly lockedRate: Money.Decimal
}

/**
 * The notional in BASE units, on at most `max_transaction_amount` (never pay on more notional
 * than was locked): the notional itself when it is written in BASE, else `notional / locked_rate`.
 */
export const notionalBase = (lock: Lock): Money.Decimal => {
  const covered = Money.min(lock.notionalAmount, lock.maxTransactionAmount)
  return lock.notionalCurrency === pair(lock.direction).base ? covered : Money.divide(covered, lock.lockedRate)
}

/** `fx_delta_in_quote_currency = N_b × max(0, locked_rate − live_execution_rate)`, exact. */
export const fxDeltaInQuoteCurrency = (lock: Lock, liveExecutionRate: Money.Decimal): Money.Decimal =>
  Money.multiply(notionalBase(lock), Money.max(Money.zero, Money.subtract(lock.lockedRate, liveExecutionRate)))

/**
 * How a QUOTE amount becomes the settlement fiat: as is when QUOTE is the fiat, divided by the
 * live rate when BASE is, otherwise at a cross rate (fiat per 1 QUOTE) the caller looked up at
 * `executed_at` through the market-data port.
 */
export type Conversion =
  | { readonly _tag: "Identity" }
  | { readonly _tag: "FromBase"; readonly liveExecutionRate: Money.Decimal }
  | { readonly _tag: "Cross"; readonly fiatPerQuote: Money.Decimal }

/** Which conversion a payout in `fiat` needs; `Cross` ones need the market-data port's rate. */
export const conversionFor = (
  direction: Direction,
  fiat: Currency,
  liveExecutionRate: Money.Decimal
): Conversion | "needs_cross_rate" => {
  const { base, quote } = pair(direction)
  if (fiat === quote) return { _tag: "Identity" }
  if (fiat === base) return { _tag: "FromBase", liveExecutionRate }
  return "needs_cross_rate"
}

export const convert = (amountInQuote: Money.Decimal, conversion: Conversion): Money.Decimal => {
  switch (conversion._tag) {
    case "Identity":
      return amountInQuote
    case "FromBase":
      return Money.divide(amountInQuote, conversion.liveExecutionRate)
    case "Cross":
      return Money.multiply(amountInQuote, conversion.fiatPerQuote)
  }
}

export interface Payout {
  readonly fxDeltaInQuoteCurrency: Money.Decimal
  /** In the settlement fiat, rounded down to 6 decimals; `0.000000` when nothing is owed. */
  readonly amount: Money.Decimal
}

export const payout = (lock: Lock, liveExecutionRate: Money.Decimal, conversion: Conversion): Payout => {
  const delta = fxDeltaInQuoteCurrency(lock, liveExecutionRate)
  return { fxDeltaInQuoteCurrency: delta, amount: Money.roundDown(convert(delta, conversion)) }
}
