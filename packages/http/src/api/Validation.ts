/**
 * Request validation as an API-wide middleware: the server turns every request decoding failure
 * (path, query, headers, body) into the spec's 422 body, with `loc`, `msg` and `type` per issue.
 * Declared here so the OpenAPI document and the typed client know the 422 of every route.
 */
import { HttpApiMiddleware } from "effect/http-api"
import { ValidationFailed } from "./Errors.ts"

export class RequestValidation extends HttpApiMiddleware.Service<RequestValidation>()(
  "@ratelock/http/RequestValidation",
  { error: ValidationFailed }
) {}
