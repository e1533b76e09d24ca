/**
 * The book the hedging crash tests sell: locks in two market pairs, each with its sandbox hedge
 * policy (USD/BRL spot, EUR/USD forward), bands below one lock's delta so that every lock moves the
 * hedge; every third lock is left open, the others exercised (paid and zero payouts in turn), so
 * the delta rises and falls and ends where the open locks leave it.
 */
import type { Requests } from "@ratelock/core"

export const pairs = {
  "USD/BRL": { band: "1500", instrument: ["spot"], quote: { direction: "USD_TO_BRL", notional_currency: "USD" } },
  "EUR/USD": {
    band: "1000",
    instrument: ["forward", "--value-days", "30"],
    quote: { direction: "EUR_TO_USD", notional_currency: "EUR", provider_rate: "1.17", market_rate: "1.17" }
  }
} as const

export type Pair = keyof typeof pairs

/** Lock `n`'s pair: two of each in turn. */
export const pairOf = (n: number): Pair => (n % 4 < 2 ? "USD/BRL" : "EUR/USD")

/** Lock `n` is left open (not exercised). */
export const held = (n: number) => n % 3 === 2

/** Whether lock `n`, exercised, is paid (else a zero payout). */
export const paid = (n: number) => n % 2 === 0

/** Lock `n`'s quote: its pair's corridor, 5,000 to 20,000 of BASE. */
export const quoteOf = (n: number): Partial<Requests.QuoteRequestBody> => ({
  ...pairs[pairOf(n)].quote,
  notional_amount: String(5_000 + Math.floor(Math.random() * 15_000))
})

/** The `ratelock` arguments that set every pair's policy in `environment`. */
export const policyCommands = (environment: "sandbox" | "production"): ReadonlyArray<ReadonlyArray<string>> =>
  Object.entries(pairs).map(([pair, policy]) => [
    "hedge",
    "policy",
    "set",
    "--environment",
    environment,
    "--pair",
    pair,
    "--band",
    policy.band,
    "--instrument",
    ...policy.instrument
  ])
