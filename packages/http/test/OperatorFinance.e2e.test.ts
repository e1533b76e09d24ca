/**
 * The operator API's finance routes over real sockets: the P&L and the closes read as core reports them (by a
 * viewer), a close now taken by a risk token under an `Idempotency-Key` (replayed, not closed twice), refused by role
 * below it and recorded; the P&L between two closes with a lock sold and one paid out between them, the same JSON
 * as `ratelock finance pnl --json` prints on the database; the days checked (422). Then the CLI in API mode against
 * `pnpm start`: the finance commands print what they print on the database, on the same closes, and a close without
 * market data in force is refused with core's reason in both modes.
 */
import { EmbeddedStore } from "@ratelock/adapters-store"
import { assert, describe, layer } from "@effect/vitest"
import { AuditRepo, DailyCloseRepo, DailyCloses, PeriodPnl, PnlReport, Requests } from "@ratelock/core"
import { DateTime, Effect, Layer, Schema } from "effect"
import { afterAll, it as vitest } from "vitest"
import { Close, Closes, Pnl } from "../src/api/OperatorFinance.ts"
import * as FinanceFormat from "../src/internal/financeFormat.ts"
import { apiMode, normalized } from "./support/apiMode.ts"
import { newKey } from "./support/http.ts"
import { activate, createContract, exercise, settle } from "./support/lifecycle.ts"
import * as Operator from "./support/operator.ts"
import { baseUrlOf, type CliResult, cli, cliJson, cliWith, removeTempDirs, tempDataDir } from "./support/process.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

afterAll(removeTempDirs)

const both = Operator.layer.pipe(Layer.provideMerge(serverLayer()))

/** A 422 `validation_error` whose detail names `loc`. */
const assertRefusedAt = (reply: { status: number; json: unknown; text: string }, loc: string) => {
  assert.strictEqual(reply.status, 422, reply.text)
  const body = reply.json as { error: { code: string }; detail: ReadonlyArray<{ loc: ReadonlyArray<string> }> }
  assert.strictEqual(body.error.code, "validation_error")
  assert.include(
    body.detail.map((d) => d.loc.join(".")),
    loc,
    reply.text
  )
}

/** Today and yesterday as UTC days: a span that holds every close of a test, even one run across midnight. */
const span = () => {
  const now = Date.now()
  return { from: new Date(now - 86_400_000).toISOString().slice(0, 10), to: new Date(now).toISOString().slice(0, 10) }
}

layer(both, { excludeTestServices: true, timeout: "120 seconds" })("operator API: finance", (it) => {
  it.effect("closes and the P&L between them: as core reports them, a close taken once per key, by role", () =>
    Effect.gen(function* () {
      const days = span()
      const query = `environment=sandbox&from=${days.from}&to=${days.to}`
      const viewer = yield* Operator.tokenOf("vera", "viewer")
      const trader = yield* Operator.tokenOf("theo", "trader")
      const risk = yield* Operator.tokenOf("rita", "risk")

      // nothing closed yet: no period, every line at zero, no close
      const none = yield* Operator.call("GET", `/operator/v1/finance/pnl?${query}`, { token: viewer })
      assert.strictEqual(none.status, 200, none.text)
      const empty = Schema.decodeUnknownSync(Pnl)(none.json)
      assert.deepInclude(empty, { environment: "sandbox", ...days, by: "day", currency: "USD", periods: 0, days: [] })
      for (const name of PeriodPnl.lineNames) assert.strictEqual(Number(empty.totals[name]), 0, name)
      const noCloses = yield* Operator.call("GET", `/operator/v1/finance/closes?${query}`, { token: viewer })
      assert.deepStrictEqual([noCloses.status, noCloses.json], [200, { items: [] }])

      // the days are checked as the route's schema says: a date each, from on or before to, a known view
      assertRefusedAt(
        yield* Operator.call("GET", "/operator/v1/finance/pnl?environment=sandbox&from=2026-13-01"),
        "query.from"
      )
      assertRefusedAt(
        yield* Operator.call("GET", "/operator/v1/finance/closes?environment=sandbox&to=yesterday"),
        "query.to"
      )
      assertRefusedAt(yield* Operator.call("GET", "/operator/v1/finance/pnl?environment=sandbox&by=week"), "query.by")
      assertRefusedAt(yield* Operator.call("GET", "/operator/v1/finance/pnl"), "query.environment")
      const reversed = yield* Operator.call(
        "GET",
        `/operator/v1/finance/pnl?environment=sandbox&from=${days.to}&to=${days.from}`
      )
      assert.strictEqual(reversed.status, 422, reversed.text)
      assert.include(reversed.text, "from must be on or before to")

      // a close is the risk role's: a viewer and a trader are refused, and recorded
      for (const token of [viewer, trader]) {
        const refused = yield* Operator.call("POST", "/operator/v1/finance/closes", {
          body: { environment: "sandbox" },
          token
        })
        assert.strictEqual(refused.status, 403, refused.text)
        assert.include(refused.text, "needs the risk role")
      }

      // the first close: no P&L before it; its key's answer is the answer, replayed, not a second close
      const key = newKey()
      const closed = yield* Operator.call("POST", "/operator/v1/finance/closes", {
        body: { environment: "sandbox" },
        key,
        token: risk
      })
      assert.strictEqual(closed.status, 201, closed.text)
      const first = Schema.decodeUnknownSync(Close)(closed.json)
      assert.deepInclude(first, { environment: "sandbox", scheduled_for: null, previous_close_id: null, pnl: null })
      const replayed = yield* Operator.call("POST", "/operator/v1/finance/closes", {
        body: { environment: "sandbox" },
        key,
        token: risk
      })
      assert.strictEqual(replayed.status, 201)
      assert.strictEqual(replayed.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(replayed.text, closed.text)

      // between the closes: a lock sold and funded (its premium), another paid out
      const { baseUrl, a } = yield* TestServer
      const sold = yield* createContract(baseUrl, a.sandbox, { customer_reference_id: "finance-1" })
      yield* activate(sold.contract)
      const paid = yield* createContract(baseUrl, a.sandbox, { customer_reference_id: "finance-2" })
      yield* activate(paid.contract)
      assert.strictEqual((yield* exercise(baseUrl, a.sandbox, paid.contract.id)).status, 200)
      yield* settle

      const again = yield* Operator.call("POST", "/operator/v1/finance/closes", { body: { environment: "sandbox" } })
      assert.strictEqual(again.status, 201, again.text)
      const second = Schema.decodeUnknownSync(Close)(again.json)
      assert.strictEqual(second.previous_close_id, first.id)
      assert.strictEqual(second.pnl?.from_close_id, first.id)

      // the closes and the P&L are core's, encoded once: what `ratelock finance … --json` prints on the database
      const closes = yield* Operator.call("GET", `/operator/v1/finance/closes?${query}`, { token: viewer })
      assert.deepStrictEqual(
        closes.json,
        FinanceFormat.closesJson(yield* DailyCloses.list({ environment: "sandbox", ...days }).pipe(Effect.orDie))
      )
      assert.deepStrictEqual(
        Schema.decodeUnknownSync(Closes)(closes.json).items.map((c) => c.id),
        [first.id, second.id]
      )
      for (const by of PnlReport.By.literals) {
        const reply = yield* Operator.call("GET", `/operator/v1/finance/pnl?${query}&by=${by}`, { token: viewer })
        assert.strictEqual(reply.status, 200, reply.text)
        const local = FinanceFormat.pnlJson(
          yield* DailyCloses.pnl({ environment: "sandbox", ...days, by }).pipe(Effect.orDie)
        )
        assert.deepStrictEqual(reply.json, local, by)
        assert.strictEqual(FinanceFormat.pnl(Schema.decodeUnknownSync(Pnl)(reply.json)), FinanceFormat.pnl(local), by)
      }
      const report = Schema.decodeUnknownSync(Pnl)(
        (yield* Operator.call("GET", `/operator/v1/finance/pnl?${query}`, { token: viewer })).json
      )
      assert.deepInclude(report, { periods: 1 })
      assert.strictEqual(report.days.length, 1)
      assert.isAbove(Number(report.totals.premiums), 0, "the premiums of the two locks")
      assert.isBelow(Number(report.totals.payouts), 0, "the payout")
      assert.deepStrictEqual(
        report.partners.map((p) => [p.partner_id, p.locks_sold]),
        [[a.id, 2]]
      )
      assert.include(
        report.pairs.map((p) => p.pair),
        "USD/BRL"
      )
      assert.strictEqual(report.totals.total, second.pnl?.usd.total)

      // in the log: the risk's close and the admin's, each once; the viewer's and the trader's tries, forbidden
      const records = yield* AuditRepo.AuditRepo.use((repo) => repo.list({ action: "finance.close", limit: 10 })).pipe(
        Effect.orDie
      )
      assert.deepStrictEqual(
        records.map((r) => [r.actor, r.role, r.outcome, r.targetId]),
        [
          ["tests", "admin", "ok", "sandbox"],
          ["rita", "risk", "ok", "sandbox"],
          ["theo", "trader", "forbidden", null],
          ["vera", "viewer", "forbidden", null]
        ]
      )
      assert.deepInclude(records[1]!.after as object, { id: first.id, snapshot_id: null, total_usd: null })
      assert.deepInclude(records[0]!.after as object, { id: second.id, total_usd: second.pnl?.usd.total })
    })
  )

  it.effect("a close waits for the one under way and follows it; one still under way after 10 s refuses it (409)", () =>
    Effect.gen(function* () {
      const repo = yield* DailyCloseRepo.DailyCloseRepo
      // another process's close under way: it holds the lease, and needs the store to end (and let it go)
      const hold = (seconds: number) =>
        Effect.map(DateTime.now, (now) => ({ owner: "another-worker", until: DateTime.add(now, { seconds }), now }))
      const held = yield* hold(60)
      assert.isTrue(yield* repo.claim(held, held.now).pipe(Effect.orDie))
      yield* Effect.forkDetach(
        Effect.sleep("2 seconds").pipe(Effect.andThen(Effect.flatMap(DateTime.now, (at) => repo.release(held, at))))
      )
      const started = Date.now()
      const waited = yield* Operator.call("POST", "/operator/v1/finance/closes", {
        body: { environment: "production" }
      })
      assert.strictEqual(waited.status, 201, waited.text)
      assert.isAtLeast(Date.now() - started, 1_900, "it waited for the close under way")

      // a close that does not end within 10 s (its lease runs for 15): refused, nothing written
      const stuck = yield* hold(15)
      assert.isTrue(yield* repo.claim(stuck, stuck.now).pipe(Effect.orDie))
      const before = (yield* repo.list({ environment: "production" }).pipe(Effect.orDie)).length
      const refused = yield* Operator.call("POST", "/operator/v1/finance/closes", {
        body: { environment: "production" }
      })
      assert.strictEqual(refused.status, 409, refused.text)
      assert.deepStrictEqual((refused.json as { error: unknown }).error, {
        code: "close_in_progress",
        message: "another close of the book is being taken and has not ended; try again in a minute"
      })
      assert.strictEqual((yield* repo.list({ environment: "production" }).pipe(Effect.orDie)).length, before)
      yield* Effect.flatMap(DateTime.now, (at) => repo.release(stuck, at)).pipe(Effect.orDie)
      const records = yield* AuditRepo.AuditRepo.use((r) =>
        r.list({ action: "finance.close", target: "production", limit: 10 })
      ).pipe(Effect.orDie)
      assert.deepStrictEqual(
        records.map((r) => [r.outcome, r.reason?.split(":")[0] ?? null]),
        [
          ["refused", "close_in_progress"],
          ["ok", null]
        ]
      )
    })
  )
})

/** A sandbox partner's call to the partner API. */
const partnerCall = async (
  baseUrl: string,
  key: { readonly api_key_id: string; readonly api_key_secret: string },
  method: "GET" | "POST",
  path: string,
  body?: unknown
  // biome-ignore lint/suspicious/noExplicitAny: API answers are inspected field by field
): Promise<{ status: number; json: any }> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      "X-Partner-Key-Id": key.api_key_id,
      "X-Partner-Key-Secret": key.api_key_secret,
      "X-Partner-Environment": "sandbox",
      "content-type": "application/json",
      ...(method === "POST" ? { "Idempotency-Key": crypto.randomUUID() } : {})
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, json: await response.json() }
}

const printed = (result: CliResult) => ({
  code: result.code,
  stdout: normalized(result.stdout),
  stderr: normalized(result.stderr)
})

/** The daily cut twelve hours from now: the workers close for the one before (at start), and not again here. */
const cutFarFromNow = () => {
  const at = new Date(Date.now() + 12 * 3_600_000)
  return `${String(at.getUTCHours()).padStart(2, "0")}:${String(at.getUTCMinutes()).padStart(2, "0")}`
}

describe("the CLI in API mode", () => {
  vitest(
    "the finance commands print what they print on the database, on the same closes",
    { timeout: 240_000 },
    async () => {
      const dataDir = tempDataDir()
      const days = span()
      const acme = await cliJson(dataDir, "partner", "create", "--name", "Acme Pay")
      const key = acme.environments.sandbox
      const api = await apiMode(dataDir, {
        name: "alice",
        role: "admin",
        env: { RATELOCK_SANDBOX_CONFIRM_MS: "0", RATELOCK_DAILY_CLOSE: cutFarFromNow() }
      })
      const finance = (...args: ReadonlyArray<string>) => ["finance", ...args]
      const reads = [
        finance("closes", "--environment", "sandbox", "--from", days.from, "--to", days.to),
        finance("closes", "--environment", "sandbox", "--from", days.from, "--to", days.to, "--json"),
        ...PnlReport.By.literals.flatMap((by) => [
          finance("pnl", "--environment", "sandbox", "--from", days.from, "--to", days.to, "--by", by),
          finance("pnl", "--environment", "sandbox", "--from", days.from, "--to", days.to, "--by", by, "--csv")
        ]),
        finance("pnl", "--environment", "sandbox", "--from", days.from, "--to", days.to, "--json"),
        // refused before anything is asked, in the same words
        finance("pnl", "--environment", "sandbox", "--from", "2026-13-01"),
        finance("closes", "--environment", "sandbox", "--from", days.to, "--to", days.from),
        // no snapshot imported: production has no market data in force, and nothing is written
        finance("close", "--environment", "production")
      ]
      let throughApi: ReadonlyArray<ReturnType<typeof printed>>
      try {
        const baseUrl = await baseUrlOf(api.service)
        const inApiMode = (...args: ReadonlyArray<string>) => cliWith(dataDir, api.env, ...args)
        const first = await inApiMode(...finance("close", "--environment", "sandbox", "--json"))
        assert.strictEqual(first.code, 0, `${first.stderr}${api.service.output()}`)

        // between the closes: two locks sold and funded, one of them paid out
        const sell = async (customer: string) => {
          const quote = await partnerCall(
            baseUrl,
            key,
            "POST",
            "/api/v1/fx/quotes",
            Requests.quoteAt(DateTime.nowUnsafe(), { customer_reference_id: customer })
          )
          assert.strictEqual(quote.json.status, "created", JSON.stringify(quote.json))
          const contract = await partnerCall(baseUrl, key, "POST", "/api/v1/fx/contracts", { quote_id: quote.json.id })
          assert.strictEqual(contract.status, 201, JSON.stringify(contract.json))
          const funded = await partnerCall(baseUrl, key, "POST", `/api/v1/sandbox/contracts/${contract.json.id}/fund`)
          assert.strictEqual(funded.status, 202, JSON.stringify(funded.json))
          return contract.json.id as string
        }
        const statusOf = async (customer: string) =>
          (await partnerCall(baseUrl, key, "GET", `/api/v1/fx/customers/${customer}/locks`)).json.items[0]?.status
        const reach = async (customer: string, status: string) => {
          const deadline = Date.now() + 60_000
          while ((await statusOf(customer)) !== status) {
            if (Date.now() > deadline) throw new Error(`${customer} never ${status}: ${await statusOf(customer)}`)
            await new Promise((resolve) => setTimeout(resolve, 200))
          }
        }
        const held = await sell("finance-held")
        const exercised = await sell("finance-paid")
        await reach("finance-held", "active")
        await reach("finance-paid", "active")
        const exercise = await partnerCall(baseUrl, key, "POST", "/api/v1/fx/webhooks/inbound", {
          event_type: "contract_exercised",
          fx_contract_id: exercised,
          executed_at: new Date().toISOString(),
          live_execution_rate: "5.10",
          payout_wallet_address: "0x1111111111111111111111111111111111111111",
          chain: "polygon"
        })
        assert.strictEqual(exercise.status, 200, JSON.stringify(exercise.json))
        await reach("finance-paid", "settled")
        assert.notStrictEqual(held, exercised)

        const second = JSON.parse((await inApiMode(...finance("close", "--environment", "sandbox", "--json"))).stdout)
        assert.isNotNull(second.pnl)
        assert.isAbove(Number(second.pnl.usd.premiums), 0)
        assert.isBelow(Number(second.pnl.usd.payouts), 0)
        const text = await inApiMode(...finance("close", "--environment", "sandbox"))
        assert.strictEqual(text.code, 0, `${text.stderr}${api.service.output()}`)
        assert.match(
          text.stdout.trim(),
          /^Closed sandbox at \S+: close_\S+\n {2}on the built-in illustrative snapshot of \S+\n {2}P&L since close_\S+: -?\d+(\.\d+)? USD$/
        )
        assert.include(text.stdout, `P&L since ${second.id}: `)

        throughApi = (await Promise.all(reads.map((args) => inApiMode(...args)))).map(printed)
      } finally {
        await api.stop()
      }

      // the same commands on the database, the service stopped: the same closes, the same output
      const raw: Array<CliResult> = []
      for (const args of reads) raw.push(await cli(dataDir, ...args))
      const onDatabase = raw.map(printed)
      for (const [i, args] of reads.entries()) assert.deepStrictEqual(throughApi[i], onDatabase[i], args.join(" "))

      assert.deepStrictEqual(
        onDatabase.map((r) => r.code),
        [...reads.slice(0, -3).map(() => 0), 1, 1, 1]
      )
      const [closesText, closesJson, dayTable, dayCsv, pairTable, pairCsv, partnerTable, partnerCsv, json] = raw
      const report = JSON.parse(json!.stdout)
      assert.isAtLeast(report.periods, 3, "the workers' close at start, then three of the CLI's")
      assert.strictEqual(JSON.parse(closesJson!.stdout).items.length, report.periods + 1)
      assert.include(closesText!.stdout, "first close")
      assert.match(dayTable!.stdout, /\nDATE +TOTAL +REALISED +UNREALISED +NEW_BUSINESS +THETA +ROLL +DELTA/)
      assert.include(dayTable!.stdout, "\nTotals\nLINE")
      assert.strictEqual(
        dayCsv!.stdout.split("\n")[0],
        ["date", "total", "realised", "unrealised", ...PeriodPnl.explainedLines, "unexplained", "cumulative"].join(",")
      )
      // every decimal of the CSV as the route wrote it
      assert.deepStrictEqual(dayCsv!.stdout.trim().split("\n")[1]!.split(",").slice(1, 4), [
        report.days[0].lines.total,
        report.days[0].lines.realised,
        report.days[0].lines.unrealised
      ])
      assert.include(pairTable!.stdout, "USD/BRL")
      assert.match(pairCsv!.stdout, /^pair,locks_sold,locks_settled,total,/)
      assert.include(partnerTable!.stdout, acme.partner_id)
      assert.strictEqual(partnerCsv!.stdout.split("\n")[1]!.split(",")[0], acme.partner_id)
      assert.include(onDatabase.at(-3)!.stderr, '--from is a UTC date such as 2026-12-01, not "2026-13-01"')
      assert.include(onDatabase.at(-2)!.stderr, `--from ${days.to} is after --to ${days.from}`)
      assert.include(
        onDatabase.at(-1)!.stderr,
        "no market data in force for production: no market data snapshot has been imported"
      )

      // what each mode recorded of the closes: alice's through the API, the CLI's user on the database
      const records = await Effect.runPromise(
        AuditRepo.AuditRepo.use((repo) => repo.list({ action: "finance.close", limit: 100 })).pipe(
          Effect.provide(EmbeddedStore.layer({ dataDir }))
        )
      )
      assert.deepStrictEqual(
        records.map((r) => [r.via, r.via === "api" ? r.actor : r.actor.split(":")[0], r.outcome]),
        [
          ["cli", "cli", "refused"],
          ["api", "alice", "refused"],
          ["api", "alice", "ok"],
          ["api", "alice", "ok"],
          ["api", "alice", "ok"]
        ]
      )
      assert.isTrue(records.filter((r) => r.via === "api").every((r) => r.tokenId === api.tokenId))
    }
  )
})
