/**
 * A simulated payout or sweep transaction as both chains persist it: a hash that depends only on
 * the payout's (or sweep's) id and attempt, and the order it carries out, serialised.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { Effect, Option } from "effect"
import type { Digest } from "effect/crypto"
import { chainError } from "./checks.ts"
import * as Encoding from "./encoding.ts"
import * as Ledger from "./ledger.ts"

export const prepare = (
  digest: Digest.Digest["Service"],
  order: ChainGateway.PayoutOrder,
  attempt: number
): Effect.Effect<ChainGateway.PreparedPayout> =>
  Effect.map(
    Encoding.transactionHash(digest, order.rail, `payout:${order.payoutId}:${attempt}`),
    (transactionHash) => ({
      transactionHash,
      persisted: Ledger.encodePrepared({
        payoutId: order.payoutId,
        attempt,
        destination: order.destination,
        amount: Money.format(order.amount)
      })
    })
  )

/** A sweep's one transaction, to `destination` (the order's, or the rail's simulated hot wallet). */
export const prepareSweep = (
  digest: Digest.Digest["Service"],
  order: ChainGateway.SweepOrder,
  destination: string,
  attempt: number
): Effect.Effect<ChainGateway.PreparedPayout> =>
  Effect.map(Encoding.transactionHash(digest, order.rail, `sweep:${order.sweepId}:${attempt}`), (transactionHash) => ({
    transactionHash,
    persisted: Ledger.encodePrepared({
      kind: "sweep",
      sweepId: order.sweepId,
      attempt,
      source: order.source,
      destination,
      amount: Money.format(order.amount)
    })
  }))

/** The order behind a persisted transaction, or `invalid_prepared` when it is not one of ours. */
export const read = (rail: ChainGateway.Rail, payout: ChainGateway.PreparedPayout) =>
  Option.match(Ledger.decodePrepared(payout.persisted), {
    onNone: () => Effect.fail(chainError(rail.chain, "invalid_prepared", "not a simulated payout or sweep")),
    onSome: Effect.succeed
  })
