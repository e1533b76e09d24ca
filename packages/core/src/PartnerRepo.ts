/**
 * Persistence port for partners, their API keys and webhook endpoints. Secrets are stored only
 * as SHA-256 hashes (API key secrets are 32 random bytes, so a fast hash is enough).
 */
import { Context } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { Environment, PartnerScope } from "./Partner.ts"
import type { StoreError } from "./StoreError.ts"

export interface PartnerRecord {
  readonly id: string
  readonly name: string
  readonly createdAt: DateTime.Utc
}

export interface ApiKeyRecord {
  readonly id: string
  readonly partnerId: string
  readonly environment: Environment
  /** Lowercase hex SHA-256 of the secret. */
  readonly secretHash: string
  readonly createdAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
}

export interface WebhookSecret {
  readonly secret: string
  /** A rotated-out secret keeps signing until then; null for the current one. */
  readonly validUntil: DateTime.Utc | null
}

export interface WebhookEndpoint {
  readonly partnerId: string
  readonly environment: Environment
  readonly url: string
  /** Newest first. */
  readonly secrets: ReadonlyArray<WebhookSecret>
}

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
}

export class PartnerRepo extends Context.Service<PartnerRepo, PartnerRepoShape>()("@ratelock/core/PartnerRepo") {}
