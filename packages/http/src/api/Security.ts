/**
 * Partner authentication: three headers (`X-Partner-Key-Id`, `X-Partner-Key-Secret`,
 * `X-Partner-Environment`). The middleware decodes the secret as its credential and reads the
 * other two from the request; it provides the authenticated partner to every handler.
 */
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import type { Partner } from "@ratelock/core"
import { Forbidden, Unauthorized } from "./Errors.ts"

export interface AuthenticatedPartner extends Partner.PartnerScope {
  readonly partnerName: string
  readonly apiKeyId: string
}

export class CurrentPartner extends Context.Service<CurrentPartner, AuthenticatedPartner>()(
  "@ratelock/http/CurrentPartner"
) {}

export const keyIdHeader = "x-partner-key-id"
export const environmentHeader = "x-partner-environment"

export class PartnerAuth extends HttpApiMiddleware.Service<
  PartnerAuth,
  { provides: CurrentPartner; requires: never }
>()("@ratelock/http/PartnerAuth", {
  requiredForClient: true,
  security: { partnerKeySecret: HttpApiSecurity.apiKey({ key: "X-Partner-Key-Secret", in: "header" }) },
  error: [Unauthorized, Forbidden]
}) {}

/** The OpenAPI names of the three credential headers. */
const schemes = {
  partnerKeyId: { type: "apiKey", name: "X-Partner-Key-Id", in: "header", description: "Public id of the API key" },
  partnerKeySecret: {
    type: "apiKey",
    name: "X-Partner-Key-Secret",
    in: "header",
    description: "Secret of the API key"
  },
  partnerEnvironment: {
    type: "apiKey",
    name: "X-Partner-Environment",
    in: "header",
    description: "`sandbox` or `production`: the environment the key belongs to"
  }
} as const

type Operation = { security?: ReadonlyArray<Record<string, unknown>> }

/**
 * OpenAPI transform: the middleware decodes one credential, but a call needs all three headers.
 * Declares the other two as schemes and makes every secured operation require the three together.
 */
export const credentialSchemes = (spec: Record<string, unknown>): Record<string, unknown> => {
  const components = (spec.components ?? {}) as { readonly securitySchemes?: Record<string, unknown> }
  const paths = (spec.paths ?? {}) as Record<string, Record<string, Operation>>
  const all = { partnerKeyId: [], partnerKeySecret: [], partnerEnvironment: [] }
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (operation.security?.some((requirement) => "partnerKeySecret" in requirement)) operation.security = [all]
    }
  }
  return { ...spec, components: { ...components, securitySchemes: { ...components.securitySchemes, ...schemes } } }
}
