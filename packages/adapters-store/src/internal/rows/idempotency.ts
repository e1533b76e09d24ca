/**
 * What a claim reads of an `idempotency_keys` row another request holds: the fingerprint, and the
 * response once stored (both response columns set, or neither).
 */
import { IdempotencyRepo } from "@ratelock/core"
import { Schema, SchemaGetter } from "effect"
import { compiled } from "./columns.ts"

const KeyColumns = Schema.Struct({
  fingerprint: Schema.String,
  response_status: Schema.NullOr(Schema.Int),
  response_body: Schema.NullOr(Schema.String)
})

/** A key another request holds: in flight until its response is stored, then completed. */
export const HeldKeyRow = compiled(
  KeyColumns.pipe(
    Schema.decodeTo(Schema.Union([IdempotencyRepo.InFlight, IdempotencyRepo.Completed]), {
      decode: SchemaGetter.transform((r: typeof KeyColumns.Type) =>
        r.response_status === null || r.response_body === null
          ? IdempotencyRepo.InFlight.make({ fingerprint: r.fingerprint })
          : IdempotencyRepo.Completed.make({
              fingerprint: r.fingerprint,
              response: { status: r.response_status, body: r.response_body }
            })
      ),
      encode: SchemaGetter.transform(
        (claim: IdempotencyRepo.InFlight | IdempotencyRepo.Completed): typeof KeyColumns.Type => ({
          fingerprint: claim.fingerprint,
          response_status: claim._tag === "Completed" ? claim.response.status : null,
          response_body: claim._tag === "Completed" ? claim.response.body : null
        })
      )
    })
  ).annotate({ identifier: "IdempotencyKeyRow" })
)
