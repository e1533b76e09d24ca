/**
 * The demo partner: on a first start with no partners at all, one partner with a sandbox key, so
 * `pnpm start` is usable at once, and an operator token named `demo` for the operator API (the
 * embedded database is locked by the running server, so `ratelock operator token create` could
 * not be run beside it). Both are printed once and never again (only their hashes are stored).
 */
import {
  IdGenerator,
  type OperatorTokenRepo,
  OperatorTokens,
  PartnerRepo,
  Partners,
  type StoreError,
  type WebhookUrlCheck
} from "@ratelock/core"
import { Effect, Option } from "effect"
import type { Digest, SecureRandom } from "effect/crypto"
import * as SandboxInbox from "./sandbox/SandboxInbox.ts"

export const name = "Demo partner"

/** The name of the operator token a first start creates. */
export const operatorTokenName = "demo"

export interface Credentials {
  readonly partnerId: string
  readonly api_key_id: string
  readonly api_key_secret: string
  /** The `demo` operator token (admin), for the operator API. */
  readonly operator_token: string
}

/**
 * Creates the demo partner when the database has no partner; its sandbox credentials and a `demo`
 * operator token, once. Of servers starting together on one database, exactly one creates them
 * (and prints them). Its sandbox
 * webhook points at the sandbox's own inbox on this server (`baseUrl`), so its first signed
 * deliveries can be seen at once (`GET /api/v1/sandbox/webhook-inbox`).
 */
export const ensure = Effect.fn("DemoPartner.ensure")(function* (
  baseUrl: string
): Effect.fn.Return<
  Option.Option<Credentials>,
  Partners.Failure,
  | PartnerRepo.PartnerRepo
  | OperatorTokenRepo.OperatorTokenRepo
  | IdGenerator.IdGenerator
  | SecureRandom.SecureRandom
  | Digest.Digest
  | WebhookUrlCheck.WebhookUrlCheck
> {
  const repo = yield* PartnerRepo.PartnerRepo
  const id = yield* (yield* IdGenerator.IdGenerator).uuid
  const demo = yield* Partners.newPartner({
    id,
    name,
    environments: ["sandbox"],
    webhookUrls: { sandbox: SandboxInbox.url(baseUrl, id) }
  })
  const sandbox = demo.created.environments.sandbox
  if (sandbox === undefined || !(yield* repo.insertFirstPartner(demo.partner, demo.credentials))) return Option.none()
  // its name is valid: the token cannot be refused; the operator of a demo may do everything
  const token = yield* OperatorTokens.create({ name: operatorTokenName, role: "admin" }).pipe(
    Effect.catchTag("OperatorTokenError", Effect.die)
  )
  return Option.some({
    partnerId: demo.partner.id,
    api_key_id: sandbox.api_key_id,
    api_key_secret: sandbox.api_key_secret,
    operator_token: token.token
  })
})

/**
 * On a later start, how to get working credentials again: the secret was shown once and only its
 * hash is kept, so a lost one is replaced by a new key. None when there is no demo partner.
 */
export const reminder = Effect.fn("DemoPartner.reminder")(function* (): Effect.fn.Return<
  Option.Option<string>,
  StoreError.StoreError,
  PartnerRepo.PartnerRepo
> {
  const partners = yield* (yield* PartnerRepo.PartnerRepo).listPartners()
  return Option.map(
    Option.fromNullishOr(partners.find((p) => p.name === name)),
    (demo) =>
      `Demo partner ${demo.id}: lost its sandbox credentials? Stop the server, then ` +
      `pnpm ratelock key create --partner ${demo.id} --environment sandbox ` +
      "(and for a new operator token: pnpm ratelock operator token create --name NAME --role ROLE)"
  )
})

/** The block printed on stdout: the credentials and a request to try them with. */
export const banner = (credentials: Credentials, baseUrl: string, operatorUrl: string): string => {
  const rule = "=".repeat(78)
  return [
    rule,
    "Demo partner created (first start, empty database). Its sandbox credentials are",
    "shown only this once: copy them now.",
    "",
    `  partner_id      ${credentials.partnerId}`,
    "  environment     sandbox",
    `  api_key_id      ${credentials.api_key_id}`,
    `  api_key_secret  ${credentials.api_key_secret}`,
    "",
    "Try them:",
    `  curl ${baseUrl}/api/v1/partners/me \\`,
    `    -H 'X-Partner-Key-Id: ${credentials.api_key_id}' \\`,
    `    -H 'X-Partner-Key-Secret: ${credentials.api_key_secret}' \\`,
    "    -H 'X-Partner-Environment: sandbox'",
    "",
    "Its sandbox webhook delivers to this server's own inbox: what arrived, signed, is",
    `listed by GET ${baseUrl}/api/v1/sandbox/webhook-inbox (same headers).`,
    "",
    "Every route of the partner API, described and tried from a browser:",
    "",
    `  docs            ${baseUrl}/docs`,
    "",
    "The operator API (status, market data, Prometheus /metrics) listens on its own",
    "port; its token, also shown only this once:",
    "",
    `  operator_url    ${operatorUrl}`,
    `  operator_token  ${credentials.operator_token}`,
    "",
    `  curl ${operatorUrl}/operator/v1/status \\`,
    `    -H 'Authorization: Bearer ${credentials.operator_token}'`,
    "",
    "The same token signs in to the operator console (book, limits, market data,",
    "pipes, hot wallets), on the operator listener:",
    "",
    `  console         ${operatorUrl}/console`,
    "",
    "More partners and keys: pnpm ratelock partner create --name NAME; more operator",
    "tokens: pnpm ratelock operator token create --name NAME --role ROLE, through the",
    "operator API while the server runs (RATELOCK_OPERATOR_URL and _TOKEN set to the",
    "two values above), on the database once it is stopped.",
    rule
  ].join("\n")
}
