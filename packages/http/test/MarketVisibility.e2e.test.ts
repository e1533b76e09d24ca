/**
 * A snapshot imported while the service runs prices the next quotes of every process, with no
 * restart: two API processes on one PostgreSQL, each having priced a quote already (so each holds
 * the latest snapshot it read), then `ratelock market import` from a third process. One second
 * after the import returns, a quote on either API is priced from the new snapshot. Skipped without
 * `DATABASE_URL`.
 */
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { newKey, quoteBody, request } from "./support/http.ts"
import { withCluster } from "./support/cluster/setup.ts"
import { cliJson } from "./support/processes.ts"

const example = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../docs/market/example-snapshot.json"), "utf8")
)

interface VolPillar {
  readonly tenor_days: number
  readonly atm: string
}

/** The example snapshot observed now, with every ATM vol multiplied by `factor`. */
const snapshotNow = (factor: number) => ({
  ...example,
  as_of: new Date().toISOString(),
  vols: Object.fromEntries(
    Object.entries(example.vols as Record<string, ReadonlyArray<VolPillar>>).map(([pair, pillars]) => [
      pair,
      pillars.map((pillar) => ({ ...pillar, atm: String(Number(pillar.atm) * factor) }))
    ])
  )
})

describe.skipIf(databaseUrl === undefined)("a market snapshot imported while two API processes run", () => {
  it("prices both processes' next quotes within a second, without a restart", { timeout: 120_000 }, () =>
    withCluster(databaseUrl!, { prefix: "ratelock_market" }, async ({ db, cluster, partner }) => {
      const key = { keyId: partner.keyId, secret: partner.secret, environment: "sandbox" }
      const apis = await Promise.all([cluster.startApi("api-a"), cluster.startApi("api-b")])
      const dir = mkdtempSync(join(tmpdir(), "ratelock-market-"))
      /** A quote on each API: its snapshot id (from `quote explain`) and premium. */
      const quoteEverywhere = () =>
        Promise.all(
          apis.map(async ({ baseUrl }) => {
            const reply = await Effect.runPromise(
              Effect.flatMap(quoteBody({ customer_reference_id: `cust-${newKey()}` }), (body) =>
                request(baseUrl, "POST", "/api/v1/fx/quotes", {
                  key,
                  body,
                  headers: { "Idempotency-Key": newKey() }
                })
              )
            )
            assert.strictEqual(reply.status, 201, reply.text)
            assert.strictEqual(reply.json.status, "created", reply.text)
            const explained = await cliJson(db.url, "quote", "explain", reply.json.id)
            return { snapshotId: explained.snapshot_id as string | null, premium: Number(reply.json.premium_amount) }
          })
        )
      const importNow = async (factor: number) => {
        const file = join(dir, `snapshot-${factor}.json`)
        writeFileSync(file, JSON.stringify(snapshotNow(factor)))
        const imported = await cliJson(db.url, "market", "import", file)
        await new Promise((resolve) => setTimeout(resolve, 1_000))
        return imported.snapshot_id as string
      }
      try {
        // nothing imported yet: the sandbox prices from the built-in illustrative snapshot
        for (const quote of await quoteEverywhere()) assert.strictEqual(quote.snapshotId, null)

        const first = await importNow(1)
        const onFirst = await quoteEverywhere()
        for (const quote of onFirst) assert.strictEqual(quote.snapshotId, first)

        const doubled = await importNow(2)
        const onDoubled = await quoteEverywhere()
        for (const [i, quote] of onDoubled.entries()) {
          assert.strictEqual(quote.snapshotId, doubled)
          assert.isAbove(quote.premium, onFirst[i]!.premium, "doubled vols price a larger premium")
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  )
})
