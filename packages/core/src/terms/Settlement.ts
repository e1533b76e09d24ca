/**
 * FX delta and payout: what the service owes when the customer transacted at a worse live rate.
 *
 * The customer sells BASE: a fall of the rate below the locked rate is paid, a rise is theirs.
 * Everything here is exact; the payout rounds down to the token's 6 decimals.
 */
import { type Currency, type Direction, inBase, pair } from "../kernel/Corridor.ts"
import * as Money from "../kernel/Money.ts"

export interface Lock {
  readonly direction: Direction
  readonly notionalCurrency: Currency
  readonly notionalAmount: Money.Decimal
  readonly maxTransactionAmount: Money.Decimal
  readonly lockedRate: Money.Decimal
}

/** The notional the delta is paid on: never more than `max_transaction_amount` (never pay on more than was locked). */
const covered = (lock: Lock): Money.Decimal => Money.min(lock.notionalAmount, lock.maxTransactionAmount)

const notionalInBase = (lock: Lock): boolean => lock.notionalCurrency === pair(lock.direction).base

/** The notional in BASE units: as is when written in BASE, else `notional / locked_rate`. */
export const notionalBase = (lock: Lock): Money.Decimal =>
  inBase(covered(lock), lock.notionalCurrency, lock.direction, lock.lockedRate)

/**
 * `notionalBase` as a model float, for the book's revaluation (risk.md), which reads it for every open lock at
 * once: one float division where the exact one costs microseconds. Never for an amount paid.
 */
export const notionalBaseModel = (lock: Lock): number => {
  const amount = Money.toModel(covered(lock))
  return notionalInBase(lock) ? amount : amount / Money.toModel(lock.lockedRate)
}

/**
 * The delta as an exact fraction `numerator / denominator`, so that every later step divides
 * once, at the end: a decimal division rounded and multiplied again could pay a unit short.
 */
const deltaFraction = (lock: Lock, liveExecutionRate: Money.Decimal) => {
  const gap = Money.max(Money.zero, Money.subtract(lock.lockedRate, liveExecutionRate))
  return {
    numerator: Money.multiply(covered(lock), gap),
    denominator: notionalInBase(lock) ? Money.one : lock.lockedRate
  }
}

/** `fx_delta_in_quote_currency = N_b × max(0, locked_rate − live_execution_rate)`. */
export const fxDeltaInQuoteCurrency = (lock: Lock, liveExecutionRate: Money.Decimal): Money.Decimal => {
  const { numerator, denominator } = deltaFraction(lock, liveExecutionRate)
  return Money.divide(numerator, denominator)
}

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

/** A QUOTE amount in the settlement fiat, as a fraction (see `deltaFraction`). */
const conversionFraction = (conversion: Conversion) => {
  switch (conversion._tag) {
    case "Identity":
      return { numerator: Money.one, denominator: Money.one }
    case "FromBase":
      return { numerator: Money.one, denominator: conversion.liveExecutionRate }
    case "Cross":
      return { numerator: conversion.fiatPerQuote, denominator: Money.one }
  }
}

export const convert = (amountInQuote: Money.Decimal, conversion: Conversion): Money.Decimal => {
  const { numerator, denominator } = conversionFraction(conversion)
  return Money.divide(Money.multiply(amountInQuote, numerator), denominator)
}

export interface Payout {
  /** Exact when the notional is in BASE; to 100 significant digits when it divides by the rate. */
  readonly fxDeltaInQuoteCurrency: Money.Decimal
  /** In the settlement fiat, rounded down to 6 decimals; `0.000000` when nothing is owed. */
  readonly amount: Money.Decimal
}

/** The payout: one exact division at the end, rounded down (the service pays). */
export const payout = (lock: Lock, liveExecutionRate: Money.Decimal, conversion: Conversion): Payout => {
  const delta = deltaFraction(lock, liveExecutionRate)
  const into = conversionFraction(conversion)
  const amount = Money.divide(
    Money.multiply(delta.numerator, into.numerator),
    Money.multiply(delta.denominator, into.denominator)
  )
  return { fxDeltaInQuoteCurrency: fxDeltaInQuoteCurrency(lock, liveExecutionRate), amount: Money.roundDown(amount) }
}
