/**
 * The operator programs on the memory store, and the webhook URL rules (https in production, no
 * private, loopback or link-local targets; sandbox allows http and loopback).
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryStore } from "@ratelock/adapters-store"
import { ApiKeySecret, Environment, type Partner, PartnerRepo, Partners } from "@ratelock/core"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import * as Services from "../src/Services.ts"
import * as WebhookUrl from "../src/WebhookUrl.ts"

/** A resolver with fixed answers, so no test depends on the network. */
const dns: Record<string, ReadonlyArray<string>> = {
  localhost: ["127.0.0.1", "::1"],
  "hooks.example.com": ["93.184.215.14"],
  "internal.example.com": ["10.1.2.3"],
  "rebind.example.com": ["93.184.215.14", "169.254.169.254"],
  "v6.example.com": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "ula.example.com": ["fd12:3456::1"],
  "nat64.example.com": ["2606:4700::1111", "64:ff9b::a9fe:a9fe"]
}
const withResolver = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, WebhookUrl.Resolver, (host) => {
    const answer = dns[host]
    return answer === undefined ? Effect.fail(new Error("ENOTFOUND")) : Effect.succeed(answer)
  })

const check = (url: string, environment: Partner.Environment) =>
  withResolver(WebhookUrl.validate(url, environment)).pipe(
    Effect.match({ onFailure: (e) => `refused: ${e.reason}`, onSuccess: (u) => `ok ${u}` })
  )

describe("WebhookUrl.validate", () => {
  const cases: ReadonlyArray<readonly [string, Partner.Environment, RegExp]> = [
    ["https://hooks.example.com/ratelock", "production", /^ok https:\/\/hooks\.example\.com\/ratelock$/],
    ["https://v6.example.com/h", "production", /^ok/],
    ["https://93.184.215.14:8443/h", "production", /^ok/],
    ["http://hooks.example.com/h", "production", /must be https/],
    ["ftp://hooks.example.com/h", "production", /must be https/],
    ["ftp://hooks.example.com/h", "sandbox", /must be http or https/],
    ["not a url", "production", /not an absolute URL/],
    ["https://user:pw@hooks.example.com/h", "production", /credentials/],
    ["https://localhost/h", "production", /localhost resolves to 127\.0\.0\.1, which is loopback \(127\.0\.0\.0\/8\)/],
    ["https://127.0.0.1/h", "production", /loopback/],
    ["https://[::1]/h", "production", /loopback/],
    ["https://[::ffff:127.0.0.1]/h", "production", /loopback/],
    ["https://0x7f.1/h", "production", /loopback/],
    [
      "https://internal.example.com/h",
      "production",
      /internal\.example\.com resolves to 10\.1\.2\.3, which is private/
    ],
    ["https://192.168.1.10/h", "production", /private/],
    ["https://172.16.5.4/h", "production", /private/],
    ["https://169.254.169.254/latest/meta-data", "production", /link-local/],
    ["https://[fe80::1]/h", "production", /link-local/],
    ["https://ula.example.com/h", "production", /fd12:3456::1/],
    ["https://100.64.0.1/h", "production", /100\.64\.0\.1 is shared address space for carrier-grade NAT/],
    ["https://0.0.0.0/h", "production", /"this network"/],
    // IPv6 forms carrying an IPv4 address are judged by it (every form and range: WebhookUrl.test.ts)
    [
      "https://[64:ff9b::169.254.169.254]/h",
      "production",
      /64:ff9b::a9fe:a9fe embeds 169\.254\.169\.254, which is link-local/
    ],
    ["https://nat64.example.com/h", "production", /resolves to 64:ff9b::a9fe:a9fe, which embeds 169\.254\.169\.254/],
    ["https://[2002:808:808::1]/h", "production", /^ok https:\/\/\[2002:808:808::1\]\/h$/],
    ["https://[2606:4700::1111]/h", "production", /^ok/],
    ["https://[2001:db8::1]/h", "production", /documentation/],
    ["https://rebind.example.com/h", "production", /169\.254\.169\.254/],
    ["https://nowhere.example.com/h", "production", /does not resolve/],
    // sandbox: http and loopback are fine for development, other private targets are not
    ["http://localhost:9000/hooks", "sandbox", /^ok http:\/\/localhost:9000\/hooks$/],
    ["http://127.0.0.1:9000/hooks", "sandbox", /^ok/],
    ["http://[::1]:9000/hooks", "sandbox", /^ok/],
    ["http://[::ffff:127.0.0.1]:9000/hooks", "sandbox", /^ok/],
    ["http://192.168.1.10/hooks", "sandbox", /private/],
    ["http://169.254.169.254/", "sandbox", /link-local/]
  ]
  for (const [url, environment, expected] of cases) {
    it.effect(`${environment} ${url}`, () =>
      Effect.map(check(url, environment), (result) => assert.match(result, expected))
    )
  }
})

const operator = <A, E>(
  effect: Effect.Effect<A, E, Layer.Success<typeof MemoryStore.layerMemory> | Layer.Success<typeof Services.layer>>
) => withResolver(effect).pipe(Effect.provide(Layer.merge(MemoryStore.layerMemory, Services.layer)))

describe("Operator", () => {
  it.effect("creates a partner with a key per environment, storing only secret hashes", () =>
    operator(
      Effect.gen(function* () {
        const created = yield* Partners.createPartner({
          name: "  Acme Pay ",
          webhookUrls: { sandbox: "http://localhost:9000/hooks" }
        })
        assert.strictEqual(created.name, "Acme Pay")
        const repo = yield* PartnerRepo.PartnerRepo
        for (const environment of Environment.all) {
          const issued = created.environments[environment]!
          const stored = Option.getOrThrow(yield* repo.findApiKey(issued.api_key_id))
          assert.strictEqual(stored.partnerId, created.partner_id)
          assert.strictEqual(stored.environment, environment)
          assert.strictEqual(stored.secretHash, yield* ApiKeySecret.hashSecret(issued.api_key_secret))
          assert.notInclude(JSON.stringify(stored), issued.api_key_secret)
        }
        const endpoint = Option.getOrThrow(
          yield* repo.findWebhookEndpoint({ partnerId: created.partner_id, environment: "sandbox" })
        )
        assert.strictEqual(endpoint.url, "http://localhost:9000/hooks")
        assert.deepStrictEqual(endpoint.secrets, [
          { secret: created.environments.sandbox!.webhook_secret!, validUntil: null }
        ])
        assert.isTrue(
          Option.isNone(yield* repo.findWebhookEndpoint({ partnerId: created.partner_id, environment: "production" }))
        )
      })
    )
  )

  it.effect("checks every URL before writing anything", () =>
    operator(
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          Partners.createPartner({
            name: "X",
            webhookUrls: { sandbox: "http://localhost/h", production: "https://10.0.0.1/h" }
          })
        )
        assert.strictEqual(error._tag, "InvalidWebhookUrl")
        assert.deepStrictEqual(yield* Partners.listPartners(), [])
        const blank = yield* Effect.flip(Partners.createPartner({ name: "   " }))
        assert.strictEqual(blank._tag, "OperatorError")
      })
    )
  )

  it.effect("issues and revokes keys; listing shows them without secrets", () =>
    operator(
      Effect.gen(function* () {
        const created = yield* Partners.createPartner({ name: "Acme", environments: ["sandbox"] })
        assert.deepStrictEqual(Object.keys(created.environments), ["sandbox"])
        const second = yield* Partners.createKey(created.partner_id, "sandbox")
        const revoked = yield* Partners.revokeKey(created.environments.sandbox!.api_key_id)
        assert.isFalse(revoked.already_revoked)
        assert.isTrue((yield* Partners.revokeKey(created.environments.sandbox!.api_key_id)).already_revoked)
        const [listed] = yield* Partners.listPartners()
        assert.deepStrictEqual(
          listed!.keys.map((k) => [k.api_key_id, k.revoked_at === null]),
          [
            [created.environments.sandbox!.api_key_id, false],
            [second.api_key_id, true]
          ]
        )
        const missing = yield* Effect.flip(Partners.createKey("00000000-0000-4000-8000-000000000000", "sandbox"))
        assert.strictEqual(missing._tag === "OperatorError" && missing.reason, "partner_not_found")
        const noKey = yield* Effect.flip(Partners.revokeKey("nope"))
        assert.strictEqual(noKey._tag === "OperatorError" && noKey.reason, "key_not_found")
      })
    )
  )

  it.effect("a new webhook URL gets a new secret; the old one signs for 24 hours more", () =>
    operator(
      Effect.gen(function* () {
        const created = yield* Partners.createPartner({ name: "Acme" })
        const first = yield* Partners.setWebhook(created.partner_id, "production", "https://hooks.example.com/a")
        const second = yield* Partners.setWebhook(created.partner_id, "production", "https://hooks.example.com/b")
        const endpoint = Option.getOrThrow(
          yield* (yield* PartnerRepo.PartnerRepo).findWebhookEndpoint({
            partnerId: created.partner_id,
            environment: "production"
          })
        )
        const now = yield* DateTime.now
        assert.strictEqual(endpoint.url, "https://hooks.example.com/b")
        assert.deepStrictEqual(endpoint.secrets, [
          { secret: second.webhook_secret, validUntil: null },
          { secret: first.webhook_secret, validUntil: DateTime.addDuration(now, Duration.hours(24)) }
        ])
      })
    )
  )
})
