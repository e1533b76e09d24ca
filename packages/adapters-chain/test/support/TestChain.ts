/**
 * What the gateway contract suite (`test/GatewayContract.ts`) needs from a chain besides the
 * gateway itself: a way to move tokens and time on it. Each chain's tests provide one next to
 * their `ChainGateway` layer: the simulated chain in memory, anvil for EVM, litesvm for Solana.
 */
import type { ChainGateway, Money } from "@ratelock/core"
import { Context, type Effect } from "effect"

export interface TestChainShape {
  /** The rail the suite runs on (one chain, one token the gateway is configured for). */
  readonly rail: ChainGateway.Rail
  /**
   * Confirmations (blocks or slots) the gateway waits for before it reports a transfer: right after
   * `fund`, `advance(depth - 1)` makes the transfer reportable and `advance(depth - 2)` does not.
   */
  readonly depth: number
  /** Sends `amount` of the rail's token from a funded test account to `address`, in its own transaction. */
  readonly fund: (address: string, amount: Money.Decimal) => Effect.Effect<{ readonly transactionHash: string }>
  /** Produces `blocks` more blocks (or slots) on top of the current head. */
  readonly advance: (blocks: number) => Effect.Effect<void>
  /** The rail's token balance of an address (a payout destination), as a decimal amount. */
  readonly balanceOf: (address: string) => Effect.Effect<Money.Decimal>
  /** A fresh, valid destination address that holds nothing (with a token account where the chain needs one). */
  readonly freshDestination: Effect.Effect<string>
  /** Moves the hot wallet's token balance away (keeping what pays fees), so payouts lack funds. */
  readonly drainHotWallet: Effect.Effect<void>
  /** Gives the hot wallet plenty of the token again. */
  readonly refillHotWallet: Effect.Effect<void>
}

export class TestChain extends Context.Service<TestChain, TestChainShape>()(
  "@ratelock/adapters-chain/test/TestChain"
) {}
