/**
 * `PartnerRepo` in memory: partners, their API keys (secrets as hashes only), one webhook endpoint
 * per partner and environment, and one refund address per partner, environment and chain.
 */
import { Effect, Exit, HashMap } from "effect"
import type { DateTime } from "effect"
import { PartnerRepo, StoreError } from "@ratelock/core"
import type { Partner } from "@ratelock/core"
import { compareKeys, type Key } from "./keyset.ts"
import { scopedKey } from "./scope.ts"
import { atomically, done, read, type State, type StateRef, type Step, write } from "./state.ts"

const duplicate = (what: string, id: string) =>
  Exit.fail(new StoreError.StoreError({ message: `${what} ${id} already exists` }))

/** The state with the partner, its keys and its endpoints; a duplicate id fails the whole step. */
const withPartner = (
  state: State,
  partner: PartnerRepo.PartnerRecord,
  credentials: PartnerRepo.PartnerCredentials
): Step<void, StoreError.StoreError> => {
  if (HashMap.has(state.partners, partner.id)) return duplicate("partner", partner.id)
  let apiKeys = state.apiKeys
  for (const key of credentials.apiKeys) {
    if (HashMap.has(apiKeys, key.id)) return duplicate("API key", key.id)
    apiKeys = HashMap.set(apiKeys, key.id, key)
  }
  let webhookEndpoints = state.webhookEndpoints
  for (const endpoint of credentials.webhookEndpoints) {
    webhookEndpoints = HashMap.set(webhookEndpoints, scopedKey(endpoint), endpoint)
  }
  return write({ ...state, partners: HashMap.set(state.partners, partner.id, partner), apiKeys, webhookEndpoints })
}

/** Environment, then chain (byte order, as the SQL store sorts them): unique per partner. */
const railOrder = (refund: PartnerRepo.RefundAddress) => `${refund.environment}|${refund.chain}`

export const makePartnerRepo = (ref: StateRef): PartnerRepo.PartnerRepoShape => {
  const insertPartner = Effect.fn("MemoryStore.partners.insertPartner")(function* (
    partner: PartnerRepo.PartnerRecord,
    credentials: PartnerRepo.PartnerCredentials = PartnerRepo.noCredentials
  ) {
    return yield* atomically(ref, (state) => withPartner(state, partner, credentials))
  })

  const insertFirstPartner = Effect.fn("MemoryStore.partners.insertFirstPartner")(function* (
    partner: PartnerRepo.PartnerRecord,
    credentials: PartnerRepo.PartnerCredentials
  ) {
    return yield* atomically(ref, (state) =>
      HashMap.size(state.partners) > 0
        ? done(false, state)
        : Exit.map(withPartner(state, partner, credentials), ([, next]) => [true, next] as const)
    )
  })

  const findPartner = Effect.fn("MemoryStore.partners.findPartner")(function* (id: string) {
    return yield* read(ref, (state) => HashMap.get(state.partners, id))
  })

  const byCreation = <A extends Key>(rows: Iterable<A>) => Array.from(rows).sort(compareKeys)

  const listPartners = Effect.fn("MemoryStore.partners.listPartners")(function* () {
    return yield* read(ref, (state) => byCreation(HashMap.values(state.partners)))
  })

  const listApiKeys = Effect.fn("MemoryStore.partners.listApiKeys")(function* (partnerId: string) {
    return yield* read(ref, (state) =>
      byCreation(HashMap.values(state.apiKeys)).filter((key) => key.partnerId === partnerId)
    )
  })

  const insertApiKey = Effect.fn("MemoryStore.partners.insertApiKey")(function* (key: PartnerRepo.ApiKeyRecord) {
    return yield* atomically(ref, (state) =>
      HashMap.has(state.apiKeys, key.id)
        ? duplicate("API key", key.id)
        : write({ ...state, apiKeys: HashMap.set(state.apiKeys, key.id, key) })
    )
  })

  const findApiKey = Effect.fn("MemoryStore.partners.findApiKey")(function* (id: string) {
    return yield* read(ref, (state) => HashMap.get(state.apiKeys, id))
  })

  /** Marks the key revoked at `at`; a key revoked before keeps its first revocation time. */
  const revokeApiKey = Effect.fn("MemoryStore.partners.revokeApiKey")(function* (id: string, at: DateTime.Utc) {
    return yield* atomically(ref, (state: State) =>
      write({
        ...state,
        apiKeys: HashMap.modify(state.apiKeys, id, (key) => (key.revokedAt === null ? { ...key, revokedAt: at } : key))
      })
    )
  })

  /** Creates or replaces the endpoint of the partner and environment. */
  const saveWebhookEndpoint = Effect.fn("MemoryStore.partners.saveWebhookEndpoint")(function* (
    endpoint: PartnerRepo.WebhookEndpoint
  ) {
    return yield* atomically(ref, (state) =>
      write({ ...state, webhookEndpoints: HashMap.set(state.webhookEndpoints, scopedKey(endpoint), endpoint) })
    )
  })

  const findWebhookEndpoint = Effect.fn("MemoryStore.partners.findWebhookEndpoint")(function* (
    scope: Partner.PartnerScope
  ) {
    return yield* read(ref, (state) => HashMap.get(state.webhookEndpoints, scopedKey(scope)))
  })

  /** Creates or replaces the address of the partner, environment and chain; an unknown partner fails, as its foreign key does. */
  const saveRefundAddress = Effect.fn("MemoryStore.partners.saveRefundAddress")(function* (
    refund: PartnerRepo.RefundAddress
  ) {
    return yield* atomically(ref, (state) =>
      HashMap.has(state.partners, refund.partnerId)
        ? write({
            ...state,
            refundAddresses: HashMap.set(state.refundAddresses, scopedKey(refund, refund.chain), refund)
          })
        : Exit.fail(new StoreError.StoreError({ message: `no partner ${refund.partnerId}` }))
    )
  })

  const listRefundAddresses = Effect.fn("MemoryStore.partners.listRefundAddresses")(function* (partnerId: string) {
    return yield* read(ref, (state) =>
      Array.from(HashMap.values(state.refundAddresses))
        .filter((refund) => refund.partnerId === partnerId)
        .sort((a, b) => (railOrder(a) < railOrder(b) ? -1 : 1))
    )
  })

  return PartnerRepo.PartnerRepo.of({
    insertPartner,
    insertFirstPartner,
    findPartner,
    listPartners,
    listApiKeys,
    insertApiKey,
    findApiKey,
    revokeApiKey,
    saveWebhookEndpoint,
    findWebhookEndpoint,
    saveRefundAddress,
    listRefundAddresses
  })
}
