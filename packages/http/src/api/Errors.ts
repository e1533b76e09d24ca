/**
 * The error responses of the Partner API: one class per HTTP status, each with the
 * `error: {code, message}` envelope of api-decisions.md (422 adds the spec's `detail` array).
 * Core's typed failures become these in `server/HttpErrors.ts`; statuses live here, not in core.
 */
import { Schema } from "effect"
import { ApiError } from "@ratelock/core"

const Envelope = { error: Schema.Struct({ code: Schema.String, message: Schema.String }) }

export class BadRequest extends Schema.Error<BadRequest>("BadRequest")(Envelope, { httpApiStatus: 400 }) {}
export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(Envelope, { httpApiStatus: 401 }) {}
export class Forbidden extends Schema.Error<Forbidden>("Forbidden")(Envelope, { httpApiStatus: 403 }) {}
export class NotFound extends Schema.Error<NotFound>("NotFound")(Envelope, { httpApiStatus: 404 }) {}
export class Conflict extends Schema.Error<Conflict>("Conflict")(Envelope, { httpApiStatus: 409 }) {}
export class PayloadTooLarge extends Schema.Error<PayloadTooLarge>("PayloadTooLarge")(Envelope, {
  httpApiStatus: 413
}) {}
export class ValidationFailed extends Schema.Error<ValidationFailed>("ValidationFailed")(
  { ...Envelope, detail: Schema.Array(ApiError.ValidationIssue) },
  { httpApiStatus: 422 }
) {}
export class TooManyRequests extends Schema.Error<TooManyRequests>("TooManyRequests")(Envelope, {
  httpApiStatus: 429
}) {}
export class InternalError extends Schema.Error<InternalError>("InternalError")(Envelope, { httpApiStatus: 500 }) {}
export class Unavailable extends Schema.Error<Unavailable>("Unavailable")(Envelope, { httpApiStatus: 503 }) {}

export const envelope = (code: string, message: string) => ({ error: { code, message } })
