import { type DateTime, Effect } from "effect"
import { MovementRepo } from "../MovementRepo.ts"
import type { PayoutRecord } from "../PayoutRepo.ts"
import * as TreasuryLedger from "../TreasuryLedger.ts"

/**
 * The network fee of a payout's mined transaction, booked in the treasury ledger once (by the
 * payout's id): the hot wallet's native currency to the fees.
 */
export const book = Effect.fnUntraced(function* (
  payout: PayoutRecord,
  native: TreasuryLedger.NativeMovement,
  at: DateTime.Utc,
  source = `payout-fee:${payout.id}`
) {
  const booking: TreasuryLedger.Booking = {
    source,
    kind: "network_fee",
    environment: payout.environment,
    chain: payout.chain,
    contractId: payout.contractId,
    partnerId: payout.partnerId,
    at
  }
  yield* (yield* MovementRepo).book(
    TreasuryLedger.entries(booking, TreasuryLedger.nativeLines(payout.chain, null, native))
  )
})
