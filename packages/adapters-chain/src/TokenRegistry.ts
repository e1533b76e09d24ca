/**
 * Which token contract (EVM) or mint (Solana) settles each currency on each chain, with the
 * decimals we expect. Mainnet defaults cover the tokens their issuers publish; BRLA has none (set
 * it by configuration). The gateways read the decimals from the chain at start and refuse to start
 * on a mismatch.
 */
import type { Rail } from "@ratelock/core"

export interface Token {
  /** Contract address (EVM) or mint (Solana). */
  readonly address: string
  readonly decimals?: number
}

export type Tokens = Partial<Record<Rail.FundsCurrency, Token>>

/** Published mainnet deployments (Circle's USDC and EURC, Tether's USDT). */
export const mainnet: Readonly<Record<Rail.Chain, Tokens>> = {
  ethereum: {
    USDC: { address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6 },
    USDT: { address: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: 6 },
    EURC: { address: "0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c", decimals: 6 }
  },
  polygon: {
    // native USDC (not the bridged USDC.e)
    USDC: { address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", decimals: 6 },
    USDT: { address: "0xc2132D05D31c914a87C6611C10748AEb04B58e8F", decimals: 6 }
  },
  solana: {
    USDC: { address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 },
    USDT: { address: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", decimals: 6 },
    EURC: { address: "HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr", decimals: 6 }
  }
}

/** Whether `tokens` settles `token`. */
export const has = (tokens: Tokens | undefined, token: Rail.FundsCurrency): boolean => tokens?.[token] !== undefined
