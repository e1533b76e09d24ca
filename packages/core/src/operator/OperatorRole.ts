/**
 * What an operator token may do. Roles are ordered, each holding the rights of those before it:
 *
 * - `viewer`: every read (status, market, risk, orders, deliveries, payouts, treasury, audit,
 *   `/metrics`, the console);
 * - `trader`: a viewer who also fills and rejects hedge orders;
 * - `risk`: a trader who also imports market snapshots and sets corridor limits, hedge policies
 *   and risk scenarios;
 * - `admin`: everything, partners, keys, webhooks, refunds, payout bumps and cancellations and
 *   operator tokens included.
 *
 * Which role a route needs is declared beside the route, in the host.
 */
import { Schema } from "effect"

export const roles = ["viewer", "trader", "risk", "admin"] as const

export const OperatorRole = Schema.Literals(roles).annotate({
  identifier: "OperatorRole",
  description: "viewer < trader < risk < admin: each holds the rights of those before it"
})
export type OperatorRole = typeof OperatorRole.Type

/** Whether a token of role `held` may do what needs `needed`. */
export const allows = (held: OperatorRole, needed: OperatorRole): boolean =>
  roles.indexOf(held) >= roles.indexOf(needed)
