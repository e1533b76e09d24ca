/**
 * The typed failures of the partner API (api-decisions.md), shared by the lifecycle programs and
 * the HTTP host. Each has the wire `code`; HTTP statuses are the host's business, not core's.
 */
import { Schema } from "effect"

/** One item of a 422 `detail` array. */
export const ValidationIssue = Schema.Struct({
  loc: Schema.Array(Schema.Union([Schema.String, Schema.Int])),
  msg: Schema.String,
  type: Schema.String
})
export type ValidationIssue = typeof ValidationIssue.Type

/**
 * The `type` a failed check of ours reports in a 422 item (api-decisions.md's familiar names),
 * written on the check itself with {@link issueType}: the host reads it from the failing check.
 * A check without one is named by what Effect says of it (its length or bounds), else
 * `string_pattern_mismatch` or `value_error`.
 */
export type CheckIssueType =
  | "datetime_parsing"
  | "decimal_parsing"
  | "int_parsing"
  | "greater_than"
  | "greater_than_equal"

const issueTypeKey = "ratelock/issueType"

/** Annotations of a check naming the 422 `type` its failure reports. */
export const issueType = (type: CheckIssueType | (string & {})): Schema.Annotations.Filter => ({ [issueTypeKey]: type })

/** The 422 `type` a check's annotations name, if they name one. */
export const issueTypeOf = (annotations: Schema.Annotations.Filter | undefined): string | undefined => {
  const type = annotations?.[issueTypeKey]
  return typeof type === "string" ? type : undefined
}

/** The body of every error response: `error: {code, message}`, plus `detail` on 422. */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, message: Schema.String }),
  detail: Schema.optionalKey(Schema.Array(ValidationIssue))
}).annotate({ identifier: "ErrorBody" })
export type ErrorBody = typeof ErrorBody.Type

const message = { message: Schema.String }

export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  message: Schema.String,
  detail: Schema.Array(ValidationIssue)
}) {
  get code() {
    return "validation_error" as const
  }
  static fromIssues(detail: ReadonlyArray<ValidationIssue>): ValidationError {
    const n = detail.length
    return new ValidationError({ message: `${n} invalid field${n === 1 ? "" : "s"}`, detail })
  }
}

export class QuoteNotFound extends Schema.TaggedError<QuoteNotFound>()("QuoteNotFound", message) {
  get code() {
    return "quote_not_found" as const
  }
}

export class ContractNotFound extends Schema.TaggedError<ContractNotFound>()("ContractNotFound", message) {
  get code() {
    return "contract_not_found" as const
  }
}

export class WebhookEventNotFound extends Schema.TaggedError<WebhookEventNotFound>()("WebhookEventNotFound", message) {
  get code() {
    return "webhook_event_not_found" as const
  }
}

export class WebhookInboxNotFound extends Schema.TaggedError<WebhookInboxNotFound>()("WebhookInboxNotFound", message) {
  get code() {
    return "webhook_inbox_not_found" as const
  }
}

export class QuoteExpired extends Schema.TaggedError<QuoteExpired>()("QuoteExpired", message) {
  get code() {
    return "quote_expired" as const
  }
}

export class QuoteNotAccepted extends Schema.TaggedError<QuoteNotAccepted>()("QuoteNotAccepted", message) {
  get code() {
    return "quote_not_accepted" as const
  }
}

export class QuoteAlreadyAccepted extends Schema.TaggedError<QuoteAlreadyAccepted>()("QuoteAlreadyAccepted", message) {
  get code() {
    return "quote_already_accepted" as const
  }
}

/**
 * A contract that would take its corridor past a limit (risk.md, Limits): the capacity went since the
 * quote was priced, or an operator lowered a limit. Checked atomically with the contract's insert.
 */
export class CorridorCapacityExceeded extends Schema.TaggedError<CorridorCapacityExceeded>()(
  "CorridorCapacityExceeded",
  message
) {
  get code() {
    return "corridor_capacity_exceeded" as const
  }
}

export class ContractMismatch extends Schema.TaggedError<ContractMismatch>()("ContractMismatch", message) {
  get code() {
    return "contract_mismatch" as const
  }
}

export class InvalidContractState extends Schema.TaggedError<InvalidContractState>()("InvalidContractState", message) {
  get code() {
    return "invalid_contract_state" as const
  }
}

export class OutsideWindow extends Schema.TaggedError<OutsideWindow>()("OutsideWindow", message) {
  get code() {
    return "outside_window" as const
  }
}

export class FundingAmountInvalid extends Schema.TaggedError<FundingAmountInvalid>()("FundingAmountInvalid", message) {
  get code() {
    return "funding_amount_invalid" as const
  }
}

export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", message) {
  get code() {
    return "idempotency_key_reused" as const
  }
}

export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()("IdempotencyKeyInUse", message) {
  get code() {
    return "idempotency_key_in_use" as const
  }
}

/** Refusals of a contract transition (the state machine's typed "no"). */
export type TransitionRefusal = InvalidContractState | ContractMismatch | OutsideWindow | FundingAmountInvalid

export type ApiError =
  | ValidationError
  | QuoteNotFound
  | ContractNotFound
  | WebhookEventNotFound
  | WebhookInboxNotFound
  | QuoteExpired
  | QuoteNotAccepted
  | QuoteAlreadyAccepted
  | CorridorCapacityExceeded
  | IdempotencyKeyReused
  | IdempotencyKeyInUse
  | TransitionRefusal

/** The wire body of a typed failure. */
export const toBody = (error: ApiError): ErrorBody =>
  error._tag === "ValidationError"
    ? { error: { code: error.code, message: error.message }, detail: error.detail }
    : { error: { code: error.code, message: error.message } }
