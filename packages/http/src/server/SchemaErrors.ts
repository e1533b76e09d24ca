/**
 * Request decoding failures as the spec's 422 (recipes.md): every issue of the request, each with
 * `loc` rooted at `path`, `query`, `header` or `body`. Header names appear as partners write them
 * (`Idempotency-Key`), not as HttpApi matches them (lowercase).
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { type HttpApiError, HttpApiMiddleware } from "effect/http-api"
import { envelope, ValidationFailed } from "../api/Errors.ts"
import { RequestValidation } from "../api/Validation.ts"
import { IssueDetail } from "@ratelock/core"

const roots = { Params: "path", Query: "query", Headers: "header", Payload: "body" } as const

/** `idempotency-key` → `Idempotency-Key`. */
const headerName = (key: string | number) =>
  typeof key === "number" ? key : key.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase())

/** The request part that failed, as received: the walk reads refused values from it. */
const inputOf = (
  kind: keyof typeof roots
): Effect.Effect<
  unknown,
  never,
  HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams | HttpRouter.RouteContext
> => {
  switch (kind) {
    case "Payload":
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        request.text.pipe(
          Effect.flatMap((text) => Effect.try((): unknown => JSON.parse(text))),
          Effect.orElseSucceed(() => undefined)
        )
      )
    case "Query":
      return Effect.map(HttpServerRequest.ParsedSearchParams, (query): unknown => query)
    case "Headers":
      return Effect.map(HttpServerRequest.HttpServerRequest, (request): unknown => request.headers)
    case "Params":
      return Effect.map(HttpRouter.RouteContext, (route): unknown => route.params)
  }
}

export const toValidationFailed = (
  error: HttpApiError.HttpApiSchemaError,
  root: string,
  input: unknown
): ValidationFailed => {
  let detail = IssueDetail.flatten(error.cause.issue, [root], input)
  if (root === "header") detail = detail.map((item) => ({ ...item, loc: [root, ...item.loc.slice(1).map(headerName)] }))
  const n = detail.length
  return new ValidationFailed({ ...envelope("validation_error", `${n} invalid field${n === 1 ? "" : "s"}`), detail })
}

export const layer = HttpApiMiddleware.layerSchemaErrorTransform(RequestValidation, (error) => {
  const kind = error.kind
  // a response that does not encode is the service's bug: a 500, logged by the envelope middleware
  if (kind === "Body" || kind === "ResponseHeaders") return Effect.fail(error)
  return Effect.flatMap(inputOf(kind), (input) => Effect.fail(toValidationFailed(error, roots[kind], input)))
})
