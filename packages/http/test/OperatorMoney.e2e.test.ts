/**
 * The operator API's money routes over real sockets, on the sandbox's simulated chains: unmatched
 * funds listed as `ratelock funds unmatched --json` prints them and refunded once, requested by the
 * token's operator; a payout's bump and cancel refused by reason (no payout, mined, not in flight);
 * a reconciliation now and an inflow recorded, the amount checked; the roles each route declares;
 * an `Idempotency-Key` answered once, a refusal included; each action in the audit log under the
 * token's name. Then the CLI in API mode against `pnpm start`: the same commands print what they
 * print on the database, and the audit log names the token's operator.
 */
import { EmbeddedStore } from "@ratelock/adapters-store"
import { assert, describe, layer } from "@effect/vitest"
import { AuditRepo, ContractRepo, MovementRepo, Payouts, PayoutDesk, UnmatchedFunds } from "@ratelock/core"
import { DateTime, Effect, Layer, Schema } from "effect"
import { afterAll, it as vitest } from "vitest"
import { Reconciled, RefundRecorded, UnmatchedFunds as UnmatchedFundsView } from "../src/api/OperatorMoney.ts"
import * as MoneyViews from "../src/internal/moneyViews.ts"
import * as Format from "../src/internal/operatorFormat.ts"
import { apiMode, normalized } from "./support/apiMode.ts"
import { assertInvalid, newKey } from "./support/http.ts"
import { activate, createContract, exercise, settle } from "./support/lifecycle.ts"
import * as Operator from "./support/operator.ts"
import { type CliResult, cli, cliWith, removeTempDirs, tempDataDir } from "./support/process.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

afterAll(removeTempDirs)

const both = Operator.layer.pipe(Layer.provideMerge(serverLayer()))

const errorOf = (reply: { readonly json: unknown }) =>
  (reply.json as { error: { code: string; message: string } }).error

/** A transaction hash nobody else uses. */
const freshHash = () =>
  `0x${Array.from({ length: 64 }, () => Math.floor(Math.random() * 16).toString(16)).join("")}` as const

/** The audit records of `action` (on `target`, by `actor`), newest first. */
const audited = (action: string, filter: { readonly target?: string; readonly actor?: string }) =>
  AuditRepo.AuditRepo.use((repo) => repo.list({ action, ...filter, limit: 10 })).pipe(Effect.orDie)

layer(both, { excludeTestServices: true, timeout: "120 seconds" })("operator API: money", (it) => {
  it.effect("unmatched funds: listed as the CLI prints them, refunded once, requested by the token's operator", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const { contract } = yield* createContract(baseUrl, a.sandbox)
      const now = yield* DateTime.now
      const [first, second] = [freshHash(), freshHash()]
      for (const [hash, seconds] of [
        [first, 1],
        [second, 2]
      ] as const) {
        yield* ContractRepo.ContractRepo.use((repo) =>
          repo.recordUnmatchedTransfer({
            contractId: contract.id,
            partnerId: a.id,
            environment: "sandbox",
            chain: contract.chain,
            transactionHash: hash,
            index: 0,
            blockNumber: 7,
            token: contract.settlement_currency,
            amount: "1.234567",
            unit: "token",
            reason: "not_awaiting_funds",
            contractStatus: "quote_created",
            observedAt: DateTime.add(now, { seconds })
          })
        ).pipe(Effect.orDie)
      }

      // a viewer reads them: the JSON `funds unmatched --json` prints, oldest first
      const viewer = yield* Operator.tokenOf("vera", "viewer")
      const listed = yield* Operator.call("GET", `/operator/v1/funds/unmatched?contract_id=${contract.id}`, {
        token: viewer
      })
      assert.strictEqual(listed.status, 200, listed.text)
      const local = MoneyViews.unmatchedJson(yield* UnmatchedFunds.list({ contractId: contract.id, limit: 100 }))
      assert.deepStrictEqual(listed.json, local)
      assert.deepStrictEqual(
        Schema.decodeUnknownSync(UnmatchedFundsView)(listed.json).items.map((t) => t.transaction_hash),
        [first, second]
      )
      assert.strictEqual(
        Format.unmatchedFunds(Schema.decodeUnknownSync(UnmatchedFundsView)(listed.json)),
        Format.unmatchedFunds(local)
      )
      assertInvalid(yield* Operator.call("GET", "/operator/v1/funds/unmatched?limit=0"), [
        "query.limit:greater_than_equal"
      ])
      const notAnId = yield* Operator.call("GET", "/operator/v1/funds/unmatched?contract_id=not-an-id")
      assert.deepStrictEqual([notAnId.status, notAnId.json], [200, { items: [] }])

      // refunds are an admin's: a viewer is refused and nothing is recorded
      const refundBody = { transfer_id: `${first}:0` }
      const forbidden = yield* Operator.call("POST", "/operator/v1/funds/refunds", { body: refundBody, token: viewer })
      assert.strictEqual(forbidden.status, 403)
      assert.strictEqual(errorOf(forbidden).code, "forbidden")

      // the first answer under a key is the answer: replayed, not refunded twice
      const key = newKey()
      const refunded = yield* Operator.call("POST", "/operator/v1/funds/refunds", { body: refundBody, key })
      assert.strictEqual(refunded.status, 201, refunded.text)
      const refund = Schema.decodeUnknownSync(RefundRecorded)(refunded.json)
      assert.deepInclude(refund, {
        key: `transfer:${contract.chain}:${first}:0`,
        contract_id: contract.id,
        amount: "1.234567",
        currency: contract.settlement_currency,
        destination: null
      })
      const replayed = yield* Operator.call("POST", "/operator/v1/funds/refunds", { body: refundBody, key })
      assert.strictEqual(replayed.status, 201)
      assert.strictEqual(replayed.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(replayed.text, refunded.text)

      // without the key it is a second refund of the same transfer: refused with core's message
      const again = yield* Operator.call("POST", "/operator/v1/funds/refunds", { body: refundBody })
      assert.strictEqual(again.status, 409)
      assert.deepStrictEqual(errorOf(again), {
        code: "already_refunded",
        message: `${first}:0 is already refunded (or being refunded): transfer:${contract.chain}:${first}:0`
      })

      // the movement is the operator's request, and the log has one record of it done, one refused
      const movements = yield* MovementRepo.MovementRepo.use((repo) => repo.list({ kinds: ["refund"], limit: 100 }))
      assert.strictEqual(movements.find((m) => m.id === refund.id)?.requestedBy, "tests")
      const records = yield* audited("funds.refund", { target: `${first}:0` })
      assert.deepStrictEqual(
        records.map((r) => [r.outcome, r.actor, r.via, r.role]),
        [
          ["refused", "tests", "api", "admin"],
          ["ok", "tests", "api", "admin"]
        ]
      )
      assert.deepInclude(records[1]!.after as object, { id: refund.id, amount: "1.234567" })
      // the viewer's attempt is recorded as theirs, refused by role (before any target was read)
      const refused = yield* audited("funds.refund", { actor: "vera" })
      assert.deepStrictEqual(
        refused.map((r) => [r.outcome, r.role, r.targetId]),
        [["forbidden", "viewer", null]]
      )

      // an unknown transfer is a 404, an address the chain refuses a 422
      const unknown = yield* Operator.call("POST", "/operator/v1/funds/refunds", { body: { transfer_id: "0xabc" } })
      assert.strictEqual(unknown.status, 404)
      assert.deepStrictEqual(errorOf(unknown), {
        code: "not_found",
        message: "no unmatched or funding transfer 0xabc"
      })
      const badAddress = yield* Operator.call("POST", "/operator/v1/funds/refunds", {
        body: { transfer_id: second, to: "not-an-address" }
      })
      assert.strictEqual(badAddress.status, 422, badAddress.text)
      assert.strictEqual(errorOf(badAddress).code, "invalid_address")
      // no transfer named: the request does not decode, a 422 naming the field
      const missing = yield* Operator.call("POST", "/operator/v1/funds/refunds", { body: { to: "0x00" } })
      assertInvalid(missing, ["body.transfer_id:missing"])
    })
  )

  it.effect("a payout's bump and cancel: 404 without a payout, 409 once mined or no longer in flight", () =>
    Effect.gen(function* () {
      const nobody = "4f1c1a52-0000-4000-8000-000000000000"
      const none = yield* Operator.call("POST", `/operator/v1/payouts/${nobody}/bump`)
      assert.strictEqual(none.status, 404, none.text)
      assert.deepStrictEqual(errorOf(none), { code: "not_found", message: `contract ${nobody} has no payout` })
      assert.strictEqual((yield* Operator.call("POST", "/operator/v1/payouts/not-an-id/cancel")).status, 404)

      const { baseUrl, a } = yield* TestServer
      const { contract } = yield* createContract(baseUrl, a.sandbox)
      yield* activate(contract)
      assert.strictEqual((yield* exercise(baseUrl, a.sandbox, contract.id)).status, 200)
      yield* Payouts.runDue().pipe(Effect.orDie) // signed and broadcast; the simulated chain mines it at once
      // the routes `payouts list|show` call through the API answer what they print on the database,
      // key for key in the same order (but the age, which may tick between the two)
      const text = (value: unknown) => JSON.stringify(value).replace(/"age_seconds":\d+/g, '"age_seconds":0')
      const shown = yield* Operator.call("GET", `/operator/v1/payouts/${contract.id}`)
      const detail = yield* PayoutDesk.show(contract.id).pipe(Effect.orDie)
      assert.strictEqual(detail.status, "prepared")
      assert.strictEqual(text(shown.json), text(detail))
      const listed = yield* Operator.call("GET", "/operator/v1/payouts?environment=sandbox")
      const items = yield* PayoutDesk.list({ environment: "sandbox", limit: 100 }).pipe(Effect.orDie)
      assert.strictEqual(text(listed.json), text({ items }))

      // a refusal is the key's answer too: the same 409 replayed
      const key = newKey()
      const mined = yield* Operator.call("POST", `/operator/v1/payouts/${contract.id}/cancel`, { key })
      assert.strictEqual(mined.status, 409, mined.text)
      assert.strictEqual(errorOf(mined).code, "mined")
      const replayed = yield* Operator.call("POST", `/operator/v1/payouts/${contract.id}/cancel`, { key })
      assert.strictEqual(replayed.status, 409)
      assert.strictEqual(replayed.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(replayed.text, mined.text)

      yield* settle
      const settled = yield* Operator.call("POST", `/operator/v1/payouts/${contract.id}/bump`)
      assert.strictEqual(settled.status, 409)
      assert.deepStrictEqual(errorOf(settled), {
        code: "not_in_flight",
        message: "the payout is confirmed: only a signed payout not yet mined can be replaced"
      })

      // a trader may not even try
      const trader = yield* Operator.tokenOf("theo", "trader")
      const forbidden = yield* Operator.call("POST", `/operator/v1/payouts/${contract.id}/bump`, { token: trader })
      assert.strictEqual(forbidden.status, 403)

      const records = [
        ...(yield* audited("payout.bump", { target: contract.id })),
        ...(yield* audited("payout.cancel", { target: contract.id })),
        ...(yield* audited("payout.bump", { actor: "theo" }))
      ]
      assert.deepStrictEqual(
        records.map((r) => [r.action, r.outcome, r.actor, r.reason?.split(":")[0]]),
        [
          ["payout.bump", "refused", "tests", "not_in_flight"],
          ["payout.cancel", "refused", "tests", "mined"],
          ["payout.bump", "forbidden", "theo", "forbidden"]
        ]
      )
    })
  )

  it.effect("reconciliation now (risk) and an inflow recorded (admin), its amount checked", () =>
    Effect.gen(function* () {
      const risk = yield* Operator.tokenOf("rita", "risk")
      const reconciled = yield* Operator.call("POST", "/operator/v1/treasury/reconcile", {
        body: { environment: "sandbox" },
        token: risk
      })
      assert.strictEqual(reconciled.status, 200, reconciled.text)
      const runs = Schema.decodeUnknownSync(Reconciled)(reconciled.json).reconciliation
      assert.isAtLeast(runs.length, 1)
      for (const run of runs) assert.deepInclude(run, { environment: "sandbox", error: null })
      const reconcileRecords = yield* audited("treasury.reconcile", { target: "sandbox" })
      assert.deepStrictEqual(
        reconcileRecords.map((r) => [r.outcome, r.actor, r.role]),
        [["ok", "rita", "risk"]]
      )

      const inflow = { environment: "sandbox", chain: "polygon", currency: "USDC", amount: "12.5", as: "topup" }
      const byRisk = yield* Operator.call("POST", "/operator/v1/treasury/inflows", { body: inflow, token: risk })
      assert.strictEqual(byRisk.status, 403)
      assert.include(errorOf(byRisk).message, "needs the admin role")

      const key = newKey()
      const booked = yield* Operator.call("POST", "/operator/v1/treasury/inflows", { body: inflow, key })
      assert.strictEqual(booked.status, 201, booked.text)
      const written = booked.json as { source: string; entries: ReadonlyArray<unknown> }
      assert.match(written.source, /^inflow:/)
      assert.deepStrictEqual(written.entries, [
        { account: "payout_wallet", currency: "USDC", amount: "12.5" },
        { account: "owner_funding", currency: "USDC", amount: "-12.5" }
      ])
      const replayed = yield* Operator.call("POST", "/operator/v1/treasury/inflows", { body: inflow, key })
      assert.strictEqual(replayed.text, booked.text)
      assert.strictEqual(replayed.headers.get("idempotent-replayed"), "true")
      // the key on another body is no replay
      const reused = yield* Operator.call("POST", "/operator/v1/treasury/inflows", {
        body: { ...inflow, amount: "13" },
        key
      })
      assert.strictEqual(reused.status, 409)
      assert.strictEqual(errorOf(reused).code, "idempotency_key_reused")

      for (const amount of ["0", "-1", "1e3", "abc"]) {
        const refused = yield* Operator.call("POST", "/operator/v1/treasury/inflows", { body: { ...inflow, amount } })
        assert.strictEqual(refused.status, 422, amount)
        assert.deepStrictEqual(errorOf(refused), {
          code: "invalid_amount",
          message: `amount must be a positive decimal, got ${amount}`
        })
      }
      // booked once (the replay and the refused amounts wrote nothing); the risk token's try recorded
      const inflowRecords = yield* audited("treasury.inflow.record", { target: "sandbox:polygon" })
      assert.deepStrictEqual(
        inflowRecords.map((r) => [r.outcome, r.actor]),
        [["ok", "tests"]]
      )
      const byRita = yield* audited("treasury.inflow.record", { actor: "rita" })
      assert.deepStrictEqual(
        byRita.map((r) => r.outcome),
        ["forbidden"]
      )
    })
  )
})

const nobody = "4f1c1a52-0000-4000-8000-000000000000"

/** `treasury record-inflow` of 12.5 USDC into the sandbox's polygon hot wallet. */
const inflow = [
  "treasury",
  "record-inflow",
  "--environment",
  "sandbox",
  "--chain",
  "polygon",
  "--currency",
  "USDC",
  "--amount",
  "12.5",
  "--as",
  "topup"
]

/**
 * The commands compared, in steps: each step after the one before, its commands in any order (at
 * once through the API; one after another on the database, which takes one process at a time).
 */
const steps: ReadonlyArray<ReadonlyArray<ReadonlyArray<string>>> = [
  [["treasury", "reconcile", "--environment", "sandbox"]],
  [[...inflow, "--json"]],
  [
    ["treasury", "show", "--environment", "sandbox", "--json"],
    ["funds", "unmatched"],
    ["payouts", "list", "--json"],
    ["payouts", "bump", nobody],
    ["funds", "refund", "0xabc"]
  ]
]
const commands = steps.flat()

const printed = (result: CliResult) => ({
  code: result.code,
  stdout: normalized(result.stdout),
  stderr: normalized(result.stderr)
})

describe("the CLI in API mode", () => {
  vitest(
    "the money commands print what they print on the database, and the log names the token's operator",
    { timeout: 240_000 },
    async () => {
      const onDatabase = tempDataDir()
      const throughApi = tempDataDir()
      const onTheDatabase = async () => {
        const results: Array<ReturnType<typeof printed>> = []
        for (const args of commands) results.push(printed(await cli(onDatabase, ...args)))
        return results
      }
      // the service's workers would reconcile on their own, after the inflow: off, for outputs that compare
      const api = apiMode(throughApi, { name: "alice", role: "admin", env: { RATELOCK_WORKERS: "false" } })
      const throughTheApi = async () => {
        const { env } = await api
        const results: Array<ReturnType<typeof printed>> = []
        for (const step of steps) {
          const printedAll = await Promise.all(step.map((args) => cliWith(throughApi, env, ...args)))
          results.push(...printedAll.map(printed))
        }
        return results
      }
      try {
        // the two modes side by side, each on its own data directory
        const [local, remote] = await Promise.all([onTheDatabase(), throughTheApi()])
        for (const [i, args] of commands.entries()) {
          assert.deepStrictEqual(remote[i], local[i], args.join(" "))
        }
        assert.deepStrictEqual(
          local.map((r) => r.code),
          [0, 0, 0, 0, 0, 1, 1]
        )
        assert.include(local[5]!.stderr, "contract <uuid> has no payout")
        assert.include(local[6]!.stderr, "no unmatched or funding transfer 0xabc")
      } finally {
        await (await api).stop()
      }

      // what each mode recorded: the CLI's actor on the database, the token's operator through the API
      const records = (dataDir: string) =>
        Effect.runPromise(
          AuditRepo.AuditRepo.use((repo) => repo.list({ limit: 100 })).pipe(
            Effect.provide(EmbeddedStore.layer({ dataDir }))
          )
        )
      const summary = (list: ReadonlyArray<AuditRepo.AuditRecord>) =>
        list
          .filter((r) => r.action !== "operator.token.create")
          .map((r) => [r.action, r.outcome, r.via])
          .sort(([a], [b]) => a!.localeCompare(b!))
      const expected = [
        ["funds.refund", "refused"],
        ["payout.bump", "refused"],
        ["treasury.inflow.record", "ok"],
        ["treasury.reconcile", "ok"]
      ]
      const { tokenId } = await api
      const viaApi = await records(throughApi)
      assert.deepStrictEqual(
        summary(viaApi),
        expected.map((e) => [...e, "api"])
      )
      assert.isTrue(viaApi.filter((r) => r.via === "api").every((r) => r.actor === "alice" && r.tokenId === tokenId))
      const viaCli = await records(onDatabase)
      assert.deepStrictEqual(
        summary(viaCli),
        expected.map((e) => [...e, "cli"])
      )
      assert.isTrue(viaCli.every((r) => r.actor.startsWith("cli:")))
    }
  )
})
