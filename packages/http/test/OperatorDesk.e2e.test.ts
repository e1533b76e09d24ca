/**
 * The operator API's desk over real sockets, and the CLI acting through it.
 *
 * In one process (the partner and operator listeners on ephemeral ports, one embedded Postgres):
 * hedge policies set and read, manual hedge orders (placed by a hedging pass as the workers run it)
 * filled and rejected by a trader token, with an `Idempotency-Key` replay, 404 for an unknown
 * order, 409 for one no longer open, 422 for a bad fill or policy; a trader may fill but not set a
 * limit or a policy (403); risk scenarios stored from their document and refused item by item; a
 * quote explained; the simulated venue armed. Every write leaves its audit record, naming the
 * token's operator.
 *
 * As processes: the same sequence of desk commands (limits, hedge policy, scenarios, market data,
 * the simulated venue) run by the CLI on a database, and by the CLI in API mode against a service
 * on another, print the same thing once ids and instants are blanked; the API mode's records name
 * its token's operator, and the simulated venue it armed is the one in that service's database.
 */
import { assert, describe, layer } from "@effect/vitest"
import { EmbeddedStore, SimulatedHedgeVenue } from "@ratelock/adapters-store"
import { AuditRepo, HedgeOrderRepo, Money, OperatorTokens, type Partner } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, it as vitest } from "vitest"
import { apiMode, normalized } from "./support/apiMode.ts"
import { manualHedgingPass as hedgingPass } from "./support/hedge/manualPass.ts"
import { assertInvalid, quoteBody, request } from "./support/http.ts"
import * as Operator from "./support/operator.ts"
import { type CliResult, cli, cliWith, removeTempDirs, tempDataDir } from "./support/process.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

afterAll(removeTempDirs)

const examplePath = join(import.meta.dirname, "..", "..", "..", "docs", "market", "example-snapshot.json")

const both = Operator.layer.pipe(
  // the simulated venue's books in memory: what the arm route arms in this process
  Layer.provide(SimulatedHedgeVenue.layerMemory({ spreadBps: Money.unsafe("5") })),
  Layer.provideMerge(serverLayer())
)

/** A token of `role`, made as `ratelock operator token create` makes it. */
const tokenOf = (name: string, role: "viewer" | "trader" | "risk" | "admin") =>
  Effect.map(OperatorTokens.create({ name, role }), (created) => created.token)

/** A call to the operator listener as the holder of `token`. */
const operator = (
  token: string,
  method: string,
  path: string,
  options: { readonly body?: unknown; readonly headers?: Record<string, string> } = {}
) =>
  Effect.flatMap(Operator.Operator, ({ url }) =>
    request(url, method, path, {
      headers: { ...Operator.bearer(token), ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body })
    })
  )

/** The order of `pair` waiting for a trader. */
const waitingOrder = (environment: Partner.Environment, pair: string) =>
  Effect.flatMap(HedgeOrderRepo.HedgeOrderRepo, (orders) =>
    Effect.map(orders.outstanding(environment, pair), (found) => found[0]!)
  )

/** The audit records of `actor`'s actions named `action`, oldest first. */
const recordsOf = (actor: string, action: string) =>
  Effect.flatMap(AuditRepo.AuditRepo, (repo) =>
    Effect.map(repo.list({ actor, action, limit: 100 }), (records) => [...records].reverse())
  )

layer(both, { excludeTestServices: true, timeout: "180 seconds" })("the desk through the operator API", (it) => {
  it.effect(
    "hedge policies: risk sets one (422 naming each field it breaks), a viewer reads them, a trader may not set",
    () =>
      Effect.gen(function* () {
        const risk = yield* tokenOf("rita", "risk")
        const viewer = yield* tokenOf("victor", "viewer")
        const trader = yield* tokenOf("tomas", "trader")
        const policy = {
          environment: "production",
          pair: "USD/BRL",
          target_ratio: "0.8",
          band: "50000",
          instrument: "forward",
          value_days: 30
        }
        const set = yield* operator(risk, "PUT", "/operator/v1/hedge/policies", { body: policy })
        assert.strictEqual(set.status, 200, set.text)
        assert.deepInclude(set.json, {
          environment: "production",
          pair: "USD/BRL",
          target_ratio: "0.8",
          band: "50000",
          instrument: "forward",
          value_days: 30
        })

        // every field it breaks, in core's words, and nothing stored
        const refused = yield* operator(risk, "PUT", "/operator/v1/hedge/policies", {
          body: { ...policy, target_ratio: "1.5", band: "0.001" }
        })
        assert.strictEqual(refused.status, 422, refused.text)
        assert.strictEqual(refused.json.error.code, "invalid_policy")
        assert.include(refused.json.error.message, "target_ratio: Expected a ratio from 0 to 1")
        assert.include(refused.json.error.message, "band: Expected at least 0.01")
        const notDecimal = yield* operator(risk, "PUT", "/operator/v1/hedge/policies", {
          body: { ...policy, band: "lots" }
        })
        assert.deepStrictEqual(
          [notDecimal.status, notDecimal.json.error],
          [422, { code: "invalid_policy", message: "band must be a decimal such as 50000 (got lots)" }]
        )
        const spotWithDays = yield* operator(risk, "PUT", "/operator/v1/hedge/policies", {
          body: { ...policy, instrument: "spot" }
        })
        assert.strictEqual(spotWithDays.status, 422)
        assert.include(spotWithDays.json.error.message, "spot takes no value days")

        const shown = yield* operator(viewer, "GET", "/operator/v1/hedge/policies?environment=production")
        assert.strictEqual(shown.status, 200, shown.text)
        const usdBrl = shown.json.items.find((p: { pair: string }) => p.pair === "USD/BRL")
        assert.deepInclude(usdBrl, { target_ratio: "0.8", position: "0", outstanding_order: null })
        assert.deepStrictEqual(
          (yield* operator(viewer, "GET", "/operator/v1/hedge/policies?environment=sandbox")).json.items.filter(
            (p: { pair: string }) => p.pair === "USD/BRL"
          ),
          []
        )

        // a trader fills orders; limits and policies are the risk desk's
        for (const [method, path, body] of [
          ["PUT", "/operator/v1/hedge/policies", policy],
          ["PUT", "/operator/v1/limits/production/USD_TO_BRL", { max_open_notional: "1" }],
          ["PUT", "/operator/v1/risk/scenarios", { name: "x" }]
        ] as const) {
          const forbidden = yield* operator(trader, method, path, { body })
          assert.strictEqual(forbidden.status, 403, `${method} ${path}`)
          assert.strictEqual(forbidden.json.error.required_role, "risk")
        }
        assert.strictEqual(
          (yield* operator(viewer, "PUT", "/operator/v1/hedge/policies", { body: policy })).status,
          403
        )

        // one record per call that reached the action: the change, core's refusals, and the trader's 403
        // (a value that is no decimal at all is refused before, as a malformed body is)
        const records = yield* recordsOf("rita", "hedge.policy.set")
        assert.deepStrictEqual(
          records.map((r) => [r.outcome, r.via, r.role, r.targetId]),
          [
            ["ok", "api", "risk", "production:USD/BRL"],
            ["refused", "api", "risk", "production:USD/BRL"],
            ["refused", "api", "risk", "production:USD/BRL"]
          ]
        )
        assert.deepInclude(records[0]!.after as object, { target_ratio: "0.8", band: "50000" })
        assert.deepStrictEqual(
          (yield* recordsOf("tomas", "hedge.policy.set")).map((r) => r.outcome),
          ["forbidden"]
        )
        assert.deepStrictEqual(
          (yield* recordsOf("tomas", "limits.set")).map((r) => r.outcome),
          ["forbidden"]
        )
      })
  )

  it.effect(
    "hedge orders: a trader fills (replayed under its Idempotency-Key) and rejects; 404, 409, 422 refusals",
    () =>
      Effect.gen(function* () {
        const risk = yield* tokenOf("rosa", "risk")
        const trader = yield* tokenOf("tina", "trader")
        const viewer = yield* tokenOf("vera", "viewer")
        const setPolicy = yield* operator(risk, "PUT", "/operator/v1/hedge/policies", {
          body: { environment: "sandbox", pair: "EUR/USD", band: "1000", instrument: "spot" }
        })
        assert.strictEqual(setPolicy.status, 200, setPolicy.text)

        // the book carries 180,000 EUR of delta: the pass sells 180,000, which waits for a trader
        assert.strictEqual(yield* hedgingPass("sandbox", "EUR/USD", "180000"), 1)
        const order = yield* waitingOrder("sandbox", "EUR/USD")
        const fill = `/operator/v1/hedge/orders/${order.id}/fill`

        // refusals: an unknown order (a uuid or not), a bad rate or amount, a viewer
        for (const id of ["00000000-0000-4000-8000-00000000dead", "not-an-id"]) {
          const unknown = yield* operator(trader, "POST", `/operator/v1/hedge/orders/${id}/fill`, {
            body: { rate: "1.17" }
          })
          assert.deepStrictEqual(
            [unknown.status, unknown.json.error],
            [404, { code: "order_not_found", message: `no hedge order ${id}` }]
          )
        }
        for (const [body, message] of [
          [{ rate: "a lot" }, "rate must be a decimal such as 5.4012 (got a lot)"],
          [{ rate: "0" }, "the rate must be above 0"],
          [{ rate: "1.17", amount: "180000.01" }, "the amount must be above 0 and at most the order's 180000.00 EUR"]
        ] as const) {
          const bad = yield* operator(trader, "POST", fill, { body })
          assert.deepStrictEqual([bad.status, bad.json.error], [422, { code: "invalid_fill", message }])
        }
        assert.strictEqual((yield* operator(viewer, "POST", fill, { body: { rate: "1.17" } })).status, 403)

        // a partial fill, under a key: the same key and body again is the same answer, replayed
        const headers = { "Idempotency-Key": `fill-${order.id}` }
        const filled = yield* operator(trader, "POST", fill, { body: { rate: "1.1702", amount: "100000" }, headers })
        assert.strictEqual(filled.status, 200, filled.text)
        assert.deepInclude(filled.json, { id: order.id, status: "filled", fill_rate: "1.1702", fill_amount: "100000" })
        const replayed = yield* operator(trader, "POST", fill, { body: { rate: "1.1702", amount: "100000" }, headers })
        assert.deepStrictEqual([replayed.status, replayed.json], [200, filled.json])
        assert.strictEqual(replayed.headers.get("idempotent-replayed"), "true")
        const reused = yield* operator(trader, "POST", fill, { body: { rate: "1.2" }, headers })
        assert.strictEqual(reused.status, 409, "the same key on another body")

        // no longer open: 409, whoever asks
        const again = yield* operator(trader, "POST", fill, { body: { rate: "1.17" } })
        assert.deepStrictEqual(
          [again.status, again.json.error],
          [409, { code: "order_not_open", message: `hedge order ${order.id} is already filled` }]
        )

        const policies = yield* operator(viewer, "GET", "/operator/v1/hedge/policies?environment=sandbox")
        assert.deepInclude(
          policies.json.items.find((p: { pair: string }) => p.pair === "EUR/USD"),
          {
            position: "-100000",
            outstanding_order: null
          }
        )

        // the rest is decided anew: rejected by the trader, then 409 too
        assert.strictEqual(yield* hedgingPass("sandbox", "EUR/USD", "180000"), 1)
        const rest = yield* waitingOrder("sandbox", "EUR/USD")
        const reject = `/operator/v1/hedge/orders/${rest.id}/reject`
        const noReason = yield* operator(trader, "POST", reject, { body: { reason: "  " } })
        assert.deepStrictEqual(
          [noReason.status, noReason.json.error],
          [422, { code: "invalid_fill", message: "a rejection needs its reason" }]
        )
        const rejected = yield* operator(trader, "POST", reject, { body: { reason: "no liquidity at this size" } })
        assert.strictEqual(rejected.status, 200, rejected.text)
        assert.deepInclude(rejected.json, {
          id: rest.id,
          status: "rejected",
          rejection_reason: "no liquidity at this size"
        })
        assert.strictEqual((yield* operator(trader, "POST", reject, { body: { reason: "again" } })).status, 409)

        const listed = yield* operator(viewer, "GET", "/operator/v1/hedge/orders?environment=sandbox")
        assert.deepStrictEqual(
          listed.json.items
            .filter((o: { pair: string }) => o.pair === "EUR/USD")
            .map((o: { id: string; status: string }) => [o.id, o.status]),
          [
            [rest.id, "rejected"],
            [order.id, "filled"]
          ]
        )

        // the replay wrote nothing: one fill recorded, beside each refusal the order's rules made
        const fills = yield* recordsOf("tina", "hedge.order.fill")
        assert.deepStrictEqual(
          fills.map((r) => [r.outcome, r.targetId, r.role]),
          [
            ["refused", "00000000-0000-4000-8000-00000000dead", "trader"],
            ["refused", "not-an-id", "trader"],
            ["refused", order.id, "trader"],
            ["refused", order.id, "trader"],
            ["ok", order.id, "trader"],
            ["refused", order.id, "trader"]
          ]
        )
        assert.deepInclude(fills[4]!.before as object, { status: "sent" })
        assert.deepInclude(fills[4]!.after as object, { status: "filled", fill_amount: "100000" })
        assert.deepStrictEqual(
          (yield* recordsOf("tina", "hedge.order.reject")).map((r) => r.outcome),
          ["refused", "ok", "refused"]
        )
      })
  )

  it.effect(
    "risk scenarios: the document the CLI reads, refused item by item (422 detail), listed with the defaults",
    () =>
      Effect.gen(function* () {
        const risk = yield* tokenOf("ruth", "risk")
        const viewer = yield* tokenOf("vince", "viewer")
        const before = yield* operator(viewer, "GET", "/operator/v1/risk/scenarios")
        assert.strictEqual(before.status, 200, before.text)
        assert.isAtLeast(before.json.items.length, 8)
        assert.deepInclude(
          before.json.items.find((s: { name: string }) => s.name === "vol_plus_5"),
          {
            source: "default",
            vol_shift: "0.05"
          }
        )

        const document = JSON.stringify([
          { name: "mxn_minus_20", description: "MXN sells off", spot_shocks: { "USD/MXN": "0.20" } },
          { name: "vol_plus_5", description: "vols up ten points instead", vol_shift: "0.10" }
        ])
        const stored = yield* operator(risk, "PUT", "/operator/v1/risk/scenarios", { body: document })
        assert.deepStrictEqual([stored.status, stored.json], [200, { stored: ["mxn_minus_20", "vol_plus_5"] }])
        const one = yield* operator(risk, "PUT", "/operator/v1/risk/scenarios", {
          body: { name: "ngn_plus_50", spot_shocks: { "USD/NGN": "0.5" } }
        })
        assert.deepStrictEqual(one.json, { stored: ["ngn_plus_50"] })

        const refused = yield* operator(risk, "PUT", "/operator/v1/risk/scenarios", {
          body: [{ name: "Bad Name", spot_shocks: { "BRL/USD": "0.1" }, vol_shift: "9" }]
        })
        assert.strictEqual(refused.status, 422, refused.text)
        assert.strictEqual(refused.json.error.code, "validation_error")
        const problems = refused.json.detail.map((d: { loc: ReadonlyArray<unknown>; type: string }) => [
          d.loc.join("."),
          d.type
        ])
        assert.deepInclude(problems, ["0.name", "string_pattern_mismatch"])
        assert.deepInclude(problems, ["0.spot_shocks.BRL/USD", "unknown_pair"])
        assert.deepInclude(problems, ["0.vol_shift", "vol_shift_out_of_range"])
        const notJson = yield* operator(risk, "PUT", "/operator/v1/risk/scenarios", { body: "{ not json" })
        assert.strictEqual(notJson.status, 422)
        assert.deepStrictEqual(
          notJson.json.detail.map((d: { type: string }) => d.type),
          ["json_invalid"]
        )

        const after = yield* operator(viewer, "GET", "/operator/v1/risk/scenarios")
        const byName = Object.fromEntries(after.json.items.map((s: { name: string }) => [s.name, s]))
        assert.strictEqual(after.json.items.length, before.json.items.length + 2, "one replaced, two added")
        assert.deepStrictEqual(byName.mxn_minus_20, {
          name: "mxn_minus_20",
          description: "MXN sells off",
          spot_shocks: { "USD/MXN": "0.20" },
          vol_shift: "0",
          source: "operator"
        })
        assert.deepInclude(byName.vol_plus_5, { source: "operator", vol_shift: "0.10" })

        const records = yield* recordsOf("ruth", "risk.scenarios.set")
        assert.deepStrictEqual(
          records.map((r) => [r.outcome, r.targetId]),
          [
            ["ok", "mxn_minus_20,vol_plus_5"],
            ["ok", "ngn_plus_50"],
            ["refused", null],
            ["refused", null]
          ]
        )
      })
  )

  it.effect("a quote explained: its snapshot and inputs (the spot a decimal string), reproduced; 404 for none", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const viewer = yield* tokenOf("val", "viewer")
      const body = yield* quoteBody()
      const quoted = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", { key: a.sandbox, body })
      assert.strictEqual(quoted.status, 201, quoted.text)

      const explained = yield* operator(viewer, "GET", `/operator/v1/quotes/${quoted.json.id}/explain`)
      assert.strictEqual(explained.status, 200, explained.text)
      assert.deepInclude(explained.json, {
        quote_id: quoted.json.id,
        premium_amount: quoted.json.premium_amount,
        repriced_premium_amount: quoted.json.premium_amount,
        reproduced: true,
        note: null
      })
      // the partner's market rate, exact, as it was sent
      assert.strictEqual(explained.json.inputs.spot, body.market_rate)
      assert.isNumber(explained.json.inputs.sigma)

      for (const id of ["00000000-0000-4000-8000-00000000dead", "nope"]) {
        const missing = yield* operator(viewer, "GET", `/operator/v1/quotes/${id}/explain`)
        assert.deepStrictEqual(
          [missing.status, missing.json.error],
          [404, { code: "quote_not_found", message: `quote ${id} not found` }]
        )
      }
    })
  )

  it.effect("the simulated venue: a trader arms its next outcome (recorded), a viewer may not", () =>
    Effect.gen(function* () {
      const trader = yield* tokenOf("theo", "trader")
      const viewer = yield* tokenOf("vic", "viewer")
      const path = "/operator/v1/hedge/simulated-venue/arm"
      const armed = yield* operator(trader, "POST", path, { body: { action: "reject" } })
      assert.deepStrictEqual([armed.status, armed.json], [200, { armed: "reject", hedging: "off" }])
      assert.strictEqual((yield* operator(viewer, "POST", path, { body: { action: "timeout" } })).status, 403)
      assertInvalid(yield* operator(trader, "POST", path, { body: { action: "explode" } }), ["body.action:enum"])
      const records = yield* recordsOf("theo", "hedge.simulated_venue.arm")
      assert.deepStrictEqual(
        records.map((r) => [r.outcome, r.targetKind, r.after]),
        [["ok", "hedge_venue", { armed: "reject" }]]
      )
    })
  )
})

/** What differs between two runs beyond ids and instants: the age of the snapshot, read at another second. */
const sameRun = (text: string) =>
  normalized(text)
    .replace(/\(\d[\w ]* ago\)/g, "(<age> ago)")
    .replace(/"age_seconds": \d+/g, '"age_seconds": <age>')

describe("the CLI in API mode", () => {
  vitest(
    "prints what the same desk commands print on the database; its records name the token's operator",
    {
      timeout: 600_000
    },
    async () => {
      const onDatabase = tempDataDir()
      const throughApi = tempDataDir()
      const mode = await apiMode(throughApi, { name: "rita", role: "risk" })
      const files = join(onDatabase, "..")
      const badSnapshot = join(files, "bad-snapshot.json")
      const snapshot = JSON.parse(readFileSync(examplePath, "utf8"))
      snapshot.rates.USD.points[0].rate = "7"
      snapshot.vols["USD/BRL"][1].atm = "0.001"
      writeFileSync(badSnapshot, JSON.stringify(snapshot))
      const scenarios = join(files, "scenarios.json")
      writeFileSync(
        scenarios,
        JSON.stringify([
          { name: "mxn_minus_20", spot_shocks: { "USD/MXN": "0.20" } },
          { name: "vol_plus_5", vol_shift: "0.1" }
        ])
      )
      const badScenarios = join(files, "bad-scenarios.json")
      writeFileSync(badScenarios, JSON.stringify({ name: "Bad Name", spot_shocks: { "USD/XXX": "lots" } }))

      const commands: ReadonlyArray<ReadonlyArray<string>> = [
        ["market", "import", examplePath],
        ["market", "import", examplePath, "--json"],
        ["market", "import", badSnapshot],
        ["market", "show"],
        ["market", "show", "--json"],
        ["limits", "set", "--environment", "production", "--corridor", "USD_TO_BRL", "--max-open-notional", "20000000"],
        ["limits", "set", "--environment", "production", "--corridor", "USD_TO_BRL", "--max-lock-notional", "lots"],
        ["limits", "show", "--environment", "production"],
        [
          "hedge",
          "policy",
          "set",
          "--environment",
          "production",
          "--pair",
          "USD/BRL",
          "--band",
          "50000",
          "--instrument",
          "spot"
        ],
        [
          "hedge",
          "policy",
          "set",
          "--environment",
          "production",
          "--pair",
          "USD/MXN",
          "--target-ratio",
          "1.5",
          "--band",
          "1",
          "--instrument",
          "forward"
        ],
        ["hedge", "policy", "show"],
        ["hedge", "policy", "show", "--json"],
        ["hedge", "orders", "--status", "pending"],
        ["hedge", "fill", "00000000-0000-4000-8000-00000000dead", "--rate", "5.4"],
        ["hedge", "simulate", "--reject-next"],
        ["risk", "scenario", "set", scenarios],
        ["risk", "scenario", "set", badScenarios],
        ["risk", "scenario", "list"],
        ["risk", "scenario", "list", "--json"],
        ["risk", "report", "--environment", "sandbox", "--fresh"],
        ["quote", "explain", "00000000-0000-4000-8000-00000000dead"]
      ]
      const outcome = (result: CliResult) => ({
        code: result.code,
        // a success prints on stdout, a refusal its message on stderr
        output: sameRun(result.code === 0 ? result.stdout : result.stderr)
      })
      try {
        for (const command of commands) {
          const local = outcome(await cli(onDatabase, ...command))
          const remote = outcome(await cliWith(throughApi, mode.env, ...command))
          assert.deepStrictEqual(remote, local, command.join(" "))
        }
      } finally {
        await mode.stop()
      }

      // the service stopped, its database read: what the token's operator did, and the venue it armed
      const read = Effect.gen(function* () {
        const records = yield* (yield* AuditRepo.AuditRepo).list({ limit: 100 })
        const sql = yield* SqlClient.SqlClient
        const armed = yield* sql<{
          action: string
          remaining: number
        }>`SELECT action, remaining FROM sim_hedge_venue_control`
        return { records: [...records].reverse(), armed }
      }).pipe(Effect.provide(EmbeddedStore.layer({ dataDir: throughApi })))
      const { records, armed } = await Effect.runPromise(read)
      const desk = records.filter((r) => r.action !== "operator.token.create")
      assert.deepStrictEqual(
        desk.map((r) => [r.action, r.outcome]),
        [
          ["market.snapshot.import", "ok"],
          ["market.snapshot.import", "ok"],
          ["market.snapshot.import", "refused"],
          ["limits.set", "ok"],
          ["hedge.policy.set", "ok"],
          ["hedge.policy.set", "refused"],
          ["hedge.order.fill", "refused"],
          ["hedge.simulated_venue.arm", "ok"],
          ["risk.scenarios.set", "ok"],
          ["risk.scenarios.set", "refused"]
        ]
      )
      for (const record of desk) {
        assert.deepStrictEqual(
          [record.via, record.actor, record.tokenId, record.role],
          ["api", "rita", mode.tokenId, "risk"]
        )
      }
      assert.deepStrictEqual(
        armed.map((row) => [row.action, Number(row.remaining)]),
        [["reject", 1]]
      )
    }
  )
})
