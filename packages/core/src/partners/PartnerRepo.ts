/**
 * Persistence port for partners, their API keys, webhook endpoints and refund addresses, records as schemas that
 * stores decode their rows into. API key secrets are stored only as SHA-256 hashes (they are 32
 * random bytes, so a fast hash is enough).
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect, Option } from "effect"
import { Environment, ownedFields, type PartnerScope } from "../terms/Partner.ts"
import { Chain } from "../kernel/Rail.ts"
import type { StoreError } from "../kernel/StoreError.ts"

export const PartnerRecord = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  createdAt: Schema.DateTimeUtc
}).annotate({ identifier: "PartnerRecord" })
export type PartnerRecord = typeof PartnerRecord.Type

export const ApiKeyRecord = Schema.Struct({
  ...ownedFields,
  /** Lowercase hex SHA-256 of the secret. */
  secretHash: Schema.String,
  createdAt: Schema.DateTimeUtc,
  revokedAt: Schema.NullOr(Schema.DateTimeUtc)
}).annotate({ identifier: "ApiKeyRecord" })
export type ApiKeyRecord = typeof ApiKeyRecord.Type

export const WebhookSecret = Schema.Struct({
  secret: Schema.String,
  /** A rotated-out secret keeps signing until then; null for the current one. */
  validUntil: Schema.NullOr(Schema.DateTimeUtc)
}).annotate({ identifier: "WebhookSecret" })
export type WebhookSecret = typeof WebhookSecret.Type

export const WebhookEndpoint = Schema.Struct({
  partnerId: Schema.String,
  environment: Environment,
  url: Schema.String,
  /** Newest first. */
  secrets: Schema.Array(WebhookSecret)
}).annotate({ identifier: "WebhookEndpoint" })
export type WebhookEndpoint = typeof WebhookEndpoint.Type

/**
 * Where funds of the partner's that are not a payout go back to on a chain of an environment (a
 * forward's deposit, a surplus): one address per partner, environment and chain, checked by the
 * chain's payout rule before it is saved and stored as that rule gives it back.
 */
export const RefundAddress = Schema.Struct({
  partnerId: Schema.String,
  environment: Environment,
  chain: Chain,
  address: Schema.String,
  updatedAt: Schema.DateTimeUtc
}).annotate({ identifier: "RefundAddress" })
export type RefundAddress = typeof RefundAddress.Type

/** Whether a webhook secret still signs at `now`: the current one, or a rotated-out one until its `validUntil`. */
export const isLiveSecret = (secret: WebhookSecret, now: DateTime.Utc): boolean =>
  secret.validUntil === null || secret.validUntil.epochMilliseconds > now.epochMilliseconds

/** Secrets that still sign at `now`, newest first. */
export const liveSecrets = (endpoint: WebhookEndpoint, now: DateTime.Utc) =>
  endpoint.secrets.filter((s) => isLiveSecret(s, now)).map((s) => s.secret)

/** What a partner is created with: its API keys and webhook endpoints, all of this partner. */
export interface PartnerCredentials {
  readonly apiKeys: ReadonlyArray<ApiKeyRecord>
  readonly webhookEndpoints: ReadonlyArray<WebhookEndpoint>
}

/** A partner created bare (tests, fixtures): keys and endpoints come later. */
export const noCredentials: PartnerCredentials = { apiKeys: [], webhookEndpoints: [] }

export interface PartnerRepoShape {
  /** Writes the partner with its credentials, all or nothing (one transaction). */
  readonly insertPartner: (partner: PartnerRecord, credentials?: PartnerCredentials) => Effect.Effect<void, StoreError>
  /**
   * `insertPartner` only while the store holds no partner at all; true when it wrote. Of callers
   * racing on one store (servers starting together on one database), exactly one writes.
   */
  readonly insertFirstPartner: (
    partner: PartnerRecord,
    credentials: PartnerCredentials
  ) => Effect.Effect<boolean, StoreError>
  readonly findPartner: (id: string) => Effect.Effect<Option.Option<PartnerRecord>, StoreError>
  /** Every partner, oldest first (operators list them; the count stays small). */
  readonly listPartners: () => Effect.Effect<ReadonlyArray<PartnerRecord>, StoreError>
  /** A partner's API keys, revoked ones included, oldest first. */
  readonly listApiKeys: (partnerId: string) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StoreError>
  readonly insertApiKey: (key: ApiKeyRecord) => Effect.Effect<void, StoreError>
  readonly findApiKey: (id: string) => Effect.Effect<Option.Option<ApiKeyRecord>, StoreError>
  readonly revokeApiKey: (id: string, at: DateTime.Utc) => Effect.Effect<void, StoreError>
  readonly saveWebhookEndpoint: (endpoint: WebhookEndpoint) => Effect.Effect<void, StoreError>
  readonly findWebhookEndpoint: (scope: PartnerScope) => Effect.Effect<Option.Option<WebhookEndpoint>, StoreError>
  /** Sets the partner's address for the environment and chain, replacing the one before; the partner must exist. */
  readonly saveRefundAddress: (refund: RefundAddress) => Effect.Effect<void, StoreError>
  /** A partner's refund addresses, by environment then chain (none for an unknown partner). */
  readonly listRefundAddresses: (partnerId: string) => Effect.Effect<ReadonlyArray<RefundAddress>, StoreError>
}

export class PartnerRepo extends Context.Service<PartnerRepo, PartnerRepoShape>()("@ratelock/core/PartnerRepo") {}
