/**
 * One look at a signed job that is not settled yet (a payout, a sweep, a refund): every version
 * looked up; mined or failed for good is the answer; otherwise a replacement when the chain's pace
 * calls for one (to persist, then broadcast), or the same signed bytes broadcast again and why the
 * job still waits. The callers decide what each answer means for their records.
 */
import { Effect } from "effect"
import { ChainGateway, type PayoutLookup, type PreparedPayout, type Rail } from "../ChainGateway.ts"
import type { PayoutWait } from "../../terms/PayoutWait.ts"

export type Step =
  /** The chain did not answer: look again next pass. */
  | { readonly _tag: "NoAnswer" }
  | Extract<PayoutLookup, { readonly _tag: "Confirmed" }>
  /** Every version failed for good (none can be mined): a new job may be signed. */
  | Extract<PayoutLookup, { readonly _tag: "Failed" }>
  /** A new version to persist before it is broadcast. */
  | { readonly _tag: "Replace"; readonly prepared: PreparedPayout }
  /** Broadcast again (or refused); `note` says what an operator should read, when anything. */
  | { readonly _tag: "Wait"; readonly waiting: PayoutWait; readonly note: string | undefined }

export const step = Effect.fnUntraced(function* (rail: Rail, prepared: PreparedPayout) {
  const gateway = yield* ChainGateway
  const lookup = yield* Effect.option(gateway.lookupPayout(rail, prepared))
  if (lookup._tag === "None") return { _tag: "NoAnswer" } as Step
  const found = lookup.value
  if (found._tag === "Confirmed") return found as Step
  if (found._tag === "Failed") return found as Step
  const next = yield* Effect.result(gateway.replacePayout(rail, prepared, "due"))
  if (next._tag === "Success" && next.success._tag === "Replaced") {
    return { _tag: "Replace", prepared: next.success.prepared } as Step
  }
  const waiting = next._tag === "Success" && next.success._tag === "Waiting" ? next.success.reason : "mining"
  // a replacement the gateway could not make is shown, not hidden: the operator reads why
  const notReplaced =
    next._tag === "Failure" ? `not replaced: ${next.failure.reason}: ${next.failure.message}` : undefined
  // the same signed bytes again: a duplicate broadcast cannot pay twice
  const sent = yield* Effect.result(gateway.broadcastPayout(rail, prepared))
  if (sent._tag === "Success") return { _tag: "Wait", waiting, note: notReplaced } as Step
  return {
    _tag: "Wait",
    waiting: sent.failure.reason === "insufficient_funds" ? "insufficient_funds" : waiting,
    note: notReplaced ?? `${sent.failure.reason}: ${sent.failure.message}`
  } as Step
})
