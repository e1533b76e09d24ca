/**
 * Crash safety of `pnpm start` on its embedded database, as an operator restarting it at 3 a.m.
 * would meet it: one server process on a fresh data directory, a partner created with the CLI
 * whose sandbox webhook points at a receiver, and 30 lifecycles (quote → contract →
 * `funds_in_route` with the amount → active → exercise, half paid, half zero payouts) driven by a
 * partner that retries every request with the same `Idempotency-Key` until it gets an answer.
 * Meanwhile the server is killed at random moments (at least 10 times) and started again at once.
 *
 * Once quiet and stopped, its database is opened here: every contract settled exactly once, each
 * payout one accepted transaction on the simulated chain, each funding one transfer, every event
 * delivered (repeats only under one `event_id`), and the ledger summing to zero. Once with
 * SIGKILL, once with SIGTERM (graceful) restarts.
 */
import { Money, Requests } from "@ratelock/core"
import { DateTime } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import { checkLifecycles, openEmbedded } from "./support/crash/embeddedDatabase.ts"
import { type EmbeddedServer, embeddedServer } from "./support/crash/embeddedServer.ts"
import { type Lifecycle, PatientPartner } from "./support/crash/patientPartner.ts"
import { removeTempDirs } from "./support/process.ts"

const lifecycles = 30
const minimumKills = 10
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What the data directory holds once the server stopped, checked against the lifecycles driven. */
const checkStopped = async (server: EmbeddedServer, done: ReadonlyArray<Lifecycle>) => {
  const db = openEmbedded(server.dataDir)
  try {
    return await checkLifecycles(db, server.receiver, done)
  } finally {
    await db.close()
  }
}

const crashRun = async (signal: NodeJS.Signals) => {
  const server = await embeddedServer({ confirmMs: 300 })
  const partner = new PatientPartner(server.baseUrl, server.key)
  const started = Date.now()
  let driving = true
  let kills = 0
  try {
    // stops the server at a random moment (0.2 to 2.5 s after it was ready), until the lifecycles
    // are driven and it was stopped at least `minimumKills` times
    const killer = (async () => {
      while (driving || kills < minimumKills) {
        await sleep(200 + Math.random() * 2_300)
        await server.restart(signal)
        kills++
      }
    })()
    const done: Array<Lifecycle> = []
    let next = 0
    const driven = Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < lifecycles) {
          const n = next++
          done.push(await partner.lifecycle(n, n % 2 === 0))
        }
      })
    ).finally(() => {
      driving = false
    })
    await Promise.all([driven, killer])
    for (const { contractId } of done) await partner.waitDelivered(contractId)
    await server.stop()
    const figures = await checkStopped(server, done)
    console.log(
      `embedded crash safety (${signal}): ${done.length} lifecycles, ${kills} restarts, quiet after ` +
        `${Date.now() - started} ms; retries ${JSON.stringify(Object.fromEntries(partner.retries))}; ` +
        JSON.stringify(figures)
    )
    assert.isAtLeast(kills, minimumKills)
    assert.strictEqual(figures.contracts, lifecycles)
  } finally {
    driving = false
    await server.stop().catch(() => undefined)
  }
}

afterAll(removeTempDirs)

describe("crash safety on the embedded database (pnpm start)", () => {
  it("SIGKILL at random moments: nothing lost, nothing paid or delivered twice", { timeout: 400_000 }, () =>
    crashRun("SIGKILL")
  )

  it("SIGTERM at random moments: nothing lost, nothing paid or delivered twice", { timeout: 400_000 }, () =>
    crashRun("SIGTERM")
  )

  it("the fund helper never offers again what was sent before a crash", { timeout: 120_000 }, async () => {
    // a day to confirm: the transfers stay in flight across the restart
    const server = await embeddedServer({ confirmMs: 86_400_000 })
    const partner = new PatientPartner(server.baseUrl, server.key)
    try {
      const quote = await partner.request(
        "POST",
        "/api/v1/fx/quotes",
        Requests.quoteAt(DateTime.nowUnsafe(), { customer_reference_id: "helper-1" })
      )
      const contract = (await partner.request("POST", "/api/v1/fx/contracts", { quote_id: quote.json.id })).json
      const half = (Number(contract.total_amount) / 2).toFixed(2)
      const route = await partner.request(
        "POST",
        "/api/v1/fx/webhooks/inbound",
        { event_type: "funds_in_route", fx_contract_id: contract.id, amount: half },
        `route-${contract.id}`
      )
      assert.strictEqual(route.json.status, "processed")
      await server.restart("SIGKILL")

      const rest = await partner.request("POST", `/api/v1/sandbox/contracts/${contract.id}/fund`)
      assert.strictEqual(rest.status, 202)
      // exact: the rest and the half make the total (binary floats would miss by a few 1e-14)
      assert.strictEqual(
        Money.format(Money.sum(Money.unsafe(rest.json.amount), Money.unsafe(half))),
        Money.format(Money.unsafe(contract.total_amount))
      )
      await server.restart("SIGKILL")

      const again = await partner.request("POST", `/api/v1/sandbox/contracts/${contract.id}/fund`)
      assert.strictEqual(again.status, 400)
      assert.strictEqual(again.json.error.code, "funding_amount_invalid")
      assert.match(again.json.error.message, /nothing is due/)
    } finally {
      await server.stop()
    }
  })
})
