/**
 * The book end to end on PostgreSQL, with an API process and a worker process as deployed: a
 * snapshot and a hedge policy set with the CLI, a burst of sandbox locks funded, then the workers
 * revalue the book (`RATELOCK_RISK_INTERVAL_SECONDS=1`) and hedge it on the simulated venue. Once
 * they have run, every pair's residual delta is within its band, and so is the net exposure of its
 * BASE (the hedge position counted in it); the operator API's risk report is the CLI's;
 * production's book holds no sandbox lock; the orders route lists the fills the position is made
 * of; the worker's `/metrics` counts its hedge orders by outcome (the venue armed with `hedge
 * simulate --reject-next` before the worker starts, so the first order is rejected); the API's
 * carries the book's gauges, equal to the report's figures and the corridors' limit usage once the
 * worker is stopped (nothing revalues the book meanwhile). Skipped without `DATABASE_URL`.
 */
import { Money } from "@ratelock/core"
import { freePort } from "@ratelock/test-support/Processes"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { newKey, quoteBody, type Reply, request } from "./support/http.ts"
import { withCluster } from "./support/cluster/setup.ts"
import { cliJson } from "./support/processes.ts"
import { type PromMetrics, scrape, valueOf } from "./support/prometheus.ts"

const example = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../docs/market/example-snapshot.json"), "utf8")
)

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)

/** Polls `test` until it answers something, or fails after `timeoutMs` with the last answer seen. */
const poll = async <A>(test: () => Promise<A | undefined>, what: () => string, timeoutMs = 60_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await test()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

const band = 2_000

type Datum = { readonly labels: Record<string, string>; readonly value?: number }

/** The data of the gauge `name` whose labels include `labels`. */
const gaugeData = (metrics: PromMetrics, name: string, labels: Record<string, string>): ReadonlyArray<Datum> =>
  ((metrics[name]?.data ?? []) as ReadonlyArray<Datum>).filter((d) =>
    Object.entries(labels).every(([k, v]) => d.labels[k] === v)
  )

/** The value of the one datum of the gauge `name` with `labels`. */
const gauge = (metrics: PromMetrics, name: string, labels: Record<string, string>): number => {
  const data = gaugeData(metrics, name, labels)
  assert.strictEqual(data.length, 1, `${name} ${JSON.stringify(labels)}`)
  return data[0]!.value!
}

describe.skipIf(databaseUrl === undefined)("the book, revalued and hedged by the workers", () => {
  it("keeps every pair's residual delta within its band and reports it alike everywhere", { timeout: 170_000 }, () =>
    withCluster(
      databaseUrl!,
      { prefix: "ratelock_book", env: { RATELOCK_HEDGING: "simulated", RATELOCK_RISK_INTERVAL_SECONDS: "1" } },
      async ({ db, cluster, partner }) => {
        const snapshotFile = join(tmpdir(), `ratelock-book-${newKey()}.json`)
        writeFileSync(snapshotFile, JSON.stringify({ ...example, as_of: new Date().toISOString() }))
        const snapshot = await cliJson(db.url, "market", "import", snapshotFile)
        await cliJson(
          db.url,
          "hedge",
          "policy",
          "set",
          "--environment",
          "sandbox",
          "--pair",
          "USD/BRL",
          "--band",
          String(band),
          "--instrument",
          "spot"
        )
        // limits whose usage the gauges show: on USD_TO_BRL the net delta's is the fuller one
        const limits = (corridor: string, ...flags: ReadonlyArray<string>) =>
          cliJson(db.url, "limits", "set", "--environment", "sandbox", "--corridor", corridor, ...flags)
        await limits("USD_TO_BRL", "--max-open-notional", "7000000", "--max-net-delta", "1000000")
        await limits("BRL_TO_USD", "--max-open-notional", "1000000")
        const token = (await cliJson(db.url, "operator", "token", "create", "--name", "book-test", "--role", "admin"))
          .token as string
        // the simulated venue rejects the first order the worker sends
        // (the CLI runs without the cluster's RATELOCK_HEDGING: it arms the venue all the same)
        assert.strictEqual((await cliJson(db.url, "hedge", "simulate", "--reject-next")).armed, "reject")
        const operatorPort = await freePort()
        const workerPort = await freePort()
        const { baseUrl } = await cluster.startApi("api", { RATELOCK_OPERATOR_PORT: String(operatorPort) })
        const worker = await cluster.startWorker("worker", { env: { RATELOCK_OPERATOR_PORT: String(workerPort) } })
        const operator = (path: string) =>
          run(
            request(`http://127.0.0.1:${operatorPort}`, "GET", path, { headers: { authorization: `Bearer ${token}` } })
          )
        const key = { keyId: partner.keyId, secret: partner.secret, environment: "sandbox" }
        const post = (path: string, body?: unknown) =>
          run(
            request(baseUrl, "POST", path, {
              key,
              ...(body === undefined ? {} : { body }),
              headers: { "Idempotency-Key": newKey() }
            })
          )

        // a burst: 12 USD_TO_BRL locks of 50,000 USD and 4 BRL_TO_USD of 100,000 BRL, all funded
        const lock = async (body: Record<string, unknown>) => {
          const quote = await post(
            "/api/v1/fx/quotes",
            await run(quoteBody({ customer_reference_id: `cust-${newKey()}`, ...body }))
          )
          assert.strictEqual(quote.json?.status, "created", quote.text)
          const contract = await post("/api/v1/fx/contracts", { quote_id: quote.json.id })
          assert.strictEqual(contract.status, 201, contract.text)
          const funded = await post(`/api/v1/sandbox/contracts/${contract.json.id}/fund`)
          assert.strictEqual(funded.status, 202, funded.text)
          return contract.json.id as string
        }
        await Promise.all([
          ...Array.from({ length: 12 }, () => lock({ notional_amount: "50000" })),
          ...Array.from({ length: 4 }, () =>
            lock({
              direction: "BRL_TO_USD",
              notional_currency: "BRL",
              notional_amount: "100000",
              provider_rate: "0.1848",
              market_rate: "0.1848"
            })
          )
        ])

        let last: Reply | undefined
        const settled = await poll(
          async () => {
            last = await operator("/operator/v1/risk?environment=sandbox")
            const usdBrl = last.json?.pairs?.find((p: { pair: string }) => p.pair === "USD/BRL")
            if (usdBrl?.open_locks !== 16 || usdBrl.hedge.pending_order !== null) return undefined
            if (Math.abs(Number(usdBrl.hedge.residual_delta)) > band || Number(usdBrl.hedge.position) === 0)
              return undefined
            return last.json
          },
          () => `the USD/BRL hedge within ${band}: ${last?.text.slice(0, 2_000)}`
        )
        const usdBrl = settled.pairs.find((p: { pair: string }) => p.pair === "USD/BRL")
        assert.strictEqual(settled.snapshot_id, snapshot.snapshot_id)
        // short puts on USD: the book is long USD delta; the hedge sells USD
        assert.isAbove(Number(usdBrl.delta), 0)
        assert.isBelow(Number(usdBrl.hedge.position), 0)
        assert.strictEqual(usdBrl.hedge.order_needed, null)
        assert.deepStrictEqual(usdBrl.hedge.policy, {
          target_ratio: "1",
          band: String(band),
          instrument: "spot",
          value_days: null
        })
        assert.isAbove(settled.stress.length, 7)
        assert.strictEqual(settled.limits.length, 18 / 2)

        // the CLI reads the same stored revaluation (or a newer one of the same book)
        const cli = await cliJson(db.url, "risk", "report", "--environment", "sandbox")
        assert.strictEqual(cli.environment, "sandbox")
        assert.deepStrictEqual(
          cli.pairs.map((p: { pair: string; open_locks: number }) => [p.pair, p.open_locks]),
          settled.pairs.map((p: { pair: string; open_locks: number }) => [p.pair, p.open_locks])
        )

        // production's book holds none of the sandbox's locks
        const production = await operator("/operator/v1/risk?environment=production")
        assert.strictEqual(production.status, 200, production.text)
        assert.strictEqual(production.json.open_locks, 0)
        for (const p of production.json.pairs) assert.strictEqual(p.open_locks, 0, p.pair)

        // the position is the sum of the filled orders the orders route lists
        const orders = await operator("/operator/v1/hedge/orders?environment=sandbox")
        assert.strictEqual(orders.status, 200, orders.text)
        const fills = orders.json.items.filter((o: { status: string }) => o.status === "filled")
        assert.isAbove(fills.length, 0)
        const sum = fills.reduce(
          (total: number, o: { side: string; fill_amount: string }) =>
            total + (o.side === "buy" ? 1 : -1) * Number(o.fill_amount),
          0
        )
        assert.closeTo(sum, Number(usdBrl.hedge.position), 1e-6)

        // the first order was the rejected one; each later one filled
        const rejected = orders.json.items.filter((o: { status: string }) => o.status === "rejected")
        assert.strictEqual(rejected.length, 1)
        assert.strictEqual(rejected[0].id, orders.json.items.at(-1).id)

        const sandboxUsdBrl = { environment: "sandbox", pair: "USD/BRL" }

        // the worker counted each order it placed, and each outcome, as the orders route lists them (the
        // book is still, but its delta moves with time: read both until they agree)
        const outcomes = { ...sandboxUsdBrl, venue: "simulated" }
        let counted: Record<string, number> = {}
        let listed: Record<string, number> = {}
        await poll(
          async () => {
            const counts = await scrape(`http://127.0.0.1:${workerPort}`, token)
            const items: ReadonlyArray<{ status: string }> = (
              await operator("/operator/v1/hedge/orders?environment=sandbox&limit=1000")
            ).json.items
            counted = Object.fromEntries(
              ["placed", "filled", "rejected"].map((outcome) => [
                outcome,
                valueOf(counts, "ratelock_hedge_orders_total", { ...outcomes, outcome })
              ])
            )
            listed = {
              placed: items.length,
              filled: items.filter((o) => o.status === "filled").length,
              rejected: items.filter((o) => o.status === "rejected").length
            }
            // and none waiting for an outcome (a simulated order does for a moment)
            const ended = listed.placed === listed.filled! + listed.rejected!
            return ended && JSON.stringify(counted) === JSON.stringify(listed) ? counted : undefined
          },
          () => `the worker's counts ${JSON.stringify(counted)} to be the orders' ${JSON.stringify(listed)}`
        )
        assert.strictEqual(counted.rejected, 1)
        assert.isAtLeast(counted.filled!, 1)
        assert.strictEqual(counted.placed, counted.filled! + counted.rejected!)

        // the hedge position counts in the net exposure: USD's is the residual delta (hedged whole,
        // within the band of zero), and BRL's the countervalue of about as little
        const currencyOf = (report: typeof settled, name: string) =>
          report.currencies.find((c: { currency: string }) => c.currency === name)
        const usd = currencyOf(settled, "USD")
        assert.isTrue(
          Money.equals(Money.unsafe(usd.net_exposure), Money.unsafe(usdBrl.hedge.residual_delta)),
          `USD ${usd.net_exposure}, residual ${usdBrl.hedge.residual_delta}`
        )
        assert.strictEqual(usd.net_exposure_usd, usd.net_exposure)
        assert.isAtMost(Math.abs(Number(usd.net_exposure)), band)
        assert.isAtMost(Math.abs(Number(currencyOf(settled, "BRL").net_exposure)), band * Number(usdBrl.spot) + 1)

        // with the worker stopped nothing revalues the book: the gauges are the stored report's
        await cluster.kill(worker)
        const report = (await operator("/operator/v1/risk?environment=sandbox")).json
        const still = await scrape(`http://127.0.0.1:${operatorPort}`, token)
        const sandbox = { environment: "sandbox" }
        assert.isBelow(Number(report.mtm_usd), 0)
        assert.strictEqual(gauge(still, "ratelock_book_mtm_usd", sandbox), Number(report.mtm_usd))
        assert.strictEqual(gauge(still, "ratelock_book_mtm_usd", { environment: "production" }), 0)
        assert.strictEqual(
          gauge(still, "ratelock_book_worst_stress_usd", sandbox),
          Number(report.stress[0].mtm_change_usd)
        )
        const reported = report.pairs.find((p: { pair: string }) => p.pair === "USD/BRL")
        const pairLabels = { environment: "sandbox", pair: "USD/BRL" }
        assert.strictEqual(gauge(still, "ratelock_book_delta", pairLabels), Number(reported.delta))
        assert.strictEqual(
          gauge(still, "ratelock_hedge_residual_delta", pairLabels),
          Number(reported.hedge.residual_delta)
        )
        // limit usage: per corridor with a capacity limit, the fullest of its limits as the report shows them
        const usage = (corridor: string) =>
          gauge(still, "ratelock_corridor_limit_usage_ratio", { environment: "sandbox", corridor })
        const limitsOf = (corridor: string) => report.limits.find((l: { corridor: string }) => l.corridor === corridor)
        const ratios = (corridor: string) =>
          Object.fromEntries(limitsOf(corridor).usage.map((u: { limit: string; ratio: string }) => [u.limit, u.ratio]))
        // 12 × 50,000 USD held: 0.0858 of 7,000,000 (rounded up) and 0.6 of 1,000,000
        assert.deepStrictEqual(ratios("USD_TO_BRL"), { max_open_notional: "0.0858", max_net_delta: "0.6000" })
        assert.strictEqual(usage("USD_TO_BRL"), 0.6)
        // 4 × 100,000 BRL held of 1,000,000
        assert.deepStrictEqual(ratios("BRL_TO_USD"), { max_open_notional: "0.4000" })
        assert.strictEqual(usage("BRL_TO_USD"), 0.4)
        // corridors without a capacity limit have no usage gauge
        assert.sameMembers(
          gaugeData(still, "ratelock_corridor_limit_usage_ratio", {}).map((d) => d.labels.corridor),
          ["USD_TO_BRL", "BRL_TO_USD"]
        )
      }
    )
  )
})
