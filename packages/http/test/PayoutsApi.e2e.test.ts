/**
 * The payouts an on-call engineer reads, over the operator listener's real socket: a payout signed
 * and not yet confirmed is listed with why it waits, `show` gives its version and what the chain
 * asks, it leaves the list once settled, and an unknown contract is a 404. The same JSON as
 * `ratelock payouts list|show --json` (both print core's `PayoutDesk`).
 */
import { assert, layer } from "@effect/vitest"
import { Payouts } from "@ratelock/core"
import { Effect, Layer, Schema } from "effect"
import { Payouts as PayoutsBody } from "../src/api/OperatorApi.ts"
import { assertInvalid, request } from "./support/http.ts"
import { activate, createContract, exercise, settle } from "./support/lifecycle.ts"
import * as Operator from "./support/operator.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

const both = Operator.layer.pipe(Layer.provideMerge(serverLayer()))

const operator = (path: string) =>
  Effect.flatMap(Operator.Operator, ({ url, token }) => request(url, "GET", path, { headers: Operator.bearer(token) }))

layer(both, { excludeTestServices: true, timeout: "120 seconds" })("operator API: payouts", (it) => {
  it.effect("a payout in flight is listed and shown with its version; settled, it leaves the list", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const { contract } = yield* createContract(baseUrl, a.sandbox)
      yield* activate(contract)
      assert.strictEqual((yield* exercise(baseUrl, a.sandbox, contract.id)).status, 200)
      yield* Payouts.runDue().pipe(Effect.orDie) // signed, persisted, broadcast: not confirmed yet

      const listed = yield* operator("/operator/v1/payouts?environment=sandbox")
      assert.strictEqual(listed.status, 200)
      const items = Schema.decodeUnknownSync(PayoutsBody)(listed.json).items
      const mine = items.find((p) => p.contract_id === contract.id)
      assert.isDefined(mine)
      assert.strictEqual(mine!.status, "prepared")
      assert.strictEqual(mine!.replacements, 0)
      assert.isFalse(mine!.stuck)
      assert.isNotNull(mine!.transaction_hash)

      const shown = yield* operator(`/operator/v1/payouts/${contract.id}`)
      assert.strictEqual(shown.status, 200)
      const detail = shown.json as { versions: Array<{ transaction_hash: string; kind: string }>; chain_error: null }
      assert.deepStrictEqual(
        detail.versions.map((v) => [v.transaction_hash, v.kind]),
        [[mine!.transaction_hash, "transfer"]]
      )
      assert.isNull(detail.chain_error)

      // nothing is stuck, and failed lists none
      const stuck = yield* operator("/operator/v1/payouts?status=stuck")
      assert.deepStrictEqual((stuck.json as { items: Array<unknown> }).items, [])

      yield* settle
      const after = yield* operator("/operator/v1/payouts?environment=sandbox")
      const still = (after.json as { items: Array<{ contract_id: string }> }).items
      assert.isFalse(still.some((p) => p.contract_id === contract.id))
      const settled = yield* operator(`/operator/v1/payouts/${contract.id}`)
      assert.strictEqual((settled.json as { status: string }).status, "confirmed")
    })
  )

  it.effect("an unknown contract is a 404 payout_not_found; a bad filter or limit is a 422 naming it", () =>
    Effect.gen(function* () {
      const missing = yield* operator("/operator/v1/payouts/4f1c1a52-0000-4000-8000-000000000000")
      assert.strictEqual(missing.status, 404)
      assert.strictEqual((missing.json as { error: { code: string } }).error.code, "payout_not_found")
      for (const [query, field] of [
        ["status=late", "query.status:enum"],
        ["limit=5000", "query.limit:less_than_equal"],
        ["environment=moon", "query.environment:enum"]
      ] as const) {
        assertInvalid(yield* operator(`/operator/v1/payouts?${query}`), [field], query)
      }
    })
  )
})
