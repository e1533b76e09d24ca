/**
 * The operator API's access: who may call it (the operator tokens, each with a name, a role and
 * perhaps an expiry) and what was done with it (the audit log). Tokens are an admin's; the log is
 * every operator's to read. Each route's JSON is what the CLI's `--json` prints (`ratelock
 * operator token …`, `ratelock audit list`).
 */
import { AuditLog, Fields, OperatorRole, OperatorTokens } from "@ratelock/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { OptionalIdempotencyKey } from "./Headers.ts"
import { changing, reading } from "./OperatorDesk.ts"
import { AuditedAction, RequiredRole } from "./OperatorRoles.ts"
import { OperatorAuth } from "./OperatorSecurity.ts"

export const TokenList = Schema.Struct({ items: Schema.Array(OperatorTokens.TokenListing) }).annotate({
  identifier: "OperatorTokens"
})

/** What the log is filtered by: an actor, an action, a target's id (as they are recorded, exactly). */
export const AuditFilter = Fields.BoundedString(256)

/** The audit route's query; the CLI checks its flags with the same schema before calling either way. */
export const AuditQuery = {
  actor: Schema.optionalKey(AuditFilter).annotate({
    description: "The operator's name (a token's), or cli:<user>@<host>"
  }),
  action: Schema.optionalKey(AuditFilter).annotate({ description: "limits.set, operator.token.create, ..." }),
  target: Schema.optionalKey(AuditFilter).annotate({ description: "The target's id: a partner's, a corridor's, ..." }),
  since: Schema.optionalKey(Fields.Datetime).annotate({ description: "Only records at or after this instant" }),
  cursor: Schema.optionalKey(Schema.String).annotate({ description: "The next_cursor of the page before" }),
  limit: Schema.optionalKey(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: AuditLog.maxLimit }))
  ).annotate({ description: `Records per page, 1 to ${AuditLog.maxLimit} (${AuditLog.defaultLimit})` })
}

export class AccessGroup extends HttpApiGroup.make("access")
  .add(
    HttpApiEndpoint.get("tokens", "/v1/tokens", { success: TokenList, error: reading })
      .annotate(RequiredRole, "admin")
      .annotate(OpenApi.Summary, "Every operator token, live, expired or revoked: role, expiry, last use; no secret"),
    HttpApiEndpoint.post("createToken", "/v1/tokens", {
      headers: OptionalIdempotencyKey,
      payload: Schema.Struct({
        name: Schema.String.annotate({ description: "Who or what holds it (alice, prometheus): 1 to 100 characters" }),
        role: OperatorRole.OperatorRole,
        expires_in: Schema.optionalKey(Schema.String).annotate({
          description: "How long it lives: 30d, 12h, 90m (at most 10 years); absent: until revoked"
        })
      }),
      success: OperatorTokens.CreatedToken.pipe(HttpApiSchema.status(201)),
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "operator.token.create", targetKind: "operator_token" })
      .annotate(OpenApi.Summary, "Create an operator token with a role: its secret is in this answer, once"),
    HttpApiEndpoint.post("revokeToken", "/v1/tokens/:token_id/revoke", {
      // what is not a token's id is no token (404); a NUL could not even be recorded (422)
      params: { token_id: Schema.String.check(Fields.noNul) },
      headers: OptionalIdempotencyKey,
      success: OperatorTokens.RevokedToken,
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "operator.token.revoke", targetKind: "operator_token" })
      .annotate(OpenApi.Summary, "Revoke an operator token: refused from its next request (again: no change)"),
    HttpApiEndpoint.get("audit", "/v1/audit", {
      query: AuditQuery,
      success: AuditLog.AuditPage,
      error: reading
    })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "The audit log, newest first: who did what to what, when, under which role, and with what outcome"
      )
  )
  .middleware(OperatorAuth)
  .prefix("/operator")
  .annotate(OpenApi.Description, "Operator tokens and the audit log of every operator action") {}
