/**
 * Hedging `off` and `manual` end to end on PostgreSQL, with an API process and a `ratelock worker`
 * process as deployed (the embedded store is locked by a running server, so the CLI runs beside them
 * on PostgreSQL). Skipped without `DATABASE_URL`.
 *
 * Off (the default): a snapshot and a USD/BRL policy set with the CLI, sandbox locks sold and funded
 * over HTTP until the book's delta leaves the band. The risk report (operator API and CLI) shows the
 * order the policy would place; the worker's hedging pass runs after that and places nothing.
 *
 * Manual: the processes started again with `RATELOCK_HEDGING=manual`. The worker places the order,
 * which waits `sent` in `hedge orders --status pending`; a trader fills part of it with
 * `hedge fill`: the report's position is the fill, its P&L the fill marked at the snapshot's forward
 * to the order's value date, the order is filled, and the rest is a new order on a later pass. That
 * one `hedge reject`ed, a later pass places a third order under a new id: the rejected one stays
 * rejected, never sent again. The worker's `/metrics` counts the three placed.
 */
import { HedgeMarks, HedgePolicy, MarketSnapshot, Money, type RiskDeskReport, RiskReport } from "@ratelock/core"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { freePort } from "@ratelock/test-support/Processes"
import { DateTime, Effect, Option, Schema } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { withCluster } from "./support/cluster/setup.ts"
import { newKey, quoteBody, type Reply, request } from "./support/http.ts"
import { cliJson } from "./support/processes.ts"
import { scrape, valueOf } from "./support/prometheus.ts"

const example = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../docs/market/example-snapshot.json"), "utf8")
)

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `test` until it answers something, or fails after `timeoutMs` with the last answer seen. */
const poll = async <A>(test: () => Promise<A | undefined>, what: () => string, timeoutMs = 60_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await test()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`)
    await sleep(250)
  }
}

const d = Money.unsafe
const neg = (x: Money.Decimal) => Money.subtract(Money.zero, x)
const abs = (x: Money.Decimal) => (Money.isNegative(x) ? neg(x) : x)
/** A figure of the wire (a decimal string; null where the report has none) equal to `expected`. */
const same = (actual: string | null | undefined, expected: Money.Decimal, what: string) => {
  assert.isString(actual, what)
  assert.isTrue(Money.equals(d(actual!), expected), `${what}: ${actual}, expected ${Money.format(expected)}`)
}

const band = "1000"
const policy = { targetRatio: d("1"), band: d(band), instrument: "spot", valueDays: null } as const
const sandbox = { environment: "sandbox", pair: "USD/BRL" }

interface OrderView {
  readonly id: string
  readonly environment: string
  readonly pair: string
  readonly side: "buy" | "sell"
  readonly amount: string
  readonly instrument: string
  readonly value_date: string
  readonly status: string
  readonly venue: string
  readonly delta: string
  readonly position: string
  readonly target: string
  readonly fill_rate: string | null
  readonly fill_amount: string | null
  readonly rejection_reason: string | null
  readonly created_at: string
  readonly updated_at: string
}

describe.skipIf(databaseUrl === undefined)("hedging off, then manual, with running processes", () => {
  it(
    "off: the report says what to place and nothing is placed; manual: a trader's fill and rejection",
    {
      timeout: 300_000
    },
    () =>
      withCluster(
        databaseUrl!,
        { prefix: "ratelock_manual_hedge", env: { RATELOCK_RISK_INTERVAL_SECONDS: "1" } },
        async ({ db, cluster, partner }) => {
          const document = { ...example, as_of: new Date().toISOString() }
          const snapshotFile = join(tmpdir(), `ratelock-manual-hedge-${newKey()}.json`)
          writeFileSync(snapshotFile, JSON.stringify(document))
          const imported = await cliJson(db.url, "market", "import", snapshotFile)
          const snapshot = Schema.decodeUnknownSync(MarketSnapshot.MarketSnapshot)(document)
          const spot = Option.getOrThrow(MarketSnapshot.spot(snapshot, "USD/BRL"))
          const set = await cliJson(
            db.url,
            "hedge",
            "policy",
            "set",
            "--environment",
            "sandbox",
            "--pair",
            "USD/BRL",
            "--target-ratio",
            "1",
            "--band",
            band,
            "--instrument",
            "spot"
          )
          assert.deepInclude(set, { ...sandbox, target_ratio: "1", band, instrument: "spot", value_days: null })
          const token = (
            await cliJson(db.url, "operator", "token", "create", "--name", "manual-hedge", "--role", "admin")
          ).token as string
          const operator = (port: number, path: string) =>
            run(request(`http://127.0.0.1:${port}`, "GET", path, { headers: { authorization: `Bearer ${token}` } }))
          // the report as the wire carries it (the schema's encoded side: decimals as strings)
          const usdBrl = (report: typeof RiskDeskReport.DeskReport.Encoded) =>
            report.pairs.find((p) => p.pair === "USD/BRL")!

          // ---- hedging off (RATELOCK_HEDGING unset: its default)
          const offApiPort = await freePort()
          const offWorkerPort = await freePort()
          const off = await cluster.startApi("api-off", { RATELOCK_OPERATOR_PORT: String(offApiPort) })
          const offWorker = await cluster.startWorker("worker-off", {
            env: { RATELOCK_OPERATOR_PORT: String(offWorkerPort) }
          })
          const key = { keyId: partner.keyId, secret: partner.secret, environment: "sandbox" }
          const post = (path: string, body?: unknown) =>
            run(
              request(off.baseUrl, "POST", path, {
                key,
                ...(body === undefined ? {} : { body }),
                headers: { "Idempotency-Key": newKey() }
              })
            )
          // 4 USD_TO_BRL locks of 50,000 USD, funded: the book is long USD, far beyond a 1,000 USD band
          const lock = async () => {
            const quote = await post(
              "/api/v1/fx/quotes",
              await run(quoteBody({ customer_reference_id: `cust-${newKey()}`, notional_amount: "50000" }))
            )
            assert.strictEqual(quote.json?.status, "created", quote.text)
            const contract = await post("/api/v1/fx/contracts", { quote_id: quote.json.id })
            assert.strictEqual(contract.status, 201, contract.text)
            const funded = await post(`/api/v1/sandbox/contracts/${contract.json.id}/fund`)
            assert.strictEqual(funded.status, 202, funded.text)
          }
          await Promise.all(Array.from({ length: 4 }, lock))

          let last: Reply | undefined
          const offReport = await poll(
            async () => {
              last = await operator(offApiPort, "/operator/v1/risk?environment=sandbox")
              const pair = last.json?.pairs === undefined ? undefined : usdBrl(last.json)
              return pair?.open_locks === 4 && pair.hedge.order_needed !== null ? last.json : undefined
            },
            () => `the USD/BRL book of 4 locks needing a hedge: ${last?.text.slice(0, 2_000)}`
          )
          assert.strictEqual(offReport.snapshot_id, imported.snapshot_id)
          const offPair = usdBrl(offReport)
          const delta = d(offPair.delta)
          // the precondition of what follows: half the delta, filled, still leaves it beyond the band
          assert.isTrue(Money.greaterThan(delta, d("4000")), `delta ${offPair.delta}`)
          const needed = Option.getOrThrow(
            HedgePolicy.decide({ delta, position: Money.zero, policy, now: DateTime.nowUnsafe() })
          )
          assert.deepStrictEqual(offPair.hedge.order_needed, { side: "sell", amount: Money.format(needed.amount) })
          // the whole delta, sold: the position it aims at is −delta
          same(offPair.hedge.order_needed?.amount, delta, "order needed")
          same(offPair.hedge.target, neg(delta), "target")
          same(offPair.hedge.residual_delta, delta, "residual")
          same(offPair.hedge.position, Money.zero, "position")
          assert.strictEqual(offPair.hedge.pending_order, null)
          assert.strictEqual(offPair.hedge.orders_today, 0)
          same(offPair.hedge.pnl, Money.zero, "pnl")
          // the CLI reads the same (its own latest revaluation: the delta moves a little with time)
          const offCli = usdBrl(await cliJson(db.url, "risk", "report", "--environment", "sandbox"))
          assert.deepStrictEqual(offCli.hedge.order_needed, {
            side: "sell",
            amount: Money.format(abs(d(offCli.delta)))
          })

          // the hedging pass ran after the book needed an order (its heartbeat: at most 5 s late), and placed none
          const needSince = offReport.computed_at as string
          await poll(
            async () => {
              const [row] = await db.query<{ readonly n: number }>(
                (sql) => sql`SELECT count(*)::int AS n FROM worker_heartbeats
                WHERE pass = 'hedging' AND ok AND last_pass_at > ${needSince}::timestamptz`
              )
              return row!.n > 0 ? true : undefined
            },
            () => `a hedging pass after ${needSince}`
          )
          assert.deepStrictEqual(await cliJson(db.url, "hedge", "orders"), { items: [] })
          const offMetrics = await scrape(`http://127.0.0.1:${offWorkerPort}`, token)
          assert.strictEqual(valueOf(offMetrics, "ratelock_hedge_orders_total"), 0)
          // nothing waits: the gauge is there, at 0
          assert.isDefined(
            offMetrics.ratelock_hedge_order_waiting_seconds?.data.find(
              (datum) => datum.labels.environment === "sandbox" && datum.labels.pair === "USD/BRL"
            )
          )
          assert.strictEqual(valueOf(offMetrics, "ratelock_hedge_order_waiting_seconds", sandbox), 0)
          await Promise.all([cluster.kill(off.api), cluster.kill(offWorker)])

          // ---- manual: the same book, the processes started again with RATELOCK_HEDGING=manual
          const apiPort = await freePort()
          const workerPort = await freePort()
          await cluster.startApi("api", { RATELOCK_HEDGING: "manual", RATELOCK_OPERATOR_PORT: String(apiPort) })
          await cluster.startWorker("worker", {
            env: { RATELOCK_HEDGING: "manual", RATELOCK_OPERATOR_PORT: String(workerPort) }
          })
          const pendingOrder = (except: ReadonlyArray<string>) =>
            poll(
              async () => {
                const pending: ReadonlyArray<OrderView> = (
                  await cliJson(db.url, "hedge", "orders", "--status", "pending")
                ).items
                assert.isAtMost(pending.length, 1, "one order at a time per pair")
                // an order is written `intended` before the venue takes it: wait until it has
                return pending.find((o) => !except.includes(o.id) && o.status !== "intended")
              },
              () => `a pending order other than ${except.join(", ") || "none"}, past intended`
            )

          const first = await pendingOrder([])
          // the API's /metrics says how long it has waited for the trader
          const apiMetrics = await scrape(`http://127.0.0.1:${apiPort}`, token)
          const waited = valueOf(apiMetrics, "ratelock_hedge_order_waiting_seconds", sandbox)
          assert.isAbove(waited, 0)
          assert.isAtMost(waited, (Date.now() - Date.parse(first.created_at)) / 1000 + 1)
          assert.deepInclude(first, { ...sandbox, side: "sell", instrument: "spot", status: "sent", venue: "manual" })
          assert.strictEqual(
            first.value_date,
            HedgePolicy.valueDate(policy, DateTime.makeUnsafe(first.created_at)),
            "two weekdays on"
          )
          same(first.position, Money.zero, "first order decided from")
          same(first.target, neg(d(first.delta)), "first order's target")
          same(first.amount, d(first.delta), "first order's amount")

          // the trader sells half of it, 5 centavos above the snapshot's spot
          const filledAmount = Money.roundDown(Money.divide(d(first.amount), d("2")), 2)
          const rate = Money.sum(spot, d("0.05"))
          const filled: OrderView = await cliJson(
            db.url,
            "hedge",
            "fill",
            first.id,
            "--rate",
            Money.format(rate),
            "--amount",
            Money.format(filledAmount)
          )
          assert.deepInclude(filled, { id: first.id, status: "filled" })
          same(filled.fill_rate!, rate, "fill rate")
          same(filled.fill_amount!, filledAmount, "fill amount")

          // what was not filled: a new order, decided from the fill
          const second = await pendingOrder([first.id])
          same(second.position, neg(filledAmount), "second order decided from")
          assert.strictEqual(second.side, "sell")
          same(second.amount, Money.subtract(d(second.delta), filledAmount), "second order's amount")
          const rejected: OrderView = await cliJson(db.url, "hedge", "reject", second.id, "--reason", "no liquidity")
          assert.deepInclude(rejected, { id: second.id, status: "rejected", rejection_reason: "no liquidity" })

          // a later pass decides anew, under a new id; the rejected order is never sent again
          const third = await pendingOrder([first.id, second.id])
          same(third.position, neg(filledAmount), "third order decided from (a rejection adds nothing)")
          assert.strictEqual(third.side, "sell")
          assert.isAtLeast(Date.parse(third.created_at), Date.parse(rejected.updated_at))

          const listed = await operator(apiPort, "/operator/v1/hedge/orders?environment=sandbox")
          assert.strictEqual(listed.status, 200, listed.text)
          const items: ReadonlyArray<OrderView> = listed.json.items
          assert.deepStrictEqual(
            items.map((o) => [o.id, o.status]),
            [
              [third.id, "sent"],
              [second.id, "rejected"],
              [first.id, "filled"]
            ]
          )
          assert.deepStrictEqual(items[1], rejected, "the rejected order, untouched since")
          assert.deepInclude(items[2], { fill_rate: filled.fill_rate, fill_amount: filled.fill_amount })

          // the report: the position is the fill, the P&L the fill marked at the forward to its value date
          const report = await operator(apiPort, "/operator/v1/risk?environment=sandbox")
          assert.strictEqual(report.status, 200, report.text)
          assert.strictEqual(report.json.snapshot_id, imported.snapshot_id)
          const hedge = usdBrl(report.json).hedge
          same(hedge.position, neg(filledAmount), "position")
          assert.strictEqual(hedge.pending_order, third.id)
          // all three created today (UTC), unless the test straddles midnight
          assert.strictEqual(hedge.orders_today, 3)
          const forward = Option.getOrThrow(HedgeMarks.forward(snapshot, "USD/BRL", first.value_date))
          const amount = Money.toModel(filledAmount)
          // sold: what the fill's rate is above the forward, on the amount filled, in BRL
          const pnl = amount * (Money.toModel(rate) - forward)
          same(hedge.pnl, RiskReport.figure(pnl), "pnl")
          // marked at spot instead, it would differ by more than a centavo
          assert.isAbove(Math.abs(amount * (forward - Money.toModel(spot))), 0.01)
          assert.closeTo(Number(hedge.pnl_usd), pnl / Money.toModel(spot), 0.006, "pnl in USD")
          assert.isAbove(Number(hedge.pnl), 0)

          // the CLI's report of the same revaluation's snapshot says the same of the hedge
          const cliHedge = usdBrl(await cliJson(db.url, "risk", "report", "--environment", "sandbox")).hedge
          for (const field of ["position", "pnl", "pnl_usd", "orders_today", "pending_order"] as const) {
            assert.deepStrictEqual(cliHedge[field], hedge[field], field)
          }

          // the worker placed the three; the trader's outcomes were recorded by the CLI, not by it
          const metrics = await scrape(`http://127.0.0.1:${workerPort}`, token)
          const labels = { ...sandbox, venue: "manual" }
          assert.strictEqual(valueOf(metrics, "ratelock_hedge_orders_total", { ...labels, outcome: "placed" }), 3)
        }
      )
  )
})
