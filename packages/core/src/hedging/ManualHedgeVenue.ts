/**
 * The manual venue: a trader executes hedge orders by hand, outside the service, and records the
 * outcome with `HedgeDesk.fill` / `HedgeDesk.reject` (`ratelock hedge fill|reject`). Sending an
 * order records nothing new: the stored order, `sent`, is the trader's ticket. So the venue's
 * knowledge is the order store itself, and it lives here, over the `HedgeOrderRepo` port, rather
 * than in an adapter.
 */
import { Effect, Layer, Option } from "effect"
import type { HedgeOrder } from "./HedgeOrder.ts"
import { HedgeOrderRepo } from "./HedgeOrderRepo.ts"
import { HedgeVenue, type Lookup, VenueError } from "./HedgeVenue.ts"

export const name = "manual"

/** What the desk knows of a stored order. */
const lookupOf = (order: HedgeOrder): Lookup => {
  // stored but never handed to the desk: sending it is what puts it on the trader's list
  if (order.status === "intended") return { _tag: "Unknown" }
  if (order.status === "sent") return { _tag: "Pending" }
  if (order.status === "rejected")
    return { _tag: "Rejected", reason: order.rejectionReason ?? "rejected by the trader" }
  return { _tag: "Filled", fill: { rate: order.fillRate!, amount: order.fillAmount!, at: order.filledAt! } }
}

export const layer: Layer.Layer<HedgeVenue, never, HedgeOrderRepo> = Layer.effect(
  HedgeVenue,
  Effect.gen(function* () {
    const orders = yield* HedgeOrderRepo
    return HedgeVenue.of({
      name,
      // the order waits, `sent`, for a trader
      execute: () => Effect.succeed({ _tag: "Pending" }),
      lookup: (orderId) =>
        orders.find(orderId).pipe(
          Effect.map((found) => Option.match(found, { onNone: (): Lookup => ({ _tag: "Unknown" }), onSome: lookupOf })),
          Effect.mapError((e) => new VenueError({ venue: name, reason: "unavailable", message: e.message }))
        )
    })
  })
)
