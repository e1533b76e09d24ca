/**
 * The operator API's route table, read from `OperatorApi` itself: every route declares the role it
 * needs (a route without one fails here), and every route × every role answers as declared over a
 * real socket: allowed (whatever the route then says) or 403 naming the role needed. Every route
 * that changes something writes exactly one audit record per call, naming the token's operator and
 * role (`forbidden` when refused); a read writes none. A route missing from `samples` fails too:
 * each new route is tried by every role.
 */
import { assert, describe, layer } from "@effect/vitest"
import { AuditRepo, Treasury, OperatorRole, OperatorTokens } from "@ratelock/core"
import { Context, Effect, Layer, Option } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import { OperatorApi } from "../src/api/OperatorApi.ts"
import { AuditedAction, declaredRole, requiredRole } from "../src/api/OperatorRoles.ts"
import { request } from "./support/http.ts"
import * as Operator from "./support/operator.ts"
import { layer as serverLayer } from "./support/server.ts"

const example = readFileSync(
  join(import.meta.dirname, "..", "..", "..", "docs", "market", "example-snapshot.json"),
  "utf8"
)

/** A contract, order, key, token or partner id nothing has: a change of it is refused (404), and recorded. */
const unknown = "4f1c1a52-0000-4000-8000-000000000000"

interface Sample {
  readonly path?: string
  readonly body?: unknown
  /** A body sent as it is (a document's text). */
  readonly text?: string
}

/**
 * A request each route decodes (so its role, then its program, decide the answer), by endpoint
 * name. Changes name what nobody has where they can, so the roles' calls change nothing twice.
 */
const samples: Readonly<Record<string, Sample>> = {
  status: {},
  market: {},
  importSnapshot: { text: example },
  risk: {},
  hedgeOrders: {},
  payouts: {},
  payout: { path: `/operator/v1/payouts/${unknown}` },
  deliveries: {},
  treasury: {},
  openapi: {},
  metrics: {},
  limits: {},
  setLimits: { path: "/operator/v1/limits/sandbox/USD_TO_BRL", body: { max_lock_notional: "500000" } },
  hedgePolicies: {},
  // a ratio above 1: refused (and recorded), so no role's call sets a policy
  setHedgePolicy: {
    body: { environment: "sandbox", pair: "USD/MXN", target_ratio: "2", band: "1000", instrument: "spot" }
  },
  fillHedgeOrder: { path: `/operator/v1/hedge/orders/${unknown}/fill`, body: { rate: "5.4" } },
  rejectHedgeOrder: { path: `/operator/v1/hedge/orders/${unknown}/reject`, body: { reason: "no liquidity" } },
  // no simulated venue in this process: refused (409), and recorded as such
  armSimulatedVenue: { body: { action: "timeout" } },
  scenarios: {},
  // a name no scenario may have: the document refused whole (422), and recorded
  setScenarios: { text: JSON.stringify({ name: "Matrix", vol_shift: "0.01" }) },
  quote: { path: `/operator/v1/quotes/${unknown}` },
  explainQuote: { path: `/operator/v1/quotes/${unknown}/explain` },
  partners: {},
  // a blank name: refused (and recorded), so no role's call makes a partner
  createPartner: { body: { name: " " } },
  setRefundAddress: {
    path: `/operator/v1/partners/${unknown}/refund-addresses/sandbox/polygon`,
    body: { address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" }
  },
  createKey: { path: `/operator/v1/partners/${unknown}/keys`, body: { environment: "sandbox" } },
  revokeKey: { path: `/operator/v1/keys/${unknown}/revoke` },
  setWebhook: { path: `/operator/v1/partners/${unknown}/webhooks/sandbox`, body: { url: "http://127.0.0.1:9000/h" } },
  tokens: {},
  // a blank name: refused (and recorded), so no role's call makes a token
  createToken: { body: { name: " ", role: "viewer" } },
  revokeToken: { path: `/operator/v1/tokens/${unknown}/revoke` },
  audit: {},
  unmatchedFunds: {},
  // a transfer and a payout nobody has: refused (404), and recorded
  refund: { body: { transfer_id: `0x${"ab".repeat(32)}` } },
  bumpPayout: { path: `/operator/v1/payouts/${unknown}/bump` },
  cancelPayout: { path: `/operator/v1/payouts/${unknown}/cancel` },
  // the books set against the sandbox's chains: nobody's money moves
  reconcile: { body: { environment: "sandbox" } },
  // no rule refuses a well-formed inflow: booked once, by the admin's call (1 USDC of this test's own store)
  recordInflow: { body: { environment: "sandbox", chain: "polygon", currency: "USDC", amount: "1", as: "topup" } },
  pnl: { path: "/operator/v1/finance/pnl?environment=sandbox" },
  closes: { path: "/operator/v1/finance/closes?environment=sandbox" },
  // a close records what the book stood at and moves nobody's money: the risk's and the admin's calls close twice
  close: { body: { environment: "sandbox" } }
}

interface Route {
  readonly group: string
  readonly name: string
  readonly method: string
  readonly path: string
  readonly endpoint: HttpApiEndpoint.Top
}

const routes: ReadonlyArray<Route> = (() => {
  const all: Array<Route> = []
  HttpApi.reflect(OperatorApi, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }: { group: HttpApiGroup.Top; endpoint: HttpApiEndpoint.Top }) => {
      all.push({
        group: group.identifier,
        name: endpoint.identifier,
        method: endpoint.method,
        path: endpoint.path,
        endpoint
      })
    }
  })
  return all
})()

const thresholds: Treasury.ThresholdsShape = {}

const both = Operator.layer.pipe(
  Layer.provide(Layer.succeed(Treasury.Thresholds, thresholds)),
  Layer.provideMerge(serverLayer())
)

describe("the operator route table", () => {
  layer(both, { excludeTestServices: true, timeout: "300 seconds" })((it) => {
    it.effect("every route declares its role, and has a sample request", () =>
      Effect.sync(() => {
        const undeclared = routes.filter((r) => Option.isNone(declaredRole(r.endpoint))).map((r) => r.name)
        assert.deepStrictEqual(undeclared, [], "routes without a role")
        const unsampled = routes.filter((r) => samples[r.name] === undefined).map((r) => r.name)
        assert.deepStrictEqual(unsampled, [], "routes without a sample request")
        const stale = Object.keys(samples).filter((name) => !routes.some((r) => r.name === name))
        assert.deepStrictEqual(stale, [], "samples of no route")
      })
    )

    it.effect("every route × every role: allowed or 403 as declared; a change recorded once per call", () =>
      Effect.gen(function* () {
        const { url, token: admin } = yield* Operator.Operator
        const audit = yield* AuditRepo.AuditRepo
        for (const role of OperatorRole.roles) {
          const token = yield* OperatorTokens.create({ name: `matrix-${role}`, role })
          const recorded = () => audit.list({ actor: token.name, limit: 10_000 })
          for (const route of routes) {
            const sample = samples[route.name]!
            const needed = requiredRole(route.endpoint)
            const action = Option.getOrUndefined(Context.getOption(route.endpoint.annotations, AuditedAction))
            const before = (yield* recorded()).length
            const path = sample.path ?? route.path
            const reply = yield* request(url, route.method, path, {
              headers: {
                ...Operator.bearer(token.token),
                ...(sample.body !== undefined || sample.text !== undefined
                  ? { "content-type": "application/json" }
                  : {})
              },
              ...(sample.text !== undefined
                ? { body: sample.text }
                : sample.body !== undefined
                  ? { body: JSON.stringify(sample.body) }
                  : {})
            })
            const label = `${role} on ${route.method} ${path} (needs ${needed})`
            const records = yield* recorded()
            if (OperatorRole.allows(role, needed)) {
              assert.notInclude([401, 403], reply.status, `${label}: ${JSON.stringify(reply.json)}`)
              assert.isBelow(reply.status, 500, `${label}: ${JSON.stringify(reply.json)}`)
            } else {
              assert.strictEqual(reply.status, 403, label)
              assert.strictEqual(reply.json.error.code, "forbidden", label)
              assert.strictEqual(reply.json.error.required_role, needed, label)
              assert.include(reply.json.error.message, needed, label)
            }
            if (action === undefined) {
              const expected = OperatorRole.allows(role, needed) ? 0 : 1
              assert.strictEqual(records.length - before, expected, `${label}: a read writes no record`)
              continue
            }
            assert.strictEqual(records.length - before, 1, `${label}: one record per call`)
            const record = records[0]!
            assert.strictEqual(record.action, action.action, label)
            assert.strictEqual(record.actor, token.name, label)
            assert.strictEqual(record.tokenId, token.token_id, label)
            assert.strictEqual(record.role, role, label)
            assert.strictEqual(record.via, "api", label)
            if (!OperatorRole.allows(role, needed)) assert.strictEqual(record.outcome, "forbidden", label)
            else assert.notStrictEqual(record.outcome, "forbidden", label)
          }
        }
        // and counted: limits.set was refused to viewer and trader, done by risk and admin
        const metrics = (yield* request(url, "GET", "/metrics", { headers: Operator.bearer(admin) })).text
        const count = (outcome: string) =>
          Number(
            new RegExp(
              `^ratelock_operator_actions_total\\{[^}]*action="limits.set"[^}]*outcome="${outcome}"[^}]*\\} (\\d+)`,
              "m"
            ).exec(metrics)?.[1] ?? 0
          )
        assert.isAtLeast(count("forbidden"), 2, metrics)
        assert.isAtLeast(count("ok"), 2)
      })
    )
  })
})
