/**
 * Partner identity and environments.
 */
import { Schema } from "effect"
import { Environment } from "../kernel/Environment.ts"
import { Uuid } from "../kernel/Fields.ts"

// a partner's environment is named here too, where the wire schemas have always found it
export { Environment } from "../kernel/Environment.ts"

/** Response of `GET /api/v1/partners/me`. */
export const PartnerIdentity = Schema.Struct({
  partner_id: Uuid,
  partner_name: Schema.String,
  api_key_id: Uuid,
  environment: Environment
}).annotate({ identifier: "PartnerIdentity" })
export type PartnerIdentity = typeof PartnerIdentity.Type

/**
 * The first fields of every record a partner owns in one of its environments (quotes, contracts,
 * API keys, events): its id and whose it is, where.
 */
export const ownedFields = { id: Schema.String, partnerId: Schema.String, environment: Environment }

/** The caller of a request, once authenticated: every read and write is scoped by it. */
export const PartnerScope = Schema.Struct({ partnerId: Schema.String, environment: Environment })
export type PartnerScope = typeof PartnerScope.Type
