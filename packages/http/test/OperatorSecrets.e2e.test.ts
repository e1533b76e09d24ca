/**
 * No secret reaches the audit log: every partner API key secret, webhook secret and operator
 * token issued in this test (through the operator API, under an Idempotency-Key and without, and
 * as the CLI on the database issues them, core's actions run as `cli:…`) is searched for in the
 * audit table's every record (every field, as the store reads it back), in every page of
 * `GET /operator/v1/audit`, and in the replays of the keyed POSTs (what the idempotency table
 * keeps). Each is found in none; each action is recorded.
 */
import { assert, layer } from "@effect/vitest"
import { AuditRepo, EnabledRails, OperatorActions, OperatorActor } from "@ratelock/core"
import { Effect, Layer } from "effect"
import * as Chains from "../src/Chains.ts"
import { newKey, request } from "./support/http.ts"
import * as Operator from "./support/operator.ts"
import { layer as serverLayer } from "./support/server.ts"

const rails = Layer.succeed(EnabledRails.EnabledRails, Chains.enabledRails({ sandbox: true, productionChains: [] }))
const both = Operator.layer.pipe(Layer.provide(rails), Layer.provideMerge(serverLayer()))

const operator = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
  Effect.flatMap(Operator.Operator, ({ url, token }) =>
    request(url, method, path, {
      headers: { ...Operator.bearer(token), ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body })
    })
  )

/** The answer's JSON, failing the test unless it is a success. */
const ok = (reply: { status: number; json: unknown; text: string }) => {
  assert.isBelow(reply.status, 300, reply.text)
  // biome-ignore lint/suspicious/noExplicitAny: each answer's secrets are read field by field
  return reply.json as any
}

layer(both, { excludeTestServices: true, timeout: "120 seconds" })("secrets and the audit log", (it) => {
  it.effect(
    "no secret or token issued through the API or the CLI is in the audit table, its route or the replay store",
    () =>
      Effect.gen(function* () {
        const secrets: Array<string> = []
        /** What the store keeps of each keyed POST, as its replay answers it. */
        const replays: Array<Effect.Effect<string, never, Operator.Operator>> = []
        const keyedPost = (path: string, body: unknown) => {
          const headers = { "Idempotency-Key": newKey() }
          replays.push(Effect.map(operator("POST", path, { body, headers }), (reply) => reply.text))
          return operator("POST", path, { body, headers })
        }

        // through the operator API: a partner (a key per environment, a sandbox webhook), a key, a webhook, a token
        const partner = ok(
          yield* keyedPost("/operator/v1/partners", {
            name: "Secretive Pay",
            webhook_urls: { sandbox: "http://127.0.0.1:9000/hooks" }
          })
        )
        const environments = Object.values(partner.environments) as Array<{
          api_key_secret: string
          webhook_secret: string | null
        }>
        for (const c of environments) {
          secrets.push(c.api_key_secret, ...(c.webhook_secret === null ? [] : [c.webhook_secret]))
        }
        const key = ok(
          yield* keyedPost(`/operator/v1/partners/${partner.partner_id}/keys`, { environment: "production" })
        )
        secrets.push(key.api_key_secret)
        const webhook = ok(
          yield* operator("PUT", `/operator/v1/partners/${partner.partner_id}/webhooks/sandbox`, {
            body: { url: "http://127.0.0.1:9001/hooks" }
          })
        )
        secrets.push(webhook.webhook_secret)
        const token = ok(yield* keyedPost("/operator/v1/tokens", { name: "auditor", role: "viewer" }))
        secrets.push(token.token)

        // as the CLI does on the database: core's actions, as cli:<user>@<host>
        const cli = Layer.succeed(OperatorActor.OperatorActor, OperatorActor.cli("ops", "bastion"))
        const onDatabase = yield* Effect.provide(
          Effect.all([
            OperatorActions.createPartner({ name: "Quiet Pay", webhookUrls: { sandbox: "http://127.0.0.1:9002/h" } }),
            OperatorActions.createKey(partner.partner_id, "sandbox"),
            OperatorActions.setWebhook(partner.partner_id, "sandbox", "http://127.0.0.1:9003/hooks"),
            OperatorActions.createToken({ name: "cron", role: "admin", expiresIn: "30d" })
          ]),
          cli
        )
        const [created, issued, rotated, made] = onDatabase
        for (const c of Object.values(created.environments)) {
          secrets.push(c!.api_key_secret, ...(c!.webhook_secret === null ? [] : [c!.webhook_secret]))
        }
        secrets.push(issued.api_key_secret, rotated.webhook_secret, made.token)
        assert.strictEqual(secrets.length, 12)
        assert.isTrue(secrets.every((s) => typeof s === "string" && s.length >= 20))

        // the audit table, every field of every record
        const records = yield* (yield* AuditRepo.AuditRepo).list({ limit: 100_000 })
        const table = JSON.stringify(records)
        const actions = records.map((r) => r.action)
        for (const action of ["partner.create", "key.create", "webhook.set", "operator.token.create"]) {
          assert.isAtLeast(actions.filter((a) => a === action).length, 2, action)
        }
        // the route, every page of it
        const pages: Array<string> = []
        let cursor: string | null = null
        do {
          const path: string = `/operator/v1/audit?limit=5${cursor === null ? "" : `&cursor=${cursor}`}`
          const page = yield* operator("GET", path)
          const body = ok(page)
          pages.push(page.text)
          cursor = body.next_cursor
        } while (cursor !== null)
        assert.isAtLeast(pages.length, 2)
        const replayStore = (yield* Effect.all(replays)).join("\n")
        assert.include(replayStore, partner.partner_id)
        for (const secret of secrets) {
          assert.notInclude(table, secret, "the audit table")
          assert.notInclude(pages.join("\n"), secret, "GET /operator/v1/audit")
          assert.notInclude(replayStore, secret, "the idempotency table")
        }
      })
  )
})
