/**
 * What a claim reads of an `idempotency_keys` row another request holds: the fingerprint, and the
 * response once stored (both response columns set, or neither).
 */
import { IdempotencyRepo } from "@ratelock/core"
import { Schema } from "effect"
import { rowSchema } from "./columns.ts"

/** A key another request holds → in flight until its response is stored, then completed. */
const HeldKeyColumns = Schema.Struct({
  fingerprint: Schema.String,
  response_status: Schema.NullOr(Schema.Int),
  response_body: Schema.NullOr(Schema.String)
})

export const HeldKeyRow = rowSchema(
  "IdempotencyKeyRow",
  HeldKeyColumns,
  Schema.Union([IdempotencyRepo.InFlight, IdempotencyRepo.Completed]),
  (r) =>
    IdempotencyRepo.heldClaim(
      r.fingerprint,
      r.response_status === null || r.response_body === null
        ? null
        : { status: r.response_status, body: r.response_body }
    )
)
