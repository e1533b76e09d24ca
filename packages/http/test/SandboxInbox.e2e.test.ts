/**
 * The sandbox's webhook inbox, as a newcomer meets it on `pnpm start`: the demo partner's sandbox
 * webhook points at the server's own inbox, so a funded contract's `funds_received` arrives there
 * signed, and `GET /api/v1/sandbox/webhook-inbox` shows it with its headers and verified
 * signatures. A delivery that was not signed with the partner's secret is kept and marked so; an
 * inbox of no partner is 404.
 */
import { Requests } from "@ratelock/core"
import { DateTime } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import { baseUrlOf, eventually, removeTempDirs, start, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field
type Json = any

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("the sandbox webhook inbox", () => {
  it("receives the demo partner's signed deliveries and shows them", { timeout: 120_000 }, async () => {
    const service = start(tempDataDir(), { RATELOCK_SANDBOX_CONFIRM_MS: "200" })
    try {
      const baseUrl = await baseUrlOf(service)
      const banner = await eventually(() =>
        service.stdout().includes("api_key_secret") ? service.stdout() : undefined
      )
      const partnerId = /partner_id\s+(\S+)/.exec(banner)![1]!
      const headers = {
        "content-type": "application/json",
        "x-partner-key-id": /api_key_id\s+(\S+)/.exec(banner)![1]!,
        "x-partner-key-secret": /api_key_secret\s+(\S+)/.exec(banner)![1]!,
        "x-partner-environment": "sandbox"
      }
      const call = async (path: string, init: RequestInit = {}) => {
        const reply = await fetch(`${baseUrl}${path}`, { headers, ...init })
        return { status: reply.status, json: (await reply.json()) as Json }
      }
      const inbox = `${baseUrl}/api/v1/sandbox/webhook-inbox/${partnerId}`
      assert.include(banner, `${baseUrl}/api/v1/sandbox/webhook-inbox`)
      assert.deepStrictEqual((await call("/api/v1/sandbox/webhook-inbox")).json, { url: inbox, items: [] })

      const quote = await call("/api/v1/fx/quotes", {
        method: "POST",
        body: JSON.stringify(Requests.quoteAt(DateTime.nowUnsafe()))
      })
      const contract = await call("/api/v1/fx/contracts", {
        method: "POST",
        body: JSON.stringify({ quote_id: quote.json.id })
      })
      assert.strictEqual(contract.status, 201)
      assert.strictEqual(
        (await call(`/api/v1/sandbox/contracts/${contract.json.id}/fund`, { method: "POST" })).status,
        202
      )

      // funding confirms, funds_received is delivered over HTTP to the inbox and verified there
      let arrived: Json
      for (let i = 0; i < 300 && arrived === undefined; i++) {
        const page = (await call("/api/v1/sandbox/webhook-inbox")).json
        if (page.items.length > 0) arrived = page
        else await sleep(100)
      }
      const item = arrived.items[0]
      assert.strictEqual(item.event_type, "funds_received")
      assert.strictEqual(item.fx_contract_id, contract.json.id)
      assert.isTrue(item.signature_verified)
      assert.isNull(item.signature_problem)
      const received: Record<string, string> = item.headers
      assert.strictEqual(received["webhook-id"], item.event_id)
      assert.match(received["x-partner-signature"]!, /^[0-9a-f]{64}$/)
      assert.match(received["webhook-signature"]!, /^v1,/)
      assert.deepInclude(item.payload, { event_type: "funds_received", fx_contract_id: contract.json.id })

      // anyone may post to an inbox, as to any webhook receiver: what is not signed is marked so
      const forged = await fetch(inbox, {
        method: "POST",
        headers: { "content-type": "application/json", "x-partner-signature": "0".repeat(64) },
        body: JSON.stringify({ event_type: "payout_settled", fx_contract_id: contract.json.id })
      })
      assert.deepStrictEqual((await forged.json()) as Json, { received: true, signature_verified: false })
      const newest = (await call("/api/v1/sandbox/webhook-inbox?limit=1")).json.items
      assert.lengthOf(newest, 1)
      assert.strictEqual(newest[0].event_type, "payout_settled")
      assert.isFalse(newest[0].signature_verified)
      assert.strictEqual(newest[0].signature_problem, "x-partner-signature does not match any secret")

      const nobody = await fetch(`${baseUrl}/api/v1/sandbox/webhook-inbox/${crypto.randomUUID()}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}"
      })
      assert.strictEqual(nobody.status, 404)
      assert.strictEqual(((await nobody.json()) as Json).error.code, "webhook_inbox_not_found")
    } finally {
      service.child.kill("SIGTERM")
      await service.exited
    }
  })
})
