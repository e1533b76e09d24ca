/**
 * The operator's partner programs over `PartnerRepo`: create partners with their credentials, list
 * them, issue and revoke API keys, set webhook URLs and refund addresses. Secrets are returned once and stored only as
 * hashes (API key secrets) or as issued (webhook secrets, which sign every delivery). Hosts only
 * parse an operator's input and print what these return.
 */
import { Data, DateTime, Duration, Effect, Option } from "effect"
import * as ApiKeySecret from "../partners/ApiKeySecret.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as Environment from "../kernel/Environment.ts"
import type * as Partner from "../terms/Partner.ts"
import * as PartnerRepo from "../partners/PartnerRepo.ts"
import type * as StoreError from "../kernel/StoreError.ts"
import { type InvalidWebhookUrl, WebhookUrlCheck } from "../lifecycle/WebhookUrlCheck.ts"
import * as WebhookSignature from "../lifecycle/WebhookSignature.ts"
import * as ChainGateway from "../lifecycle/ChainGateway.ts"
import { EnabledRails } from "../lifecycle/EnabledRails.ts"
import { Chain } from "../kernel/Rail.ts"

/** How long a replaced webhook secret keeps signing next to the new one (api-decisions.md). */
export const webhookSecretOverlap = Duration.hours(24)

export class OperatorError extends Data.TaggedError("OperatorError")<{
  readonly reason:
    | "partner_not_found"
    | "key_not_found"
    | "invalid_name"
    /** The address breaks the chain's payout rule (the message says which). */
    | "invalid_address"
    /** The deployment has no gateway for the environment and chain: nothing can check the address. */
    | "chain_not_enabled"
  readonly message: string
}> {}

/** What an operator program can fail with. */
export type Failure = OperatorError | InvalidWebhookUrl | ChainGateway.ChainError | StoreError.StoreError

export interface IssuedKey {
  readonly partner_id: string
  readonly environment: Partner.Environment
  readonly api_key_id: string
  /** Shown once; only its hash is stored. */
  readonly api_key_secret: string
}

export interface IssuedWebhook {
  readonly webhook_url: string
  /** Shown once. */
  readonly webhook_secret: string
}

export interface EnvironmentCredentials {
  readonly api_key_id: string
  readonly api_key_secret: string
  readonly webhook_url: string | null
  /** Null until a webhook URL is set for the environment. */
  readonly webhook_secret: string | null
}

export interface CreatedPartner {
  readonly partner_id: string
  readonly name: string
  readonly created_at: string
  readonly environments: Partial<Record<Partner.Environment, EnvironmentCredentials>>
}

export interface PartnerListing {
  readonly partner_id: string
  readonly name: string
  readonly created_at: string
  readonly keys: ReadonlyArray<{
    readonly api_key_id: string
    readonly environment: Partner.Environment
    readonly created_at: string
    readonly revoked_at: string | null
  }>
  readonly webhook_urls: Partial<Record<Partner.Environment, string>>
  /** Per environment, per chain: where the partner's funds that are not a payout go back to. */
  readonly refund_addresses: Partial<Record<Partner.Environment, Partial<Record<Chain, string>>>>
}

export interface RefundAddressSet {
  readonly partner_id: string
  readonly environment: Partner.Environment
  readonly chain: Chain
  /** As stored: what the chain's rule gives back (EVM lowercase). */
  readonly address: string
  readonly updated_at: string
}

const checkUrl = Effect.fnUntraced(function* (url: string, environment: Partner.Environment) {
  return yield* (yield* WebhookUrlCheck).check(url, environment)
})

const notFound = (reason: OperatorError["reason"], message: string) => new OperatorError({ reason, message })

const requirePartner = Effect.fnUntraced(function* (partnerId: string) {
  const partner = yield* (yield* PartnerRepo.PartnerRepo).findPartner(partnerId)
  if (Option.isNone(partner)) return yield* notFound("partner_not_found", `no partner ${partnerId}`)
  return partner.value
})

/** A new key's record (the secret's hash) and what the operator is shown (the secret, once). */
const newKey = Effect.fnUntraced(function* (partnerId: string, environment: Partner.Environment) {
  const id = yield* (yield* IdGenerator).uuid
  const secret = yield* ApiKeySecret.newSecret
  const record: PartnerRepo.ApiKeyRecord = {
    id,
    partnerId,
    environment,
    secretHash: yield* ApiKeySecret.hashSecret(secret),
    createdAt: yield* DateTime.now,
    revokedAt: null
  }
  return {
    record,
    issued: { partner_id: partnerId, environment, api_key_id: id, api_key_secret: secret } satisfies IssuedKey
  }
})

const issueKey = Effect.fnUntraced(function* (partnerId: string, environment: Partner.Environment) {
  const key = yield* newKey(partnerId, environment)
  yield* (yield* PartnerRepo.PartnerRepo).insertApiKey(key.record)
  return key.issued
})

/** Saves `url` (already validated) with a new secret; earlier secrets keep signing for the overlap. */
const saveWebhook = Effect.fnUntraced(function* (partnerId: string, environment: Partner.Environment, url: string) {
  const repo = yield* PartnerRepo.PartnerRepo
  const secret = yield* WebhookSignature.generateSecret
  const now = yield* DateTime.now
  const until = DateTime.addDuration(now, webhookSecretOverlap)
  const previous = Option.match(yield* repo.findWebhookEndpoint({ partnerId, environment }), {
    onNone: () => [],
    onSome: (endpoint) =>
      endpoint.secrets
        .filter((s) => PartnerRepo.isLiveSecret(s, now))
        .map((s) => ({ secret: s.secret, validUntil: s.validUntil ?? until }))
  })
  yield* repo.saveWebhookEndpoint({
    partnerId,
    environment,
    url,
    secrets: [{ secret, validUntil: null }, ...previous]
  })
  return { webhook_url: url, webhook_secret: secret } satisfies IssuedWebhook
})

export interface NewPartner {
  readonly partner: PartnerRepo.PartnerRecord
  readonly credentials: PartnerRepo.PartnerCredentials
  /** What the operator is shown: the secrets, once. */
  readonly created: CreatedPartner
}

/**
 * A new partner with one API key per environment (both unless `environments` says otherwise) and,
 * where a URL is given, its webhook URL and secret, ready to be written in one go. URLs and the
 * name are checked here, before anything is written.
 */
export const newPartner = Effect.fn("Partners.newPartner")(function* (input: {
  /** The partner's id, when it must be known beforehand (in its webhook URL, say); default a new one. */
  readonly id?: string | undefined
  readonly name: string
  readonly webhookUrls?: Partial<Record<Partner.Environment, string>> | undefined
  readonly environments?: ReadonlyArray<Partner.Environment> | undefined
}) {
  const name = input.name.trim()
  if (name === "" || name.length > 200) {
    return yield* notFound("invalid_name", "a partner name is 1 to 200 characters")
  }
  const envs = input.environments ?? Environment.all
  const urls: Partial<Record<Partner.Environment, string>> = {}
  for (const env of envs) {
    const url = input.webhookUrls?.[env]
    if (url !== undefined) urls[env] = yield* checkUrl(url, env)
  }
  const id = input.id ?? (yield* (yield* IdGenerator).uuid)
  const createdAt = yield* DateTime.now
  const apiKeys: Array<PartnerRepo.ApiKeyRecord> = []
  const webhookEndpoints: Array<PartnerRepo.WebhookEndpoint> = []
  const issued: Partial<Record<Partner.Environment, EnvironmentCredentials>> = {}
  for (const env of envs) {
    const key = yield* newKey(id, env)
    apiKeys.push(key.record)
    const url = urls[env]
    const webhook = url === undefined ? null : { url, secret: yield* WebhookSignature.generateSecret }
    if (webhook !== null) {
      webhookEndpoints.push({
        partnerId: id,
        environment: env,
        url: webhook.url,
        secrets: [{ secret: webhook.secret, validUntil: null }]
      })
    }
    issued[env] = {
      api_key_id: key.issued.api_key_id,
      api_key_secret: key.issued.api_key_secret,
      webhook_url: webhook?.url ?? null,
      webhook_secret: webhook?.secret ?? null
    }
  }
  return {
    partner: { id, name, createdAt },
    credentials: { apiKeys, webhookEndpoints },
    created: { partner_id: id, name, created_at: DateTime.formatIso(createdAt), environments: issued }
  } satisfies NewPartner
})

/** `newPartner`, written with its keys and webhook endpoints in one transaction: all or nothing. */
export const createPartner = Effect.fn("Partners.createPartner")(function* (input: Parameters<typeof newPartner>[0]) {
  const { partner, credentials, created } = yield* newPartner(input)
  yield* (yield* PartnerRepo.PartnerRepo).insertPartner(partner, credentials)
  return created
})

/** Every partner, oldest first, with its keys (revoked ones too), webhook URLs and refund addresses. */
export const listPartners = Effect.fn("Partners.listPartners")(function* () {
  const repo = yield* PartnerRepo.PartnerRepo
  const partners = yield* repo.listPartners()
  return yield* Effect.forEach(partners, (partner) =>
    Effect.gen(function* () {
      const keys = yield* repo.listApiKeys(partner.id)
      const webhookUrls: Partial<Record<Partner.Environment, string>> = {}
      for (const environment of Environment.all) {
        const endpoint = yield* repo.findWebhookEndpoint({ partnerId: partner.id, environment })
        if (Option.isSome(endpoint)) webhookUrls[environment] = endpoint.value.url
      }
      // in one order whatever the store's (environments, then chains, as declared): the CLI prints
      // this as the operator API answers it
      const stored = yield* repo.listRefundAddresses(partner.id)
      const refundAddresses: Partial<Record<Partner.Environment, Partial<Record<Chain, string>>>> = {}
      for (const environment of Environment.all) {
        for (const chain of Chain.literals) {
          const refund = stored.find((r) => r.environment === environment && r.chain === chain)
          if (refund !== undefined)
            refundAddresses[environment] = { ...refundAddresses[environment], [chain]: refund.address }
        }
      }
      return {
        partner_id: partner.id,
        name: partner.name,
        created_at: DateTime.formatIso(partner.createdAt),
        keys: keys.map((key) => ({
          api_key_id: key.id,
          environment: key.environment,
          created_at: DateTime.formatIso(key.createdAt),
          revoked_at: key.revokedAt === null ? null : DateTime.formatIso(key.revokedAt)
        })),
        webhook_urls: webhookUrls,
        refund_addresses: refundAddresses
      } satisfies PartnerListing
    })
  )
})

/** A further API key for a partner's environment (rotation: the old key stays live until revoked). */
export const createKey = Effect.fn("Partners.createKey")(function* (
  partnerId: string,
  environment: Partner.Environment
) {
  yield* requirePartner(partnerId)
  return yield* issueKey(partnerId, environment)
})

/** Revokes a key at once; revoking it again changes nothing (the first revocation stands). */
export const revokeKey = Effect.fn("Partners.revokeKey")(function* (keyId: string) {
  const repo = yield* PartnerRepo.PartnerRepo
  const key = yield* repo.findApiKey(keyId)
  if (Option.isNone(key)) return yield* notFound("key_not_found", `no API key ${keyId}`)
  const alreadyRevoked = key.value.revokedAt !== null
  if (!alreadyRevoked) yield* repo.revokeApiKey(keyId, yield* DateTime.now)
  const revoked = Option.getOrThrow(yield* repo.findApiKey(keyId))
  return {
    api_key_id: keyId,
    partner_id: revoked.partnerId,
    environment: revoked.environment,
    revoked_at: revoked.revokedAt === null ? null : DateTime.formatIso(revoked.revokedAt),
    already_revoked: alreadyRevoked
  }
})

/** Sets (or replaces) an environment's webhook URL with a new secret, shown once. */
export const setWebhook = Effect.fn("Partners.setWebhook")(function* (
  partnerId: string,
  environment: Partner.Environment,
  url: string
) {
  yield* requirePartner(partnerId)
  const valid = yield* checkUrl(url, environment)
  return { partner_id: partnerId, environment, ...(yield* saveWebhook(partnerId, environment, valid)) }
})

/**
 * Sets (or replaces) the partner's refund address for an environment and chain. The address is
 * checked by the gateway that pays out on that rail, by the rule a payout's destination is checked
 * with, and stored as the gateway gives it back; a rail the deployment has no chain for
 * (`EnabledRails`, asked before the gateway) is refused (`chain_not_enabled`): nothing could check
 * the address, nor ever send to it.
 */
export const setRefundAddress = Effect.fn("Partners.setRefundAddress")(function* (
  partnerId: string,
  environment: Partner.Environment,
  chain: Chain,
  address: string
) {
  const notEnabled = (yield* EnabledRails).whyNot(environment, chain)
  if (notEnabled !== undefined) return yield* new OperatorError({ reason: "chain_not_enabled", message: notEnabled })
  yield* requirePartner(partnerId)
  const gateway = yield* ChainGateway.ChainGateway
  const checked = yield* gateway
    .checkAddress({ environment, chain }, address)
    .pipe(
      Effect.mapError((e) =>
        e.reason === "invalid_address"
          ? new OperatorError({ reason: "invalid_address", message: e.message })
          : e.reason === "unsupported_rail"
            ? new OperatorError({ reason: "chain_not_enabled", message: `${chain} is not enabled for ${environment}` })
            : e
      )
    )
  const updatedAt = yield* DateTime.now
  yield* (yield* PartnerRepo.PartnerRepo).saveRefundAddress({
    partnerId,
    environment,
    chain,
    address: checked,
    updatedAt
  })
  return {
    partner_id: partnerId,
    environment,
    chain,
    address: checked,
    updated_at: DateTime.formatIso(updatedAt)
  } satisfies RefundAddressSet
})
