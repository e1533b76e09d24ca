/**
 * The operator API's partner routes over real sockets (the operator listener beside the partner
 * API, one embedded Postgres): each route's answer, each refusal with core's code and message, and
 * a POST replayed under its `Idempotency-Key` (the same answer, its secrets null: shown once; nothing made twice). Then the CLI:
 * the same `partner`, `key` and `webhook` commands on two fresh data directories, one on the
 * database and one through a running service's operator API, print the same (text and `--json`),
 * refusals included.
 */
import { assert, describe, layer } from "@effect/vitest"
import { EnabledRails } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { afterAll, it } from "vitest"
import * as Chains from "../src/Chains.ts"
import { apiMode, normalized } from "./support/apiMode.ts"
import { assertInvalid, newKey, request } from "./support/http.ts"
import * as Operator from "./support/operator.ts"
import { type CliResult, cli, cliWith, removeTempDirs, tempDataDir } from "./support/process.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

afterAll(removeTempDirs)

// the rails of a host with the sandbox on and no production chain (`pnpm start`'s defaults)
const rails = Layer.succeed(EnabledRails.EnabledRails, Chains.enabledRails({ sandbox: true, productionChains: [] }))

const both = Operator.layer.pipe(Layer.provide(rails), Layer.provideMerge(serverLayer()))

/** A call to the operator listener with the test's admin token (and `headers`). */
const operator = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
  Effect.flatMap(Operator.Operator, ({ url, token }) =>
    request(url, method, path, {
      headers: { ...Operator.bearer(token), ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body })
    })
  )

const refused = (reply: { status: number; json: unknown }, status: number, code: string, message?: string) => {
  const error = (reply.json as { error: { code: string; message: string } }).error
  assert.strictEqual(reply.status, status, JSON.stringify(reply.json))
  assert.strictEqual(error.code, code)
  if (message !== undefined) assert.strictEqual(error.message, message)
}

/** A partner's key works on the partner API (`GET /api/v1/partners/me`): the status it answers. */
const partnerApiStatus = (keyId: string, secret: string, environment: string) =>
  Effect.flatMap(TestServer, ({ baseUrl }) =>
    Effect.map(
      request(baseUrl, "GET", "/api/v1/partners/me", { key: { keyId, secret, environment } }),
      (reply) => reply.status
    )
  )

const listed = Effect.map(operator("GET", "/operator/v1/partners"), (reply) => {
  assert.strictEqual(reply.status, 200)
  return reply.json as ReadonlyArray<{
    partner_id: string
    name: string
    keys: ReadonlyArray<{ api_key_id: string; revoked_at: string | null }>
    webhook_urls: Record<string, string>
    refund_addresses: Record<string, Record<string, string>>
  }>
})

const unknownId = "00000000-0000-4000-8000-000000000000"

layer(both, { excludeTestServices: true, timeout: "120 seconds" })("operator API: partners", (it) => {
  it.effect("GET /partners: every partner, its keys (revoked too), no secret", () =>
    Effect.gen(function* () {
      const { a, b } = yield* TestServer
      const reply = yield* operator("GET", "/operator/v1/partners")
      assert.strictEqual(reply.status, 200)
      const acme = (yield* listed).find((p) => p.partner_id === a.id)
      assert.strictEqual(acme?.name, "Acme Pay")
      assert.sameMembers(
        acme!.keys.map((k) => k.api_key_id),
        [a.sandbox.keyId, a.production.keyId, a.revoked.keyId]
      )
      assert.isString(acme!.keys.find((k) => k.api_key_id === a.revoked.keyId)?.revoked_at)
      for (const secret of [a.sandbox.secret, a.production.secret, b.sandbox.secret]) {
        assert.notInclude(reply.text, secret)
      }
    })
  )

  it.effect("POST /partners: 201 with keys that work; replayed under its key without the secrets, made once", () =>
    Effect.gen(function* () {
      const before = (yield* listed).length
      const key = newKey()
      const body = { name: "Gamma Pay", webhook_urls: { sandbox: "http://127.0.0.1:9000/hooks" } }
      const first = yield* operator("POST", "/operator/v1/partners", { body, headers: { "Idempotency-Key": key } })
      assert.strictEqual(first.status, 201, first.text)
      assert.isNull(first.headers.get("idempotent-replayed"))
      const created = first.json
      assert.deepStrictEqual(Object.keys(created), ["partner_id", "name", "created_at", "environments"])
      assert.deepStrictEqual(Object.keys(created.environments), ["sandbox", "production"])
      assert.match(created.environments.sandbox.api_key_secret, /^rlk_/)
      assert.strictEqual(created.environments.sandbox.webhook_url, "http://127.0.0.1:9000/hooks")
      assert.match(created.environments.sandbox.webhook_secret, /^whsec_/)
      assert.isNull(created.environments.production.webhook_secret)
      const sandbox = created.environments.sandbox
      assert.strictEqual(yield* partnerApiStatus(sandbox.api_key_id, sandbox.api_key_secret, "sandbox"), 200)

      // a replay says what was made, its secrets shown once: none is kept to be shown again
      const again = yield* operator("POST", "/operator/v1/partners", { body, headers: { "Idempotency-Key": key } })
      assert.strictEqual(again.status, 201)
      assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
      assert.deepStrictEqual(again.json, {
        ...created,
        environments: {
          sandbox: { ...created.environments.sandbox, api_key_secret: null, webhook_secret: null },
          production: { ...created.environments.production, api_key_secret: null }
        }
      })
      assert.notInclude(again.text, sandbox.api_key_secret)
      const after = yield* listed
      assert.strictEqual(after.length, before + 1)
      assert.strictEqual(after.filter((p) => p.name === "Gamma Pay").length, 1)

      // the same key on another body is refused, and makes nothing
      const other = yield* operator("POST", "/operator/v1/partners", {
        body: { name: "Delta Pay" },
        headers: { "Idempotency-Key": key }
      })
      refused(other, 409, "idempotency_key_reused")
      // without a key, each POST is a partner of its own
      const plain = yield* operator("POST", "/operator/v1/partners", { body: { name: "Gamma Pay" } })
      assert.strictEqual(plain.status, 201)
      assert.notStrictEqual(plain.json.partner_id, created.partner_id)
      assert.strictEqual((yield* listed).length, before + 2)
    })
  )

  it.effect("POST /partners refusals: 422 with core's code and message; nothing written", () =>
    Effect.gen(function* () {
      const before = (yield* listed).length
      refused(
        yield* operator("POST", "/operator/v1/partners", { body: { name: "   " } }),
        422,
        "invalid_name",
        "a partner name is 1 to 200 characters"
      )
      refused(
        yield* operator("POST", "/operator/v1/partners", {
          body: { name: "X", webhook_urls: { production: "http://example.com/h" } }
        }),
        422,
        "invalid_webhook_url",
        "production webhook URL http://example.com/h refused: must be https"
      )
      const loopback = yield* operator("POST", "/operator/v1/partners", {
        body: { name: "X", webhook_urls: { production: "https://127.0.0.1/h" } }
      })
      refused(loopback, 422, "invalid_webhook_url")
      assert.include(loopback.json.error.message, "loopback")
      // shapes the route refuses before core (as every operator route does: 422 validation_error naming
      // the field): no name, a NUL, another environment, a property the route does not know
      for (const [body, fields] of [
        [{}, ["body.name:missing"]],
        [{ name: "A\u0000B" }, ["body.name:value_error"]],
        [{ name: "X", webhook_urls: { staging: "http://127.0.0.1/h" } }, ["body.webhook_urls:value_error"]],
        [{ name: "X", contact: "ops@example.com" }, ["body.contact:extra_forbidden"]]
      ] as const) {
        assertInvalid(yield* operator("POST", "/operator/v1/partners", { body }), fields, JSON.stringify(body))
      }
      assert.strictEqual((yield* listed).length, before)
    })
  )

  it.effect("PUT refund address: checked by the chain's rule, stored lowercase, replaced; refusals", () =>
    Effect.gen(function* () {
      const { a } = yield* TestServer
      const path = (partner: string, environment: string, chain: string) =>
        `/operator/v1/partners/${partner}/refund-addresses/${environment}/${chain}`
      const set = yield* operator("PUT", path(a.id, "sandbox", "polygon"), {
        body: { address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" }
      })
      assert.strictEqual(set.status, 200, set.text)
      assert.deepStrictEqual(Object.keys(set.json), ["partner_id", "environment", "chain", "address", "updated_at"])
      assert.deepInclude(set.json, {
        partner_id: a.id,
        environment: "sandbox",
        chain: "polygon",
        address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
      })
      const replaced = "0xde709f2102306220921060314715629080e2fb77"
      assert.strictEqual(
        (yield* operator("PUT", path(a.id, "sandbox", "polygon"), { body: { address: replaced } })).status,
        200
      )
      const acme = () => Effect.map(listed, (all) => all.find((p) => p.partner_id === a.id)!.refund_addresses)
      assert.deepStrictEqual(yield* acme(), { sandbox: { polygon: replaced } })

      refused(
        yield* operator("PUT", path(unknownId, "sandbox", "polygon"), { body: { address: replaced } }),
        404,
        "partner_not_found",
        `no partner ${unknownId}`
      )
      refused(
        yield* operator("PUT", path("not-a-uuid", "sandbox", "polygon"), { body: { address: replaced } }),
        404,
        "partner_not_found"
      )
      refused(
        yield* operator("PUT", path(a.id, "sandbox", "polygon"), { body: { address: "0xde709f21" } }),
        422,
        "invalid_address",
        "not a polygon address (0x and 40 hex digits): 0xde709f21"
      )
      // no production chain on this host: nothing could check the address, nor ever send to it
      refused(
        yield* operator("PUT", path(a.id, "production", "polygon"), { body: { address: replaced } }),
        409,
        "chain_not_enabled",
        "polygon is not enabled for production (RATELOCK_PRODUCTION_CHAINS is empty): add polygon to " +
          "RATELOCK_PRODUCTION_CHAINS, with its RPC and tokens, to set a production refund address on it"
      )
      for (const [environment, chain, field] of [
        ["sandbox", "bitcoin", "path.chain:enum"],
        ["staging", "polygon", "path.environment:enum"]
      ] as const) {
        assertInvalid(
          yield* operator("PUT", path(a.id, environment, chain), { body: { address: replaced } }),
          [field],
          `${environment}/${chain}`
        )
      }
      assertInvalid(yield* operator("PUT", path(a.id, "sandbox", "polygon"), { body: {} }), ["body.address:missing"])
      assert.deepStrictEqual(yield* acme(), { sandbox: { polygon: replaced } })
    })
  )

  it.effect("POST keys: 201 with a key that works, replayed without its secret, issued once; refusals", () =>
    Effect.gen(function* () {
      const { b } = yield* TestServer
      const keysOfB = Effect.map(listed, (all) => all.find((p) => p.partner_id === b.id)!.keys.length)
      const before = yield* keysOfB
      const idempotencyKey = newKey()
      const post = () =>
        operator("POST", `/operator/v1/partners/${b.id}/keys`, {
          body: { environment: "production" },
          headers: { "Idempotency-Key": idempotencyKey }
        })
      const first = yield* post()
      assert.strictEqual(first.status, 201, first.text)
      assert.deepStrictEqual(Object.keys(first.json), ["partner_id", "environment", "api_key_id", "api_key_secret"])
      assert.deepInclude(first.json, { partner_id: b.id, environment: "production" })
      assert.strictEqual(yield* partnerApiStatus(first.json.api_key_id, first.json.api_key_secret, "production"), 200)
      const again = yield* post()
      assert.strictEqual(again.status, 201)
      assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
      assert.deepStrictEqual(again.json, { ...first.json, api_key_secret: null })
      assert.strictEqual(yield* keysOfB, before + 1)

      refused(
        yield* operator("POST", `/operator/v1/partners/${unknownId}/keys`, { body: { environment: "sandbox" } }),
        404,
        "partner_not_found",
        `no partner ${unknownId}`
      )
      assertInvalid(
        yield* operator("POST", `/operator/v1/partners/${b.id}/keys`, { body: { environment: "staging" } }),
        ["body.environment:enum"]
      )
      assert.strictEqual(yield* keysOfB, before + 1)
    })
  )

  it.effect("POST revoke: revoked at once (replayed as first answered), again: already revoked; unknown: 404", () =>
    Effect.gen(function* () {
      const { b } = yield* TestServer
      const issued = (yield* operator("POST", `/operator/v1/partners/${b.id}/keys`, {
        body: { environment: "sandbox" }
      })).json
      const idempotencyKey = newKey()
      const revoke = (headers: Record<string, string> = {}) =>
        operator("POST", `/operator/v1/keys/${issued.api_key_id}/revoke`, { headers })
      const first = yield* revoke({ "Idempotency-Key": idempotencyKey })
      assert.strictEqual(first.status, 200, first.text)
      assert.deepStrictEqual(Object.keys(first.json), [
        "api_key_id",
        "partner_id",
        "environment",
        "revoked_at",
        "already_revoked"
      ])
      assert.deepInclude(first.json, { api_key_id: issued.api_key_id, partner_id: b.id, already_revoked: false })
      const replay = yield* revoke({ "Idempotency-Key": idempotencyKey })
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(replay.text, first.text)
      const again = yield* revoke()
      assert.deepInclude(again.json, { already_revoked: true, revoked_at: first.json.revoked_at })
      // the partner API refuses it once its cache of the key (a second) has passed
      yield* Effect.sleep("1100 millis")
      assert.strictEqual(yield* partnerApiStatus(issued.api_key_id, issued.api_key_secret, "sandbox"), 401)

      for (const id of [unknownId, "not-a-uuid"]) {
        refused(yield* operator("POST", `/operator/v1/keys/${id}/revoke`), 404, "key_not_found", `no API key ${id}`)
      }
    })
  )

  it.effect("PUT webhook: the URL with a new secret (listed, the secret not); refusals keep the URL", () =>
    Effect.gen(function* () {
      const { b } = yield* TestServer
      const path = (partner: string, environment: string) => `/operator/v1/partners/${partner}/webhooks/${environment}`
      const set = yield* operator("PUT", path(b.id, "production"), { body: { url: "https://93.184.215.14/hooks" } })
      assert.strictEqual(set.status, 200, set.text)
      assert.deepStrictEqual(Object.keys(set.json), ["partner_id", "environment", "webhook_url", "webhook_secret"])
      assert.deepInclude(set.json, {
        partner_id: b.id,
        environment: "production",
        webhook_url: "https://93.184.215.14/hooks"
      })
      assert.match(set.json.webhook_secret, /^whsec_/)
      const rotated = yield* operator("PUT", path(b.id, "production"), { body: { url: "https://93.184.215.14/hooks" } })
      assert.notStrictEqual(rotated.json.webhook_secret, set.json.webhook_secret)
      const list = yield* operator("GET", "/operator/v1/partners")
      assert.deepStrictEqual(list.json.find((p: { partner_id: string }) => p.partner_id === b.id).webhook_urls, {
        production: "https://93.184.215.14/hooks"
      })
      assert.notInclude(list.text, set.json.webhook_secret)

      refused(
        yield* operator("PUT", path(unknownId, "production"), { body: { url: "https://93.184.215.14/h" } }),
        404,
        "partner_not_found",
        `no partner ${unknownId}`
      )
      refused(
        yield* operator("PUT", path(b.id, "production"), { body: { url: "http://example.com/h" } }),
        422,
        "invalid_webhook_url",
        "production webhook URL http://example.com/h refused: must be https"
      )
      assertInvalid(yield* operator("PUT", path(b.id, "staging"), { body: { url: "https://93.184.215.14/h" } }), [
        "path.environment:enum"
      ])
      const after = (yield* listed).find((p) => p.partner_id === b.id)
      assert.deepStrictEqual(after?.webhook_urls, { production: "https://93.184.215.14/hooks" })
    })
  )
})

/** What one command printed, as compared across the two modes. */
const shown = (result: CliResult) => ({
  code: result.code,
  stdout: normalized(result.stdout),
  stderr: normalized(result.stderr)
})

describe("the CLI through the operator API", () => {
  it("partner, key and webhook commands print the same on the database and through the API", async () => {
    const onDatabase = tempDataDir()
    const throughApi = tempDataDir()
    // no demo partner: both directories start with no partner
    const api = await apiMode(throughApi, { name: "alice", env: { RATELOCK_DEMO_PARTNER: "false" } })
    try {
      const run = {
        database: (...args: ReadonlyArray<string>) => cli(onDatabase, ...args),
        api: (...args: ReadonlyArray<string>) => cliWith(throughApi, api.env, ...args)
      }
      /** `args(mode's ids)` in both modes; the two outputs compared; each mode's JSON when asked. */
      const both = async (
        label: string,
        args: (ids: Record<string, string>) => ReadonlyArray<string>,
        ids: { database: Record<string, string>; api: Record<string, string> }
      ) => {
        // side by side: two data directories, nothing shared
        const [database, remote] = await Promise.all([run.database(...args(ids.database)), run.api(...args(ids.api))])
        assert.deepStrictEqual(shown(remote), shown(database), label)
        return { database, api: remote }
      }
      const ids = { database: {} as Record<string, string>, api: {} as Record<string, string> }
      // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON, read field by field
      const remember = (name: string, out: { database: CliResult; api: CliResult }, pick: (json: any) => string) => {
        ids.database[name] = pick(JSON.parse(out.database.stdout))
        ids.api[name] = pick(JSON.parse(out.api.stdout))
      }

      const emptyList = await both("empty list", () => ["partner", "list"], ids)
      assert.include(emptyList.api.stdout, "No partners yet")
      await both("empty list --json", () => ["partner", "list", "--json"], ids)

      const acme = await both(
        "partner create --json",
        () => ["partner", "create", "--name", "Acme Pay", "--webhook-url-sandbox", "http://127.0.0.1:9000/h", "--json"],
        ids
      )
      assert.strictEqual(acme.api.code, 0, acme.api.stderr)
      remember("acme", acme, (json) => json.partner_id)
      remember("acmeSandboxKey", acme, (json) => json.environments.sandbox.api_key_id)
      const beta = await both("partner create (text)", () => ["partner", "create", "--name", "Beta Remit"], ids)
      assert.include(beta.api.stdout, "Secrets below are shown only this once")
      for (const [mode, out] of [
        ["database", beta.database],
        ["api", beta.api]
      ] as const) {
        ids[mode].beta = /partner_id\s+(\S+)/.exec(out.stdout)![1]!
      }

      const polygon = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
      const solana = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
      const refund = ["partner", "refund-address", "set"]
      await both(
        "refund-address set (text)",
        (i) => [...refund, i.acme!, "--environment", "sandbox", "--chain", "polygon", "--address", polygon],
        ids
      )
      await both(
        "refund-address set --json",
        (i) => [...refund, i.acme!, "--environment", "sandbox", "--chain", "solana", "--address", solana, "--json"],
        ids
      )

      const key = await both(
        "key create --json",
        (i) => ["key", "create", "--partner", i.beta!, "--environment", "production", "--json"],
        ids
      )
      remember("betaKey", key, (json) => json.api_key_id)
      await both("key create (text)", (i) => ["key", "create", "--partner", i.acme!, "--environment", "sandbox"], ids)
      await both("key revoke (text)", (i) => ["key", "revoke", "--key", i.acmeSandboxKey!], ids)
      await both("key revoke again --json", (i) => ["key", "revoke", "--key", i.acmeSandboxKey!, "--json"], ids)

      await both(
        "webhook set (text)",
        (i) => [
          "webhook",
          "set",
          "--partner",
          i.beta!,
          "--environment",
          "production",
          "--url",
          "https://93.184.215.14/h"
        ],
        ids
      )
      await both(
        "webhook set --json",
        (i) => [
          "webhook",
          "set",
          "--partner",
          i.acme!,
          "--environment",
          "sandbox",
          "--url",
          "http://127.0.0.1:9001/h",
          "--json"
        ],
        ids
      )

      // refusals: the same exit code and message
      const refusals: ReadonlyArray<readonly [string, (i: Record<string, string>) => ReadonlyArray<string>]> = [
        ["partner create, blank name", () => ["partner", "create", "--name", "   "]],
        [
          "partner create, production http URL",
          () => ["partner", "create", "--name", "X", "--webhook-url-production", "http://example.com/h"]
        ],
        [
          "refund-address, unknown partner",
          () => [...refund, unknownId, "--environment", "sandbox", "--chain", "polygon", "--address", polygon]
        ],
        [
          "refund-address, bad address",
          (i) => [...refund, i.acme!, "--environment", "sandbox", "--chain", "polygon", "--address", "0xde709f21"]
        ],
        [
          "refund-address, production not enabled",
          (i) => [...refund, i.acme!, "--environment", "production", "--chain", "polygon", "--address", polygon]
        ],
        ["key create, unknown partner", () => ["key", "create", "--partner", "nope", "--environment", "sandbox"]],
        ["key revoke, unknown key", () => ["key", "revoke", "--key", unknownId]],
        [
          "webhook set, unknown partner",
          () => ["webhook", "set", "--partner", unknownId, "--environment", "sandbox", "--url", "http://127.0.0.1/h"]
        ],
        [
          "webhook set, production http URL",
          (i) => [
            "webhook",
            "set",
            "--partner",
            i.beta!,
            "--environment",
            "production",
            "--url",
            "http://example.com/h"
          ]
        ]
      ]
      for (const [label, args] of refusals) {
        const out = await both(label, args, ids)
        assert.strictEqual(out.api.code, 1, label)
        assert.notStrictEqual(out.api.stderr.trim(), "", label)
      }
      const production = await run.api(
        ...[...refund, ids.api.acme!, "--environment", "production", "--chain", "polygon", "--address", polygon]
      )
      assert.include(production.stderr, "polygon is not enabled for production (RATELOCK_PRODUCTION_CHAINS is empty)")

      const text = await both("partner list (text)", () => ["partner", "list"], ids)
      assert.include(text.api.stdout, "  webhook production  https://93.184.215.14/h")
      const json = await both("partner list --json", () => ["partner", "list", "--json"], ids)
      // webhook set through the API left the URLs where the database mode left them
      const webhooks = (out: CliResult) =>
        JSON.parse(out.stdout).map((p: { name: string; webhook_urls: unknown }) => [p.name, p.webhook_urls])
      assert.deepStrictEqual(webhooks(json.api), [
        ["Acme Pay", { sandbox: "http://127.0.0.1:9001/h" }],
        ["Beta Remit", { production: "https://93.184.215.14/h" }]
      ])
      assert.deepStrictEqual(webhooks(json.api), webhooks(json.database))
    } finally {
      await api.stop()
    }
  }, 400_000)
})
