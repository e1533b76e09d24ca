/**
 * Failures of the persistence ports. They are not the partner's fault: the HTTP host answers
 * them with a generic 500 and logs the cause.
 */
import { Schema } from "effect"

export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/** A concurrent writer moved the contract first: re-read and try again. */
export class StaleContract extends Schema.TaggedError<StaleContract>()("StaleContract", {
  contractId: Schema.String
}) {}
