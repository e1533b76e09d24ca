/**
 * Each typed failure's status and body, as api-decisions.md's error table has them: the one map of
 * `HttpErrors.ts` must keep answering these (the e2e tests see only the failures a request can reach).
 */
import { assert, describe, it } from "@effect/vitest"
import { ApiError } from "@ratelock/core"
import { Schema } from "effect"
import { BadRequest, Conflict, NotFound, ValidationFailed } from "../src/api/Errors.ts"
import * as HttpErrors from "../src/server/HttpErrors.ts"

const classOf = { 400: BadRequest, 404: NotFound, 409: Conflict, 422: ValidationFailed } as const

const message = { message: "why" }

const cases: ReadonlyArray<readonly [HttpErrors.WireError, status: keyof typeof classOf]> = [
  [ApiError.ValidationError.fromIssues([{ loc: ["body", "x"], msg: "Missing key", type: "missing" }]), 422],
  [new ApiError.QuoteNotFound(message), 404],
  [new ApiError.ContractNotFound(message), 404],
  [new ApiError.WebhookEventNotFound(message), 404],
  [new ApiError.WebhookInboxNotFound(message), 404],
  [new ApiError.QuoteExpired(message), 409],
  [new ApiError.QuoteNotAccepted(message), 409],
  [new ApiError.QuoteAlreadyAccepted(message), 409],
  [new ApiError.CorridorCapacityExceeded(message), 409],
  [new ApiError.IdempotencyKeyReused(message), 409],
  [new ApiError.IdempotencyKeyInUse(message), 409],
  [new ApiError.ContractMismatch(message), 409],
  [new ApiError.InvalidContractState(message), 409],
  [new ApiError.OutsideWindow(message), 400],
  [new ApiError.FundingAmountInvalid(message), 400]
]

describe("HttpErrors", () => {
  it("answers each typed failure with its status, as stored replays and the HTTP error agree", () => {
    for (const [error, status] of cases) {
      assert.isTrue(HttpErrors.isWireError(error), error._tag)
      assert.strictEqual(HttpErrors.statusOf(error), status, error._tag)
      const httpError = HttpErrors.toHttpError(error)
      assert.instanceOf(httpError, classOf[status], error._tag)
      assert.strictEqual(Schema.resolveAnnotations(classOf[status])?.httpApiStatus, status)
      const body =
        "detail" in httpError ? { error: httpError.error, detail: httpError.detail } : { error: httpError.error }
      assert.deepStrictEqual(body, HttpErrors.bodyOf(error), error._tag)
    }
  })

  it("knows no other failure", () => {
    assert.isFalse(HttpErrors.isWireError({ _tag: "StoreError" }))
    assert.isFalse(HttpErrors.isWireError({ _tag: "toString" }))
    assert.isFalse(HttpErrors.isWireError("QuoteNotFound"))
  })
})
