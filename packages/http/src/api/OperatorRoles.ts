/**
 * What each operator route needs, declared beside the route in its group: the role
 * (`RequiredRole`, core's `OperatorRole`: viewer < trader < risk < admin) and, for a route that
 * changes something, the audited action it takes (`AuditedAction`, core's `OperatorActions`), so
 * a token refused the route is recorded under that action. Authentication reads both; a route
 * declaring no role needs `admin` (and the route table's test fails).
 */
import type { OperatorRole } from "@ratelock/core"
import { Context } from "effect"
import type { HttpApiEndpoint } from "effect/http-api"

export class RequiredRole extends Context.Service<RequiredRole, OperatorRole.OperatorRole>()(
  "@ratelock/http/RequiredRole"
) {}

export class AuditedAction extends Context.Service<
  AuditedAction,
  { readonly action: string; readonly targetKind: string }
>()("@ratelock/http/AuditedAction") {}

/** The role an endpoint declares, if it declares one. */
export const declaredRole = (endpoint: HttpApiEndpoint.Top) => Context.getOption(endpoint.annotations, RequiredRole)

/** The role an endpoint needs: what it declares, else `admin` (an undeclared route is no open door). */
export const requiredRole = (endpoint: HttpApiEndpoint.Top): OperatorRole.OperatorRole =>
  Context.getOrElse(endpoint.annotations, RequiredRole, () => "admin" as const)

/** The action a refused call of `endpoint` is recorded under: its audited action, else the route's name. */
export const actionOf = (endpoint: HttpApiEndpoint.Top) =>
  Context.getOrElse(endpoint.annotations, AuditedAction, () => ({
    action: `read.${endpoint.identifier}`,
    targetKind: "route"
  }))
