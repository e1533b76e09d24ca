/**
 * The per-key rate limit across API replicas: two API processes on one fresh PostgreSQL database,
 * one key sending well above its budget for a fixed time. Spread over both replicas, the key gets
 * its budget once (burst + rate × seconds, within 10 %), not twice; sent all to one replica, it
 * gets its whole rate there, not half. Skipped without `DATABASE_URL`.
 */
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { type Database, freshDatabase } from "./support/cluster/database.ts"
import { Cluster, cliJson } from "./support/processes.ts"

if (databaseUrl === undefined) console.warn("DATABASE_URL is not set: the shared rate limit test is skipped")

const rate = 20
const burst = 40
/** Well above the budget: a request every 5 ms, 200 a second. */
const intervalMs = 5

interface Key {
  readonly keyId: string
  readonly secret: string
}

const newKey = async (db: Database, name: string): Promise<Key> => {
  const created = await cliJson(db.url, "partner", "create", "--name", name)
  return { keyId: created.environments.sandbox.api_key_id, secret: created.environments.sandbox.api_key_secret }
}

/**
 * `partners/me` with `key` every `intervalMs` for `seconds`, to each base URL in turn; the
 * statuses of every request sent in that time.
 */
const drive = async (baseUrls: ReadonlyArray<string>, key: Key, seconds: number): Promise<ReadonlyArray<number>> => {
  const headers = {
    "X-Partner-Key-Id": key.keyId,
    "X-Partner-Key-Secret": key.secret,
    "X-Partner-Environment": "sandbox"
  }
  const sent: Array<Promise<number>> = []
  const started = Date.now()
  for (let i = 0; Date.now() - started < seconds * 1000; i++) {
    const url = `${baseUrls[i % baseUrls.length]}/api/v1/partners/me`
    sent.push(
      fetch(url, { headers }).then(async (response) => {
        await response.arrayBuffer()
        return response.status
      })
    )
    const due = started + (i + 1) * intervalMs
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())))
  }
  return Promise.all(sent)
}

/** How many of `statuses` passed the limit; every one is 200 or 429. */
const passed = (statuses: ReadonlyArray<number>) => {
  assert.deepStrictEqual(
    [...new Set(statuses)].filter((s) => s !== 200 && s !== 429),
    []
  )
  return statuses.filter((s) => s === 200).length
}

const within10Percent = (actual: number, expected: number, what: string) => {
  console.log(`shared rate limit: ${what}: ${actual} passed, ${expected} expected`)
  assert.isTrue(Math.abs(actual - expected) <= expected * 0.1, `${what}: ${actual} passed, ${expected} ± 10 % expected`)
}

describe.skipIf(databaseUrl === undefined)("the rate limit on two API replicas on one PostgreSQL", () => {
  let db: Database
  let cluster: Cluster
  let baseUrls: ReadonlyArray<string>

  beforeAll(async () => {
    db = await freshDatabase(databaseUrl!, "ratelock_rate")
    cluster = new Cluster(db.url, {
      RATELOCK_RATE_LIMIT_PER_SECOND: String(rate),
      RATELOCK_RATE_LIMIT_BURST: String(burst)
    })
    const started = await Promise.all([cluster.startApi("api-a"), cluster.startApi("api-b")])
    baseUrls = started.map((s) => s.baseUrl)
    // each replica's row says how many live replicas it counted at its last heartbeat
    const counted = async () =>
      (
        await db.query<{ readonly n: number }>(
          (sql) => sql`SELECT count(*)::int AS n FROM api_replicas WHERE replicas = 2 AND expires_at > now()`
        )
      )[0]?.n
    for (const deadline = Date.now() + 30_000; (await counted()) !== 2; ) {
      if (Date.now() > deadline) throw new Error("the replicas did not see each other within 30 s")
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }, 120_000)

  afterAll(async () => {
    await cluster?.stop()
    await db?.drop()
  })

  it("a key spread over both replicas gets its budget once, not twice", { timeout: 60_000 }, async () => {
    const seconds = 10
    const statuses = await drive(baseUrls, await newKey(db, "Spread Pay"), seconds)
    within10Percent(passed(statuses), burst + rate * seconds, `${statuses.length} requests over ${seconds} s`)
  })

  it("a key sent all to one replica gets its whole rate there, not half", { timeout: 60_000 }, async () => {
    const key = await newKey(db, "Sticky Pay")
    // two heartbeats to see where the key's traffic goes; its burst is spent meanwhile
    await drive([baseUrls[0]!], key, 3)
    const seconds = 10
    const statuses = await drive([baseUrls[0]!], key, seconds)
    within10Percent(passed(statuses), rate * seconds, `${statuses.length} requests over ${seconds} s`)
  })
})
