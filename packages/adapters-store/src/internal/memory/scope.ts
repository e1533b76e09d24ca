/**
 * Tenancy: every partner-facing row carries `(partnerId, environment)`, and a row outside the
 * caller's scope is "not found".
 */
import { Option } from "effect"
import type { Partner } from "@ratelock/core"

export interface Scoped {
  readonly partnerId: string
  readonly environment: string
}

export const inScope = (scope: Partner.PartnerScope, row: Scoped): boolean =>
  row.partnerId === scope.partnerId && row.environment === scope.environment

/** The row, if it belongs to the scope. */
export const scoped = <A extends Scoped>(scope: Partner.PartnerScope, row: Option.Option<A>): Option.Option<A> =>
  Option.filter(row, (r) => inScope(scope, r))

/** A key unique within a scope, e.g. an Idempotency-Key: `partner|environment|key`. */
export const scopedKey = (scope: Scoped, key?: string): string =>
  key === undefined ? `${scope.partnerId}|${scope.environment}` : `${scope.partnerId}|${scope.environment}|${key}`
