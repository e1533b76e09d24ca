/**
 * Who acts, for the audit record of what they do: an operator through the operator API (their
 * token's name, id and role, the request's id, trace and client address), or whoever runs the CLI
 * on the database (`cli:<OS user>@<host>`: they hold the database, so no role limits them).
 */
import { Context } from "effect"
import type { OperatorRole } from "./OperatorRole.ts"

export interface Actor {
  readonly via: "api" | "cli"
  /** The token's operator name, or `cli:<OS user>@<host>`. */
  readonly name: string
  readonly tokenId: string | null
  /** The role the action was taken under; null on the database (the CLI without the API). */
  readonly role: OperatorRole | null
  readonly requestId: string | null
  readonly traceId: string | null
  readonly clientAddress: string | null
}

export class OperatorActor extends Context.Service<OperatorActor, Actor>()("@ratelock/core/OperatorActor") {}

/** The CLI's actor on the database. */
export const cli = (user: string, host: string): Actor => ({
  via: "cli",
  name: `cli:${user}@${host}`,
  tokenId: null,
  role: null,
  requestId: null,
  traceId: null,
  clientAddress: null
})
