/**
 * The demo partner: on a first start with no partners at all, one partner with a sandbox key, so
 * `pnpm start` is usable at once. Its credentials are printed once and never again (only the
 * secret's hash is stored).
 */
import { IdGenerator, PartnerRepo, Partners, type StoreError, type WebhookUrlCheck } from "@ratelock/core"
import { Effect, Option } from "effect"
import type { Digest, SecureRandom } from "effect/crypto"
import * as SandboxInbox from "./sandbox/SandboxInbox.ts"

export const name = "Demo partner"

export interface Credentials {
  readonly partnerId: string
  readonly api_key_id: string
  readonly api_key_secret: string
}

/**
 * Creates the demo partner when the database has no partner; its sandbox credentials, once. Of
 * servers starting together on one database, exactly one creates it (and prints them). Its sandbox
 * webhook points at the sandbox's own inbox on this server (`baseUrl`), so its first signed
 * deliveries can be seen at once (`GET /api/v1/sandbox/webhook-inbox`).
 */
export const ensure = Effect.fn("DemoPartner.ensure")(function* (
  baseUrl: string
): Effect.fn.Return<
  Option.Option<Credentials>,
  Partners.Failure,
  | PartnerRepo.PartnerRepo
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
  return Option.some({
    partnerId: demo.partner.id,
    api_key_id: sandbox.api_key_id,
    api_key_secret: sandbox.api_key_secret
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
      `pnpm ratelock key create --partner ${demo.id} --environment sandbox`
  )
})

/** The block printed on stdout: the credentials and a request to try them with. */
export const banner = (credentials: Credentials, baseUrl: string): string => {
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
    "More partners and keys: pnpm ratelock partner create --name NAME (stop the server",
    "first when it runs on the embedded database).",
    rule
  ].join("\n")
}
