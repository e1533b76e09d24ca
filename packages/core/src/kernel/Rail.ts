/**
 * Settlement rails: the chain and the stablecoin a lock is funded and paid in.
 */
import { Schema } from "effect"
import type { Currency } from "./Corridor.ts"

export const Chain = Schema.Literals(["solana", "ethereum", "polygon"])
export type Chain = typeof Chain.Type

export const SettlementCurrency = Schema.Literals(["USDC", "USDT", "EURC"])
export type SettlementCurrency = typeof SettlementCurrency.Type

/** Currencies an inbound funds_in_route may name. */
export const FundsCurrency = Schema.Literals(["USDC", "USDT", "EURC", "BRLA"])
export type FundsCurrency = typeof FundsCurrency.Type

export const PayoutCurrency = Schema.Literals(["USDC", "BRLA"])
export type PayoutCurrency = typeof PayoutCurrency.Type

/** The fiat a token settles: USDC and USDT settle USD, EURC settles EUR, BRLA settles BRL. */
export const fiatOf = (token: FundsCurrency): Currency => {
  switch (token) {
    case "USDC":
    case "USDT":
      return "USD"
    case "EURC":
      return "EUR"
    case "BRLA":
      return "BRL"
  }
}

/** Whether two addresses on `chain` are the same: EVM's compare without case (checksummed or not), Solana's exactly. */
export const sameAddress = (chain: Chain, a: string, b: string): boolean =>
  chain === "solana" ? a === b : a.toLowerCase() === b.toLowerCase()

/** Token decimals per (token, chain); `undefined` where the token is not issued on that chain. */
const decimalsTable: Record<FundsCurrency, Partial<Record<Chain, number>>> = {
  USDC: { ethereum: 6, polygon: 6, solana: 6 },
  USDT: { ethereum: 6, polygon: 6, solana: 6 },
  EURC: { ethereum: 6, solana: 6 }, // Circle does not issue EURC on polygon
  BRLA: { ethereum: 6, polygon: 6, solana: 6 }
}

export const tokenDecimals = (token: FundsCurrency, chain: Chain): number | undefined => decimalsTable[token][chain]
