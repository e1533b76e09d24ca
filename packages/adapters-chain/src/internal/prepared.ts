/**
 * A simulated payout transaction as both chains persist it: a hash that depends only on the payout
 * id and attempt, and the order it pays, serialised.
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

/** The order behind a persisted transaction, or `invalid_prepared` when it is not one of ours. */
export const read = (rail: ChainGateway.Rail, payout: ChainGateway.PreparedPayout) =>
  Option.match(Ledger.decodePrepared(payout.persisted), {
    onNone: () => Effect.fail(chainError(rail.chain, "invalid_prepared", "not a simulated payout")),
    onSome: Effect.succeed
  })
