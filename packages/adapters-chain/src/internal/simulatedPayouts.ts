/**
 * What both simulated chains answer alike about a payout in flight: they mine every payout they
 * are sent once its delay has passed, whatever it pays in fees, so nothing is ever replaced; a
 * payout has the one version it was prepared with; and there is no hot wallet to watch. An
 * address is checked by the form a payout's destination must have (`checks.checkAddress`).
 *
 * With no hot wallet there is no balance to share either: an order's `committed` (what payouts
 * signed and not yet confirmed owe) is ignored, and no draft is refused for want of funds.
 */
import { ChainGateway } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import { checkAddress } from "./checks.ts"
import * as Encoding from "./encoding.ts"
import * as Prepared from "./prepared.ts"

export const make = (
  preparePayout: ChainGateway.ChainGatewayShape["preparePayout"]
): Pick<
  ChainGateway.ChainGatewayShape,
  "checkAddress" | "draftPayout" | "replacePayout" | "inspectPayout" | "hotWallet"
> => ({
  checkAddress: (rail, address) =>
    Effect.as(checkAddress(rail, address), Encoding.canonicalAddress(rail.chain, address)),
  draftPayout: (order) => Effect.succeed(ChainGateway.withoutNonce(preparePayout(order))),
  replacePayout: (rail, prepared) =>
    Effect.as(Prepared.read(rail, prepared), {
      _tag: "Waiting",
      reason: "mining",
      message: "the simulated chain mines every payout it is sent: nothing to replace"
    } as const),
  inspectPayout: (rail, prepared) =>
    Effect.map(Prepared.read(rail, prepared), () => ({
      versions: [
        {
          transactionHash: prepared.transactionHash,
          nonce: null,
          kind: "transfer" as const,
          fees: {},
          // the simulated chain keeps no signing time: the epoch says "unknown"
          signedAt: DateTime.makeUnsafe(0)
        }
      ],
      chainAsks: {}
    })),
  // sweeps without a destination land on the rail's simulated hot wallet address, but no payout is
  // paid from it (they come from no wallet): there is no hot wallet whose balances would mean anything
  hotWallet: () => Effect.succeed(null)
})
