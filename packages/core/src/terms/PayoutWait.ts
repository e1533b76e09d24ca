/**
 * Why a payout that is signed and not failed has not landed yet: the one list, shown to operators
 * (`ratelock payouts list`, `GET /operator/v1/payouts`). A payout that only waits is never reported
 * to the partner as failed.
 */
import { Record, Schema } from "effect"

export const payoutWaits = {
  mining: "Broadcast and paying what the chain asks: it waits for a block.",
  fee_cap: "The chain asks a fee above the operator's cap (RATELOCK_<CHAIN>_MAX_FEE_GWEI): it waits for fees to fall.",
  insufficient_funds: "The hot wallet cannot pay it (the token, or the native currency for the fee).",
  behind_nonce: "An earlier transaction of the hot wallet (a lower nonce) has not been mined yet."
} as const

export const PayoutWait = Schema.Literals(Record.keys(payoutWaits))
export type PayoutWait = typeof PayoutWait.Type

/** Waits that do not end by themselves (an operator raises the cap or funds the hot wallet): "stuck". */
export const stuckWaits: ReadonlyArray<PayoutWait> = ["fee_cap", "insufficient_funds"]

/** A payout not landed that waits on something an operator must change. */
export const isStuck = (payout: {
  readonly status: "pending" | "prepared" | "confirmed" | "failed"
  readonly waiting: PayoutWait | null
}): boolean =>
  (payout.status === "pending" || payout.status === "prepared") &&
  payout.waiting !== null &&
  stuckWaits.includes(payout.waiting)
