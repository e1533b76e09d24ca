/**
 * Two `pnpm start` processes (workers on, demo partner on: the defaults) started at the same
 * moment on one fresh PostgreSQL database: exactly one demo partner (and one `demo` operator token)
 * exists afterwards, exactly one process printed its credentials, and they work on both. Skipped
 * without `DATABASE_URL`.
 */
import { assert, describe, it } from "vitest"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { freshDatabase } from "./support/cluster/database.ts"
import { eventually } from "./support/process.ts"
import { Cluster } from "./support/processes.ts"

if (databaseUrl === undefined) console.warn("DATABASE_URL is not set: the demo partner race test is skipped")

const asStarted = { RATELOCK_DEMO_PARTNER: "true", RATELOCK_WORKERS: "true", RATELOCK_LOG_LEVEL: "Info" }

describe.skipIf(databaseUrl === undefined)("two servers starting at once on one PostgreSQL", () => {
  it("create exactly one demo partner, and only one of them prints its credentials", { timeout: 180_000 }, async () => {
    const db = await freshDatabase(databaseUrl!, "ratelock_demo")
    const cluster = new Cluster(db.url)
    try {
      const servers = await Promise.all([
        cluster.startApi("start-a", asStarted),
        cluster.startApi("start-b", asStarted)
      ])
      // the ready line comes once the demo partner step is done
      for (const { api } of servers) {
        await eventually(
          () => (api.output().includes("Ratelock ready on") ? true : undefined),
          60_000,
          `${api.name} ready`
        )
      }
      const printed = servers.map(({ api }) => api.output()).filter((out) => out.includes("Demo partner created"))
      assert.strictEqual(printed.length, 1, servers.map(({ api }) => api.output()).join("\n---\n"))

      const partners = await db.query<{ readonly id: string; readonly name: string }>(
        (sql) => sql`SELECT id, name FROM partners`
      )
      assert.deepStrictEqual(
        partners.map((p) => p.name),
        ["Demo partner"]
      )
      const keys = await db.query<{ readonly id: string; readonly environment: string }>(
        (sql) => sql`SELECT id, environment FROM api_keys`
      )
      const keyId = /api_key_id\s+(\S+)/.exec(printed[0]!)?.[1]
      const secret = /api_key_secret\s+(rlk_\S+)/.exec(printed[0]!)?.[1]
      assert.deepStrictEqual(keys, [{ id: keyId!, environment: "sandbox" }])

      for (const { baseUrl } of servers) {
        const me = await fetch(`${baseUrl}/api/v1/partners/me`, {
          headers: { "X-Partner-Key-Id": keyId!, "X-Partner-Key-Secret": secret!, "X-Partner-Environment": "sandbox" }
        })
        assert.strictEqual(me.status, 200)
        assert.deepInclude(await me.json(), { partner_id: partners[0]!.id, partner_name: "Demo partner" })
      }

      // one demo operator token, printed by the same process, working on both operator listeners
      const tokens = await db.query<{ readonly name: string }>((sql) => sql`SELECT name FROM operator_tokens`)
      assert.deepStrictEqual(
        tokens.map((t) => t.name),
        ["demo"]
      )
      const token = /operator_token\s+(rlop_\S+)/.exec(printed[0]!)?.[1]
      assert.isDefined(token)
      for (const { api } of servers) {
        const operatorUrl = /Operator API on (http:\/\/\S+)/.exec(api.output())?.[1]
        assert.isDefined(operatorUrl, api.output())
        const status = await fetch(`${operatorUrl}/operator/v1/status`, {
          headers: { Authorization: `Bearer ${token}` }
        })
        assert.strictEqual(status.status, 200)
      }
    } finally {
      await cluster.stop()
      await db.drop()
    }
  })
})
