/**
 * Partners of the in-memory Ratelock, with their credentials already made: an API key per
 * environment and a webhook endpoint per environment, whose deliveries land in the
 * `WebhookInbox`. `Ratelock.layer` makes one ("Testkit Partner"); `make` adds more.
 *
 * Secrets are derived from the partner's id (itself deterministic), so a run is reproducible:
 * API key secrets look like production ones (`rlk_` + 43 base64url characters), webhook secrets
 * are `whsec_` + base64 of 32 bytes.
 */
import { ApiKeySecret, Environment, IdGenerator, type Partner, PartnerRepo, type StoreError } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import { Digest } from "effect/crypto"
import { Base64, Base64Url } from "effect/encoding"
import { WebhookInbox } from "./WebhookInbox.ts"

/** An API key as a partner holds it: the three credential headers' values. */
export interface ApiKey {
  readonly keyId: string
  readonly secret: string
  readonly environment: Partner.Environment
}

export interface TestPartner {
  readonly id: string
  readonly name: string
  /** The sandbox API key (the scenario helpers act with it). */
  readonly sandbox: ApiKey
  readonly production: ApiKey
  /** The webhook secret of both environments: what the partner verifies deliveries with. */
  readonly webhookSecret: string
  /** Where each environment's deliveries go (the inbox receives them). */
  readonly webhookUrls: Readonly<Record<Partner.Environment, string>>
}

/** The three credential headers of a key, lowercase, ready for `fetch` or any HTTP client. */
export const credentialHeaders = (key: ApiKey): Record<string, string> => ({
  "x-partner-key-id": key.keyId,
  "x-partner-key-secret": key.secret,
  "x-partner-environment": key.environment
})

/** 32 bytes derived from `label`: SHA-256 of the testkit's prefix and the label. */
const derivedBytes = (label: string) =>
  Effect.flatMap(Digest.Digest, (digest) =>
    digest.digest(Digest.sha256, new TextEncoder().encode(`ratelock-testkit:${label}`))
  )

/** Where an environment's deliveries of a partner go. */
export const webhookUrl = (partnerId: string, environment: Partner.Environment) =>
  `https://webhooks.ratelock.test/partners/${partnerId}/${environment}`

/** A new API key for the partner in `environment`, stored as the service stores keys (its hash). */
export const issueKey = Effect.fn("TestPartner.issueKey")(function* (
  partnerId: string,
  environment: Partner.Environment
): Effect.fn.Return<ApiKey, StoreError.StoreError, PartnerRepo.PartnerRepo | IdGenerator.IdGenerator | Digest.Digest> {
  const keyId = yield* (yield* IdGenerator.IdGenerator).uuid
  const secret = `${ApiKeySecret.secretPrefix}${Base64Url.encode(yield* derivedBytes(`key:${keyId}`))}`
  yield* (yield* PartnerRepo.PartnerRepo).insertApiKey({
    id: keyId,
    partnerId,
    environment,
    secretHash: yield* ApiKeySecret.hashSecret(secret),
    createdAt: yield* DateTime.now,
    revokedAt: null
  })
  return { keyId, secret, environment }
})

/**
 * Revokes a key now. As in production, the API keeps trusting a key it read less than a second
 * ago: advance the clock a second before expecting 401.
 */
export const revokeKey = Effect.fn("TestPartner.revokeKey")(function* (
  key: ApiKey
): Effect.fn.Return<void, StoreError.StoreError, PartnerRepo.PartnerRepo> {
  yield* (yield* PartnerRepo.PartnerRepo).revokeApiKey(key.keyId, yield* DateTime.now)
})

/** A new partner with a key and a webhook endpoint in each environment. */
export const make = Effect.fn("TestPartner.make")(function* (
  name: string
): Effect.fn.Return<
  TestPartner,
  StoreError.StoreError,
  PartnerRepo.PartnerRepo | IdGenerator.IdGenerator | Digest.Digest | WebhookInbox
> {
  const partners = yield* PartnerRepo.PartnerRepo
  const inbox = yield* WebhookInbox
  const id = yield* (yield* IdGenerator.IdGenerator).uuid
  yield* partners.insertPartner({ id, name, createdAt: yield* DateTime.now })
  const webhookSecret = `whsec_${Base64.encode(yield* derivedBytes(`webhook:${id}`))}`
  const webhookUrls = { sandbox: webhookUrl(id, "sandbox"), production: webhookUrl(id, "production") }
  for (const environment of Environment.all) {
    yield* partners.saveWebhookEndpoint({
      partnerId: id,
      environment,
      url: webhookUrls[environment],
      secrets: [{ secret: webhookSecret, validUntil: null }]
    })
    yield* inbox.register(webhookUrls[environment], webhookSecret)
  }
  return {
    id,
    name,
    sandbox: yield* issueKey(id, "sandbox"),
    production: yield* issueKey(id, "production"),
    webhookSecret,
    webhookUrls
  }
})
