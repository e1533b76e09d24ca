/**
 * Operator authentication: `Authorization: Bearer <operator token>` on every route of the operator
 * API (`OperatorApi`), `/metrics` included. A partner's API key is not an operator token. The
 * middleware provides the token that authenticated the request, and the operator it acts as for
 * the audit log (core's `OperatorActor`), to the handler.
 */
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import type { OperatorActor, OperatorTokens } from "@ratelock/core"
import { Forbidden, Unauthorized } from "./Errors.ts"

export class CurrentOperator extends Context.Service<CurrentOperator, OperatorTokens.TokenListing>()(
  "@ratelock/http/CurrentOperator"
) {}

export class OperatorAuth extends HttpApiMiddleware.Service<
  OperatorAuth,
  { provides: CurrentOperator | OperatorActor.OperatorActor; requires: never }
>()("@ratelock/http/OperatorAuth", {
  requiredForClient: true,
  security: { operatorToken: HttpApiSecurity.bearer },
  error: [Unauthorized, Forbidden]
}) {}
