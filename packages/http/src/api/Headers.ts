/**
 * Request headers some routes take. Header keys are lowercase: HttpApi matches them as such.
 */
import { Schema } from "effect"
import { Fields } from "@ratelock/core"

/** Optional on quotes and contracts. */
export const OptionalIdempotencyKey = { "idempotency-key": Schema.optionalKey(Fields.IdempotencyKey) }

/** Required on the inbound webhook: its `duplicate` acknowledgement depends on it. */
export const RequiredIdempotencyKey = { "idempotency-key": Fields.IdempotencyKey }
