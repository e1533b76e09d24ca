/**
 * The operator API's partners: the list, and an admin's changes (a partner created with its keys,
 * a key issued or revoked, a webhook URL set with a new secret, a refund address set). Each answer
 * is what the matching `ratelock partner|key|webhook` command prints with `--json`; a secret is
 * in the answer of the change that issued it and nowhere else (replayed under the same
 * `Idempotency-Key`, as the first answer was).
 */
import { Fields, Partner, Rail } from "@ratelock/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { OptionalIdempotencyKey } from "./Headers.ts"
import { changing, reading } from "./OperatorDesk.ts"
import { AuditedAction, RequiredRole } from "./OperatorRoles.ts"
import { OperatorAuth } from "./OperatorSecurity.ts"

/** Text the operator sends that is stored: anything but NUL (core checks the rest, in its own words). */
const Text = Schema.String.check(Fields.noNul)

/** One entry per environment, in the order environments are declared (sandbox, production). */
const perEnvironment = <S extends Schema.Top>(value: S) =>
  Schema.Struct({ sandbox: Schema.optionalKey(value), production: Schema.optionalKey(value) })

/** One entry per chain, in the order chains are declared. */
const perChain = <S extends Schema.Top>(value: S) =>
  Schema.Struct({
    solana: Schema.optionalKey(value),
    ethereum: Schema.optionalKey(value),
    polygon: Schema.optionalKey(value)
  })

/**
 * A webhook URL per environment, as a partner is created with. Another key is refused, not
 * ignored: a misspelt environment would leave the partner without the webhook the operator meant.
 */
const WebhookUrls = Schema.Record(Schema.String, Text).check(
  Schema.makeFilter(
    (urls: Readonly<Record<string, string>>) =>
      Object.keys(urls).every((key) => Partner.Environment.literals.some((environment) => environment === key)) ||
      "the environments are sandbox and production",
    { toJsonSchema: () => ({ propertyNames: { enum: [...Partner.Environment.literals] } }) }
  )
)

/** A partner as `ratelock partner list --json` prints it: no secret, revoked keys too. */
export const PartnerListing = Schema.Struct({
  partner_id: Schema.String,
  name: Schema.String,
  created_at: Fields.Instant,
  keys: Schema.Array(
    Schema.Struct({
      api_key_id: Schema.String,
      environment: Partner.Environment,
      created_at: Fields.Instant,
      revoked_at: Schema.NullOr(Fields.Instant)
    })
  ),
  webhook_urls: perEnvironment(Schema.String),
  refund_addresses: perEnvironment(perChain(Schema.String)).annotate({
    description: "Per environment and chain, where the partner's funds that are not a payout go back to"
  })
}).annotate({ identifier: "OperatorPartner" })

/** A new partner with its credentials: the secrets, shown this once (`partner create --json`). */
export const CreatedPartner = Schema.Struct({
  partner_id: Schema.String,
  name: Schema.String,
  created_at: Fields.Instant,
  environments: perEnvironment(
    Schema.Struct({
      api_key_id: Schema.String,
      api_key_secret: Schema.String.annotate({ description: "Shown once; only its hash is stored" }),
      webhook_url: Schema.NullOr(Schema.String),
      webhook_secret: Schema.NullOr(Schema.String).annotate({ description: "Null until a webhook URL is set" })
    })
  )
}).annotate({ identifier: "OperatorCreatedPartner" })

export const RefundAddressSet = Schema.Struct({
  partner_id: Schema.String,
  environment: Partner.Environment,
  chain: Rail.Chain,
  address: Schema.String.annotate({ description: "As stored: what the chain's rule gives back (EVM lowercase)" }),
  updated_at: Fields.Instant
}).annotate({ identifier: "OperatorRefundAddressSet" })

export const IssuedKey = Schema.Struct({
  partner_id: Schema.String,
  environment: Partner.Environment,
  api_key_id: Schema.String,
  api_key_secret: Schema.String.annotate({ description: "Shown once; only its hash is stored" })
}).annotate({ identifier: "OperatorIssuedKey" })

export const RevokedKey = Schema.Struct({
  api_key_id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  revoked_at: Schema.NullOr(Fields.Instant),
  already_revoked: Schema.Boolean.annotate({ description: "It was revoked before: the first revocation stands" })
}).annotate({ identifier: "OperatorRevokedKey" })

export const WebhookSet = Schema.Struct({
  partner_id: Schema.String,
  environment: Partner.Environment,
  webhook_url: Schema.String,
  webhook_secret: Schema.String.annotate({
    description: "Shown once; the previous secret, if any, keeps signing beside it for 24 hours"
  })
}).annotate({ identifier: "OperatorWebhookSet" })

export class PartnersGroup extends HttpApiGroup.make("partners")
  .add(
    HttpApiEndpoint.get("partners", "/v1/partners", { success: Schema.Array(PartnerListing), error: reading })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "Every partner, oldest first: its API keys (no secret), webhook URLs, refund addresses"
      ),
    HttpApiEndpoint.post("createPartner", "/v1/partners", {
      headers: OptionalIdempotencyKey,
      payload: Schema.Struct({
        name: Text.annotate({ description: "1 to 200 characters once trimmed" }),
        webhook_urls: Schema.optionalKey(
          WebhookUrls.annotate({
            description: "A webhook URL per environment, sandbox or production (production: https on a public address)"
          })
        )
      }),
      success: CreatedPartner.pipe(HttpApiSchema.status(201)),
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "partner.create", targetKind: "partner" })
      .annotate(
        OpenApi.Summary,
        "Create a partner with an API key per environment: its secrets are in this answer only"
      ),
    HttpApiEndpoint.put("setRefundAddress", "/v1/partners/:partner_id/refund-addresses/:environment/:chain", {
      params: { partner_id: Schema.String, environment: Partner.Environment, chain: Rail.Chain },
      payload: Schema.Struct({
        address: Text.annotate({ description: "As a payout's destination on that chain must be" })
      }),
      success: RefundAddressSet,
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "partner.refund_address.set", targetKind: "partner" })
      .annotate(
        OpenApi.Summary,
        "Set or replace a partner's refund address on one chain of an environment, checked by that chain's payout rule"
      ),
    HttpApiEndpoint.post("createKey", "/v1/partners/:partner_id/keys", {
      params: { partner_id: Schema.String },
      headers: OptionalIdempotencyKey,
      payload: Schema.Struct({ environment: Partner.Environment }),
      success: IssuedKey.pipe(HttpApiSchema.status(201)),
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "key.create", targetKind: "partner" })
      .annotate(
        OpenApi.Summary,
        "Issue another API key (rotation: the old one stays live until revoked); its secret is in this answer only"
      ),
    HttpApiEndpoint.post("revokeKey", "/v1/keys/:key_id/revoke", {
      params: { key_id: Schema.String },
      headers: OptionalIdempotencyKey,
      success: RevokedKey,
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "key.revoke", targetKind: "api_key" })
      .annotate(OpenApi.Summary, "Revoke an API key at once (again: nothing changes, the first revocation stands)"),
    HttpApiEndpoint.put("setWebhook", "/v1/partners/:partner_id/webhooks/:environment", {
      params: { partner_id: Schema.String, environment: Partner.Environment },
      payload: Schema.Struct({ url: Text.annotate({ description: "The webhook URL" }) }),
      success: WebhookSet,
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "webhook.set", targetKind: "partner" })
      .annotate(
        OpenApi.Summary,
        "Set or replace an environment's webhook URL with a new signing secret, in this answer only"
      )
  )
  .middleware(OperatorAuth)
  .prefix("/operator")
  .annotate(OpenApi.Description, "Partners, their API keys, webhook URLs and refund addresses: what an admin sets") {}
