/**
 * `pnpm ratelock <command>` as an operator runs it: a child process on a temporary embedded data
 * directory, one command after another on the same database.
 */
import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { EmbeddedStore } from "@ratelock/adapters-store"
import { HedgeOrderRepo, HotWalletRepo, IdGenerator, Ledger, Money, PeriodPnl, Settlement } from "@ratelock/core"
import { BigDecimal, DateTime, Effect, Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import { afterAll, assert, describe, it } from "vitest"
import * as DataDirLock from "../src/DataDirLock.ts"
import { manualHedgingPass } from "./support/hedge/manualPass.ts"
import { cli, cliJson, cliWith, removeTempDirs, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The pid of a process that has ended. */
const deadPid = () => {
  const ended = spawnSync(process.execPath, ["-e", "0"])
  return ended.pid
}

/**
 * One hedging pass as the workers run it with RATELOCK_HEDGING=manual, on the embedded database in `dir` (opened
 * here, closed before the next command), with the book's USD/BRL delta in `environment` given: the orders it moved,
 * and the ledger entries of every order.
 */
const hedgingPass = (dir: string, environment: "sandbox" | "production", delta: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const moved = yield* manualHedgingPass(environment, "USD/BRL", delta)
      const orders = yield* HedgeOrderRepo.HedgeOrderRepo
      const entries = (yield* Effect.forEach(yield* orders.list({ limit: 100 }), (o) =>
        orders.ledgerEntries(o.id)
      )).flat()
      return { moved, entries }
    }).pipe(
      Effect.provide(
        IdGenerator.IdGenerator.layer.pipe(
          Layer.provide(SecureRandom.layerWebCrypto),
          Layer.provideMerge(EmbeddedStore.layer({ dataDir: dir }))
        )
      )
    )
  )

/**
 * An SVG file's marks (Plot's `aria-label`s), after checking it is one well-formed `svg` element in the SVG
 * namespace: every tag closed in order, its text and attributes escaped.
 */
const svgMarks = (path: string): Array<string> => {
  const text = readFileSync(path, "utf8")
  const body = text.replace(/^<\?xml [^>]*\?>\n/, "").replace(/<style>[^<]*<\/style>/g, "")
  assert.match(body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="0 0 \d+ \d+"/)
  const open: Array<string> = []
  for (const [tag, close, name, rest] of body.matchAll(/<(\/?)([a-zA-Z]+)([^>]*)>/g)) {
    assert.notMatch(rest!.replace(/"[^"]*"/g, ""), /[<"&]/, `attributes quoted: ${tag}`)
    if (close === "/") assert.strictEqual(open.pop(), name, `closes in order: ${tag}`)
    else if (!rest!.endsWith("/")) open.push(name!)
  }
  assert.deepStrictEqual(open, [], "every element closed")
  assert.notMatch(body.replace(/<[^>]*>/g, ""), /[<>]|&(?!amp;|lt;|gt;|quot;)/, "text escaped")
  return [...body.matchAll(/aria-label="([^"]+)"/g)].map(([, label]) => label!)
}

describe("ratelock CLI", { timeout: 120_000 }, () => {
  const dataDir = tempDataDir()

  it("simulate lock and backtest: from files alone (no service, no database), as text, JSON and CSV; bad input refused", async () => {
    const dir = tempDataDir()
    const files = join(dir, "..")
    const snapshot = join(import.meta.dirname, "..", "..", "..", "docs", "market", "example-snapshot.json")
    const terms = [
      "--snapshot",
      snapshot,
      "--direction",
      "USD_TO_BRL",
      "--notional",
      "10000",
      "--notional-currency",
      "USD",
      "--contract-type",
      "option"
    ]
    const lockWith = (seed: string, ...args: ReadonlyArray<string>) =>
      cli(
        dir,
        "simulate",
        "lock",
        ...terms,
        "--tenor-days",
        "30",
        "--paths",
        "2000",
        "--seed",
        seed,
        "--now",
        "2026-12-01T12:00:00Z",
        ...args
      )
    const lock = (...args: ReadonlyArray<string>) => lockWith("7", ...args)

    // JSON: the engine's result, exact decimals, the same for the same seed; the stale example snapshot said so
    const json = await lock("--exercise", "end", "--json")
    assert.strictEqual(json.code, 0, json.stderr)
    const result = JSON.parse(json.stdout)
    assert.strictEqual(result.paths, 2000)
    assert.deepStrictEqual(result.exercise, { _tag: "end" })
    assert.match(result.premium, /^\d+\.\d+$/)
    assert.match(result.meanPayout, /^\d+(\.\d+)?$/)
    assert.isAbove(result.probabilityOfPayout, 0)
    assert.isBelow(result.probabilityOfPayout, 1)
    assert.match(result.marketWarning, /is \d+ s \(\d+ days\) old/)
    assert.include(result.drift, "risk-neutral")
    assert.strictEqual(
      (await lock("--exercise", "end", "--json")).stdout,
      json.stdout,
      "the same seed, the same figures"
    )
    const otherSeed = JSON.parse((await lockWith("8", "--exercise", "end", "--json")).stdout)
    assert.notStrictEqual(otherSeed.meanPayout, result.meanPayout)

    // text: the warning first, best said to be hindsight beside the stopping rule without foresight
    const chart = join(files, "payouts.svg")
    const text = await lock("--exercise", "best", "--svg", chart)
    assert.strictEqual(text.code, 0, text.stderr)
    assert.match(text.stdout, /^WARNING: the latest market data snapshot .* old/)
    assert.include(text.stdout, "hindsight")
    assert.match(text.stdout, /window engine \(optimal stopping, the premium's basis\): 0\.\d+/)
    assert.match(text.stdout, /a stopping rule without foresight \(at most the engine\): 0\.\d+/)
    assert.match(text.stdout, /Probability of payout: \d+\.\d\d %/)
    // --svg: the payout distribution, drawn by Plot: the histogram, the premium and mean as rules, the axes
    assert.include(text.stdout, `Chart written to ${chart}`)
    const marks = svgMarks(chart)
    assert.includeMembers(marks, ["rect", "rule", "text", "x-axis label", "y-axis label"])
    assert.isAbove((readFileSync(chart, "utf8").match(/<rect /g) ?? []).length, 5, "a histogram's bars")
    assert.include(readFileSync(chart, "utf8"), `premium ${result.premium}`)
    // a fresh present (just after the snapshot) has no warning; a forward shows its deposit's forfeiture
    const fresh = await cli(
      dir,
      "simulate",
      "lock",
      ...terms.slice(0, -1),
      "forward",
      "--window-start",
      "2026-03-02T20:00:00Z",
      "--window-end",
      "2026-04-01T20:00:00Z",
      "--now",
      "2026-03-02T20:05:00Z",
      "--exercise",
      "at:2026-03-20T00:00:00Z",
      "--paths",
      "1000"
    )
    assert.strictEqual(fresh.code, 0, fresh.stderr)
    assert.notInclude(fresh.stdout, "WARNING")
    assert.match(fresh.stdout, /Deposit forfeited: +\d+\.\d\d % of paths/)
    assert.match(fresh.stdout, /Payout above premium: +\d+\.\d\d % of paths/)
    // paid in EURC, a token not issued on every chain: the simulation's rail carries it
    const eurc = await lock("--settlement-currency", "EURC", "--exercise", "end")
    assert.strictEqual(eurc.code, 0, eurc.stderr)
    assert.match(eurc.stdout, /Premium: +\d+\.\d+ EURC/)

    // backtest on a hand-made series: every payout is the settlement's at the series' rate on its exercise date
    const series = join(files, "usdbrl.csv")
    const rates = ["5.40", "5.38", "5.35", "5.42", "5.45", "5.39", "5.36", "5.41", "5.44", "5.37", "5.40", "5.43"]
    writeFileSync(
      series,
      ["date,rate", ...rates.map((r, i) => `2026-01-${String(i + 1).padStart(2, "0")},${r}`)].join("\n")
    )
    const backtest = (...args: ReadonlyArray<string>) =>
      cli(dir, "simulate", "backtest", "--series", series, ...terms, "--tenor-days", "5", "--every-days", "3", ...args)
    const bt = await backtest("--exercise", "best", "--json")
    assert.strictEqual(bt.code, 0, bt.stderr)
    const report = JSON.parse(bt.stdout)
    assert.deepStrictEqual(
      report.locks.map((l: { start: string }) => l.start),
      ["2026-01-01", "2026-01-04", "2026-01-07"]
    )
    for (const l of report.locks) {
      const locked = Money.unsafe(l.lockedRate)
      const rate = Money.unsafe(l.exerciseRate)
      const lock = {
        direction: "USD_TO_BRL",
        notionalCurrency: "USD",
        notionalAmount: Money.unsafe("10000"),
        maxTransactionAmount: Money.unsafe("10000"),
        lockedRate: locked
      } as const
      const conversion = Settlement.conversionFor("USD_TO_BRL", "USD", rate)
      assert.notStrictEqual(conversion, "needs_cross_rate")
      if (conversion === "needs_cross_rate") continue
      const expected = Settlement.payout(lock, rate, conversion).amount
      assert.isTrue(BigDecimal.equals(Money.unsafe(l.payout), expected), `${l.start}: ${l.payout} is the settlement's`)
      assert.isTrue(BigDecimal.equals(rate, Money.unsafe(rates[Number(l.exercisedOn.slice(8)) - 1]!)))
    }
    assert.strictEqual(report.totals.locks, 3)
    const csv = (await backtest("--csv")).stdout.trim().split("\n")
    assert.strictEqual(
      csv[0],
      "start,window_end,spot,locked_rate,premium,deposit,exercised_on,exercise_rate,payout,forfeited,net"
    )
    assert.lengthOf(csv, 4)
    const timeline = join(files, "backtest.svg")
    const table = await backtest("--svg", timeline)
    assert.includeMembers(svgMarks(timeline), ["line", "dot", "rule", "x-axis label"])
    assert.strictEqual(
      (readFileSync(timeline, "utf8").match(/<circle /g) ?? []).length,
      6,
      "a premium and a payout per lock"
    )
    assert.match(table.stdout, /Locks: +3 \(\d paid\)/)
    assert.match(
      table.stdout,
      /^Settings: USD_TO_BRL option, 10000 USD, 5 days, cip_fair, a lock every 3 days, exercise end, 2026-01-01 to 2026-01-12$/m
    )
    assert.match(table.stdout, /Loss ratio: +\d+\.\d{4} \(payouts \/ premiums\)/)
    assert.match(table.stdout, /Worst lock for the service: 2026-01-0\d/)

    // bad input: the engine's message, a non-zero exit, nothing on stdout
    const refusals: Array<[string, ReadonlyArray<string>, RegExp]> = [
      ["gap", ["2026-01-01,5.4", "2026-01-09,5.4"], /Bad series: line 3: 8 days between 2026-01-01 and 2026-01-09/],
      ["unsorted", ["2026-01-02,5.4", "2026-01-01,5.4"], /Bad series: line 3: 2026-01-01 does not come after/],
      ["non_numeric", ["2026-01-01,5.4", "2026-01-02,abc"], /Bad series: line 3: the rate "abc" is not a positive/],
      ["tenor_past_end", ["2026-01-01,5.4", "2026-01-02,5.4"], /Bad series: a 5-day lock from the series' first date/],
      [
        "off_snapshot",
        Array.from({ length: 8 }, (_, i) => `2026-01-0${i + 1},0.185`),
        /Bad series: the series' last rate 0\.185 is more than 3 times away from the snapshot's USD_TO_BRL rate 5\.\d+ \(BRL per USD\)/
      ]
    ]
    for (const [name, lines, message] of refusals) {
      writeFileSync(series, ["date,rate", ...lines].join("\n"))
      const refused = await backtest()
      assert.strictEqual(refused.code, 1, name)
      assert.match(refused.stderr, message, name)
      assert.strictEqual(refused.stdout, "", name)
    }
    const badPaths = await cli(dir, "simulate", "lock", ...terms, "--tenor-days", "30", "--paths", "0")
    assert.strictEqual(badPaths.code, 1)
    assert.match(badPaths.stderr, /Refused \(bad_paths\): paths must be a positive integer, got 0/)
    const badExercise = await lock("--exercise", "whenever")
    assert.strictEqual(badExercise.code, 1)
    assert.match(badExercise.stderr, /--exercise is best, end, uniform or at:<ISO instant>, not "whenever"/)
    const wrongSide = await cli(
      dir,
      "simulate",
      "lock",
      ...terms.slice(0, 7),
      "EUR",
      ...terms.slice(8),
      "--tenor-days",
      "30"
    )
    assert.strictEqual(wrongSide.code, 1)
    assert.match(wrongSide.stderr, /notional_currency: notional_currency must be one of the currencies of USD_TO_BRL/)
    const notJson = await cli(dir, "simulate", "lock", ...terms.slice(2), "--snapshot", series, "--tenor-days", "30")
    assert.strictEqual(notJson.code, 1)
    assert.match(notJson.stderr, /The snapshot .* is refused:\n +\(document\): not JSON/)
  })

  it("migrate applies the schema once", async () => {
    const first = await cli(dataDir, "migrate")
    assert.strictEqual(first.code, 0, first.stderr)
    assert.match(
      first.stdout,
      /Applied 1_initial, 2_unmatched_transfers, 3_late_funds_watch, 4_conflict_guard, 5_funding_index_sequences, 6_checks_on_domains, 7_api_replicas, 8_sandbox_webhook_inbox, 9_market_snapshots, 10_operator_tokens, 11_event_trace_context, 12_corridor_limits, 13_hedging, 14_risk, 15_failed_deliveries, 16_revaluation_lease, 17_payout_nonces, 18_hot_wallet_readings, 19_partner_refund_addresses, 20_money_loop, 21_operator_audit, 22_daily_closes on the embedded database in /
    )
    const second = await cli(dataDir, "migrate")
    assert.match(second.stdout, /Schema up to date/)
  })

  it("partner create --json, list, key create, key revoke", async () => {
    const created = await cliJson(
      dataDir,
      "partner",
      "create",
      "--name",
      "Acme Pay",
      "--webhook-url-sandbox",
      "http://localhost:9000/hooks"
    )
    assert.match(created.partner_id, uuid)
    assert.strictEqual(created.name, "Acme Pay")
    const { sandbox, production } = created.environments
    for (const env of [sandbox, production]) {
      assert.match(env.api_key_id, uuid)
      assert.match(env.api_key_secret, /^rlk_[A-Za-z0-9_-]{43}$/)
    }
    assert.strictEqual(sandbox.webhook_url, "http://localhost:9000/hooks")
    assert.match(sandbox.webhook_secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.isNull(production.webhook_url)
    assert.isNull(production.webhook_secret)

    const listed = await cliJson(dataDir, "partner", "list")
    const acme = listed.find((p: { partner_id: string }) => p.partner_id === created.partner_id)
    assert.strictEqual(acme.name, "Acme Pay")
    assert.deepStrictEqual(acme.webhook_urls, { sandbox: "http://localhost:9000/hooks" })
    assert.sameMembers(
      acme.keys.map((k: { api_key_id: string }) => k.api_key_id),
      [sandbox.api_key_id, production.api_key_id]
    )
    // secrets are never listed
    assert.notInclude(JSON.stringify(listed), sandbox.api_key_secret)

    const key = await cliJson(dataDir, "key", "create", "--partner", created.partner_id, "--environment", "sandbox")
    assert.strictEqual(key.environment, "sandbox")
    assert.match(key.api_key_secret, /^rlk_/)

    const revoked = await cliJson(dataDir, "key", "revoke", "--key", sandbox.api_key_id)
    assert.strictEqual(revoked.already_revoked, false)
    assert.isString(revoked.revoked_at)
    const again = await cliJson(dataDir, "key", "revoke", "--key", sandbox.api_key_id)
    assert.strictEqual(again.already_revoked, true)
    assert.strictEqual(again.revoked_at, revoked.revoked_at)

    const after = await cliJson(dataDir, "partner", "list")
    const keys = after.find((p: { partner_id: string }) => p.partner_id === created.partner_id).keys
    assert.strictEqual(keys.length, 3)
    const byId = new Map(keys.map((k: { api_key_id: string }) => [k.api_key_id, k]))
    assert.strictEqual((byId.get(sandbox.api_key_id) as { revoked_at: string }).revoked_at, revoked.revoked_at)
    assert.isNull((byId.get(key.api_key_id) as { revoked_at: string | null }).revoked_at)

    const text = await cli(dataDir, "partner", "list")
    assert.include(text.stdout, `${created.partner_id}  Acme Pay`)
    assert.include(text.stdout, `revoked ${revoked.revoked_at}`)
  })

  it("partner refund-address set: checked by the chain's rule, stored as stored, replaced, listed; refusals write nothing", async () => {
    const { partner_id: partnerId } = await cliJson(dataDir, "partner", "create", "--name", "Refund Co")
    const set = (...args: ReadonlyArray<string>) => cli(dataDir, "partner", "refund-address", "set", ...args)
    const refundsOf = async () =>
      (await cliJson(dataDir, "partner", "list")).find((p: { partner_id: string }) => p.partner_id === partnerId)
        .refund_addresses
    assert.deepStrictEqual(await refundsOf(), {})

    // the sandbox's chain (simulated) checks the form a payout's destination must have; EVM is stored lowercase
    const first = await cliJson(
      dataDir,
      "partner",
      "refund-address",
      "set",
      partnerId,
      "--environment",
      "sandbox",
      "--chain",
      "polygon",
      "--address",
      "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
    )
    assert.deepInclude(first, {
      partner_id: partnerId,
      environment: "sandbox",
      chain: "polygon",
      address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
    })
    assert.isString(first.updated_at)
    const solana = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
    const text = await set(partnerId, "--environment", "sandbox", "--chain", "solana", "--address", solana)
    assert.strictEqual(text.code, 0, text.stderr)
    assert.include(text.stdout, `Refund address set for partner ${partnerId} (sandbox solana).`)
    assert.include(text.stdout, solana)
    // set again: replaced
    const again = "0xde709f2102306220921060314715629080e2fb77"
    assert.strictEqual(
      (await set(partnerId, "--environment", "sandbox", "--chain", "polygon", "--address", again)).code,
      0
    )
    const expected = { sandbox: { polygon: again, solana } }
    assert.deepStrictEqual(await refundsOf(), expected)
    const listed = await cli(dataDir, "partner", "list")
    assert.include(listed.stdout, `  refund  sandbox     polygon   ${again}`)
    assert.include(listed.stdout, `  refund  sandbox     solana    ${solana}`)

    const refusals: ReadonlyArray<
      readonly [args: ReadonlyArray<string>, message: string, extra?: Record<string, string>]
    > = [
      [
        ["00000000-0000-4000-8000-000000000000", "--environment", "sandbox", "--chain", "polygon", "--address", again],
        "no partner 00000000-0000-4000-8000-000000000000"
      ],
      [
        [partnerId, "--environment", "sandbox", "--chain", "polygon", "--address", "0xde709f21"],
        "not a polygon address (0x and 40 hex digits): 0xde709f21"
      ],
      [
        [partnerId, "--environment", "sandbox", "--chain", "solana", "--address", again],
        `not a solana address (base58 of 32 bytes): ${again}`
      ],
      // production runs on no chain here: nothing could check a production address, nor ever send to it
      [
        [partnerId, "--environment", "production", "--chain", "polygon", "--address", again],
        "polygon is not enabled for production (RATELOCK_PRODUCTION_CHAINS is empty): add polygon to RATELOCK_PRODUCTION_CHAINS"
      ],
      [
        [partnerId, "--environment", "sandbox", "--chain", "polygon", "--address", again],
        "the sandbox is off (RATELOCK_SANDBOX=false)",
        { RATELOCK_SANDBOX: "false" }
      ]
    ]
    for (const [args, message, extra] of refusals) {
      const refused = await cliWith(dataDir, extra ?? {}, "partner", "refund-address", "set", ...args)
      assert.strictEqual(refused.code, 1, args.join(" "))
      assert.include(refused.stderr, message)
    }
    const badChain = await set(partnerId, "--environment", "sandbox", "--chain", "bitcoin", "--address", again)
    assert.notStrictEqual(badChain.code, 0)
    assert.include(badChain.stderr, "bitcoin")
    assert.deepStrictEqual(await refundsOf(), expected)
  })

  it("operator token create (a role, shown once), list with role, expiry and last use, revoke once, and refusals", async () => {
    const created = await cliJson(dataDir, "operator", "token", "create", "--name", "  prometheus ", "--role", "viewer")
    assert.match(created.token_id, uuid)
    assert.deepInclude(created, { name: "prometheus", role: "viewer", expires_at: null })
    assert.match(created.token, /^rlop_[A-Za-z0-9_-]{43}$/)
    const text = await cli(
      dataDir,
      "operator",
      "token",
      "create",
      "--name",
      "alice",
      "--role",
      "trader",
      "--expires-in",
      "30d"
    )
    assert.strictEqual(text.code, 0, text.stderr)
    assert.include(text.stdout, "Operator token created: alice (trader). The token is shown only this once")
    assert.match(text.stdout, /role\s+trader\n/)
    const alice = /token\s+(rlop_\S+)/.exec(text.stdout)?.[1]
    assert.isDefined(alice)

    const listed = await cliJson(dataDir, "operator", "token", "list")
    assert.deepStrictEqual(Object.keys(listed), ["items"])
    const byName = (name: string) => listed.items.find((t: { name: string }) => t.name === name)
    assert.deepStrictEqual(Object.keys(byName("prometheus")), [
      "token_id",
      "name",
      "role",
      "created_at",
      "expires_at",
      "revoked_at",
      "last_used_at"
    ])
    assert.deepInclude(byName("prometheus"), { role: "viewer", expires_at: null, revoked_at: null, last_used_at: null })
    const aliceListed = byName("alice")
    assert.strictEqual(aliceListed.role, "trader")
    // 30 days from its creation, to the millisecond
    assert.strictEqual(Date.parse(aliceListed.expires_at) - Date.parse(aliceListed.created_at), 30 * 86_400_000)
    // the secrets are never listed (only their hashes are stored)
    const table = (await cli(dataDir, "operator", "token", "list")).stdout
    const everything = JSON.stringify(listed) + table
    assert.notInclude(everything, created.token)
    assert.notInclude(everything, alice!)
    assert.match(table, /^TOKEN_ID +NAME +ROLE +STATE +CREATED +EXPIRES +REVOKED +LAST USED$/m)
    assert.match(table, new RegExp(`^${created.token_id}  prometheus  viewer  live +\\S+ +never +- +never$`, "m"))
    assert.match(
      table,
      new RegExp(`^${aliceListed.token_id}  alice +trader  live +\\S+ +${aliceListed.expires_at}`, "m")
    )

    const revoked = await cliJson(dataDir, "operator", "token", "revoke", created.token_id)
    assert.deepInclude(revoked, { token_id: created.token_id, name: "prometheus", already_revoked: false })
    assert.isString(revoked.revoked_at)
    const again = await cliJson(dataDir, "operator", "token", "revoke", created.token_id)
    assert.deepInclude(again, { already_revoked: true, revoked_at: revoked.revoked_at })
    const after = await cli(dataDir, "operator", "token", "list")
    assert.match(
      after.stdout,
      new RegExp(`^${created.token_id}  prometheus  viewer  revoked .* ${revoked.revoked_at} `, "m")
    )

    const refusals: ReadonlyArray<[ReadonlyArray<string>, string]> = [
      [["revoke", "00000000-0000-4000-8000-000000000000"], "no operator token 00000000-0000-4000-8000-000000000000"],
      [["revoke", "not-a-token-id"], "no operator token not-a-token-id"],
      [["create", "--name", "   ", "--role", "admin"], "a token name is 1 to 100 characters"],
      [["create", "--name", "x".repeat(101), "--role", "admin"], "a token name is 1 to 100 characters"],
      [["create", "--name", "bell\u0007", "--role", "admin"], "a token name has no control characters"],
      [["create", "--name", "nobody"], "--role"],
      [["create", "--name", "nobody", "--role", "root"], "root"],
      [["create", "--name", "later", "--role", "viewer", "--expires-in", "forever"], "expires-in is a whole number"],
      [["create", "--name", "later", "--role", "viewer", "--expires-in", "4000d"], "at most 10 years"]
    ]
    for (const [args, message] of refusals) {
      const refused = await cli(dataDir, "operator", "token", ...args)
      assert.strictEqual(refused.code, 1, args.join(" "))
      assert.include(refused.stderr, message, args.join(" "))
    }
    // nothing refused was made
    assert.deepStrictEqual(
      (await cliJson(dataDir, "operator", "token", "list")).items.map((t: { name: string }) => t.name).sort(),
      ["alice", "prometheus"]
    )
  })

  it("audit list: what the CLI did on the database, newest first, as cli:<user>@<host>, filtered", async () => {
    const everything = await cliJson(dataDir, "audit", "list", "--limit", "1000")
    assert.deepStrictEqual(Object.keys(everything), ["items", "next_cursor"])
    assert.isNull(everything.next_cursor)
    const tokenActions = everything.items.filter((e: { action: string }) => e.action.startsWith("operator.token."))
    // the two tokens made, the two revocations and the refusals of an existing command's rule (not the flags')
    assert.deepStrictEqual(
      tokenActions.map((e: { action: string; outcome: string }) => `${e.action} ${e.outcome}`).reverse(),
      [
        "operator.token.create ok",
        "operator.token.create ok",
        "operator.token.revoke ok",
        "operator.token.revoke ok",
        "operator.token.revoke refused",
        "operator.token.revoke refused",
        "operator.token.create refused",
        "operator.token.create refused",
        "operator.token.create refused",
        "operator.token.create refused",
        "operator.token.create refused"
      ]
    )
    for (const e of tokenActions) {
      assert.match(e.actor, /^cli:.+@.+$/)
      assert.deepInclude(e, { via: "cli", token_id: null, role: null, request_id: null, client_address: null })
    }
    // newest first
    const instants = everything.items.map((e: { at: string }) => e.at)
    assert.deepStrictEqual([...instants].sort().reverse(), instants)
    const revokes = await cliJson(dataDir, "audit", "list", "--action", "operator.token.revoke", "--limit", "2")
    assert.lengthOf(revokes.items, 2)
    assert.isString(revokes.next_cursor)
    const older = await cliJson(
      dataDir,
      "audit",
      "list",
      "--action",
      "operator.token.revoke",
      "--cursor",
      revokes.next_cursor
    )
    assert.deepStrictEqual(
      [...revokes.items, ...older.items].map((e: { id: string }) => e.id),
      tokenActions
        .filter((e: { action: string }) => e.action === "operator.token.revoke")
        .map((e: { id: string }) => e.id)
    )
    const text = await cli(dataDir, "audit", "list", "--action", "operator.token.revoke", "--limit", "2")
    assert.match(text.stdout, /^AT +ACTOR +ROLE +ACTION +TARGET +OUTCOME +REASON$/m)
    assert.include(text.stdout, "refused  token_not_found: no operator token not-a-token-id")
    assert.include(text.stdout, `--cursor ${revokes.next_cursor}`)
    assert.strictEqual((await cli(dataDir, "audit", "list", "--actor", "nobody")).stdout.trim(), "No audit records.")
    const future = await cliJson(dataDir, "audit", "list", "--since", "2999-01-01T00:00:00Z")
    assert.deepStrictEqual(future.items, [])
    const lastHour = await cliJson(dataDir, "audit", "list", "--since", "1h", "--limit", "1000")
    assert.deepStrictEqual(lastHour.items, everything.items)
    for (const [args, message] of [
      [["--cursor", "nope"], "Invalid cursor"],
      [
        ["--since", "yesterday"],
        '--since is an instant with a zone (2026-11-21T10:00:00Z) or a time back from now (90m, 24h, 7d), not "yesterday"'
      ],
      [["--limit", "0"], "--limit is 1 to 1000, not 0"],
      [["--actor", "a".repeat(257)], "--actor is 1 to 256 characters"]
    ] as const) {
      const refused = await cli(dataDir, "audit", "list", ...args)
      assert.strictEqual(refused.code, 1, args.join(" "))
      assert.include(refused.stderr, message, args.join(" "))
    }
  })

  it("payouts: none on a new service; show, bump and cancel of a contract without one are refused", async () => {
    assert.deepStrictEqual(await cliJson(dataDir, "payouts", "list"), { items: [] })
    assert.strictEqual((await cli(dataDir, "payouts", "list", "--status", "stuck")).stdout.trim(), "No payouts.")
    const contract = "4f1c1a52-0000-4000-8000-000000000000"
    for (const command of ["show", "bump", "cancel"]) {
      const refused = await cli(dataDir, "payouts", command, contract)
      assert.notStrictEqual(refused.code, 0, command)
      assert.include(refused.stderr, `contract ${contract} has no payout`, command)
    }
    const badFilter = await cli(dataDir, "payouts", "list", "--status", "late")
    assert.notStrictEqual(badFilter.code, 0)
  })

  it("webhook set gives an environment its URL and secret", async () => {
    const created = await cliJson(dataDir, "partner", "create", "--name", "Beta Remit")
    const set = await cliJson(
      dataDir,
      "webhook",
      "set",
      "--partner",
      created.partner_id,
      "--environment",
      "production",
      "--url",
      "https://93.184.215.14/hooks"
    )
    assert.strictEqual(set.webhook_url, "https://93.184.215.14/hooks")
    assert.match(set.webhook_secret, /^whsec_/)
  })

  it("refuses unsafe webhook URLs, unknown ids and bad flags, writing nothing", async () => {
    const before = (await cliJson(dataDir, "partner", "list")).length
    const http = await cli(
      dataDir,
      "partner",
      "create",
      "--name",
      "X",
      "--webhook-url-production",
      "http://example.com/h"
    )
    assert.strictEqual(http.code, 1)
    assert.include(http.stderr, "production webhook URL http://example.com/h refused: must be https")
    const loopback = await cli(
      dataDir,
      "partner",
      "create",
      "--name",
      "X",
      "--webhook-url-production",
      "https://127.0.0.1/h"
    )
    assert.strictEqual(loopback.code, 1)
    assert.include(loopback.stderr, "loopback")
    assert.strictEqual((await cliJson(dataDir, "partner", "list")).length, before)

    const unknownKey = await cli(dataDir, "key", "revoke", "--key", "00000000-0000-4000-8000-000000000000")
    assert.strictEqual(unknownKey.code, 1)
    assert.include(unknownKey.stderr, "no API key 00000000-0000-4000-8000-000000000000")
    const unknownPartner = await cli(dataDir, "key", "create", "--partner", "nope", "--environment", "sandbox")
    assert.strictEqual(unknownPartner.code, 1)
    assert.include(unknownPartner.stderr, "no partner nope")
    const badEnvironment = await cli(dataDir, "key", "create", "--partner", "x", "--environment", "staging")
    assert.strictEqual(badEnvironment.code, 1)
    assert.include(badEnvironment.stderr, "staging")
  })

  it("judges the IPv4 address an IPv6 webhook URL carries, in partner create and webhook set", async () => {
    // each form embedding the cloud metadata address 169.254.169.254 (URL normalises the host)
    const metadata: ReadonlyArray<readonly [url: string, address: string]> = [
      ["https://[64:ff9b::a9fe:a9fe]/h", "64:ff9b::a9fe:a9fe"], // NAT64
      ["https://[2002:a9fe:a9fe::1]/h", "2002:a9fe:a9fe::1"], // 6to4
      ["https://[2001:0:4136:e378:8000:63bf:5601:5601]/h", "2001:0:4136:e378:8000:63bf:5601:5601"], // Teredo client
      ["https://[::169.254.169.254]/h", "::a9fe:a9fe"] // IPv4-compatible
    ]
    const refused = (address: string) => `${address} embeds 169.254.169.254, which is link-local (169.254.0.0/16)`

    // public IPv6, and a public IPv4 through NAT64, are accepted
    const created = await cliJson(
      dataDir,
      "partner",
      "create",
      "--name",
      "Gamma FX",
      "--webhook-url-production",
      "https://[2606:4700::1111]/hooks",
      "--webhook-url-sandbox",
      "http://[64:ff9b::8.8.8.8]/hooks"
    )
    assert.strictEqual(created.environments.production.webhook_url, "https://[2606:4700::1111]/hooks")
    assert.strictEqual(created.environments.sandbox.webhook_url, "http://[64:ff9b::808:808]/hooks")
    for (const [url, address] of metadata) {
      const result = await cli(dataDir, "partner", "create", "--name", "X", "--webhook-url-production", url)
      assert.strictEqual(result.code, 1, url)
      assert.include(result.stderr, `production webhook URL ${url} refused: ${refused(address)}`)
    }

    const set = (url: string) =>
      cli(dataDir, "webhook", "set", "--partner", created.partner_id, "--environment", "production", "--url", url)
    // and local-use NAT64 (64:ff9b:1::/48), the IPv4 address at the /48 position
    const localUseNat64 = ["https://[64:ff9b:1:a9fe:a9:fe00::]/h", "64:ff9b:1:a9fe:a9:fe00::"] as const
    for (const [url, address] of [...metadata, localUseNat64]) {
      const result = await set(url)
      assert.strictEqual(result.code, 1, url)
      assert.include(result.stderr, `production webhook URL ${url} refused: ${refused(address)}`)
    }
    // a public IPv4 through 6to4 is accepted
    const sixToFour = await set("https://[2002:808:808::1]/hooks")
    assert.strictEqual(sixToFour.code, 0, sixToFour.stderr)

    const listed: ReadonlyArray<{ name: string; webhook_urls: unknown }> = await cliJson(dataDir, "partner", "list")
    assert.notInclude(
      listed.map((p) => p.name),
      "X",
      "refused partners are not written"
    )
    assert.deepStrictEqual(listed.find((p) => p.name === "Gamma FX")?.webhook_urls, {
      sandbox: "http://[64:ff9b::808:808]/hooks",
      production: "https://[2002:808:808::1]/hooks"
    })
  })

  it("market import stores a snapshot once, refuses a bad one whole, and market show reads the one in force", async () => {
    const dir = tempDataDir()
    const none = await cliJson(dir, "market", "show")
    assert.deepStrictEqual(none, { snapshot: null })

    const example = join(import.meta.dirname, "../../../docs/market/example-snapshot.json")
    const imported = await cliJson(dir, "market", "import", example)
    assert.match(imported.snapshot_id, uuid)
    assert.match(imported.hash, /^[0-9a-f]{64}$/)
    assert.strictEqual(imported.as_of, JSON.parse(readFileSync(example, "utf8")).as_of.replace("Z", ".000Z"))
    assert.isTrue(imported.created)
    const again = await cliJson(dir, "market", "import", example)
    assert.deepStrictEqual(again, { ...imported, created: false })

    // every rule broken is listed with its path, and nothing is stored
    const bad = join(dir, "bad.json")
    const document = JSON.parse(readFileSync(example, "utf8"))
    document.as_of = "2020-01-01T00:00:00Z"
    document.rates.USD.points[0].rate = "7"
    document.vols["USD/BRL"][1].atm = "0.001"
    writeFileSync(bad, JSON.stringify(document))
    const refused = await cli(dir, "market", "import", bad)
    assert.strictEqual(refused.code, 1)
    assert.match(refused.stderr, /Snapshot refused, nothing stored: \d+ problems/)
    assert.match(refused.stderr, /rates\.USD\.points\.0\.rate: .* \[rate_out_of_range\]/)
    assert.match(refused.stderr, /vols\.USD\/BRL\.1\.atm: .* \[vol_out_of_range\]/)
    writeFileSync(bad, "{ not json")
    const notJson = await cli(dir, "market", "import", bad)
    assert.strictEqual(notJson.code, 1)
    assert.match(notJson.stderr, /\(document\): not JSON: .* \[json_invalid\]/)

    const shown = await cliJson(dir, "market", "show")
    assert.strictEqual(shown.snapshot.snapshot_id, imported.snapshot_id)
    assert.isAbove(shown.snapshot.age_seconds, 0)
    const usdBrl = shown.corridors.find((c: { corridor: string }) => c.corridor === "USD_TO_BRL")
    assert.strictEqual(usdBrl.spot, document.spot["USD/BRL"].replace(/0+$/, ""))
    assert.deepStrictEqual(
      usdBrl.points.map((p: { tenor: string }) => p.tenor),
      ["1W", "1M", "3M", "6M"]
    )
    const unknown = await cli(dir, "quote", "explain", "00000000-0000-4000-8000-00000000dead")
    assert.strictEqual(unknown.code, 1)
    assert.match(unknown.stderr, /quote 00000000-0000-4000-8000-00000000dead not found/)

    const text = await cli(dir, "market", "show")
    assert.match(text.stdout, new RegExp(`Snapshot ${imported.snapshot_id}`))
    assert.match(text.stdout, /USD_TO_BRL +5\.41/)
  })

  it("limits set writes the limits given and keeps the others; limits show lists every corridor with its defaults and use", async () => {
    const dir = tempDataDir()
    const set = (...flags: ReadonlyArray<string>) =>
      cli(dir, "limits", "set", "--environment", "production", "--corridor", "USD_TO_BRL", ...flags)
    const first = await cliJson(
      dir,
      "limits",
      "set",
      "--environment",
      "production",
      "--corridor",
      "USD_TO_BRL",
      "--max-open-notional",
      "20000000",
      "--max-net-delta",
      "15000000.50"
    )
    assert.deepStrictEqual(
      { ...first, updated_at: typeof first.updated_at },
      {
        environment: "production",
        corridor: "USD_TO_BRL",
        currency: "USD",
        max_lock_notional: null,
        default_max_lock_notional: { amount: "5000000", currency: "USD" },
        max_open_notional: "20000000",
        max_net_delta: "15000000.5",
        open_notional: "0",
        net_delta_bound: "0",
        headroom: "15000000.5",
        usage: [
          { limit: "max_open_notional", amount: "20000000", held: "0", ratio: "0.0000" },
          { limit: "max_net_delta", amount: "15000000.5", held: "0", ratio: "0.0000" }
        ],
        updated_at: "string"
      }
    )
    const text = await set("--max-lock-notional", "1000000")
    assert.strictEqual(text.code, 0, text.stderr)
    assert.include(text.stdout, "Limits set for production USD_TO_BRL (amounts in USD).")
    assert.match(text.stdout, /max_lock +1000000\n/)
    assert.match(text.stdout, /max_open +20000000\n/)

    // refused, with the reason, and nothing written
    const refusals: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [
        ["--max-open-notional", "lots"],
        "--max-open-notional must be a decimal such as 1000000 or 2500.50, or none: not lots"
      ],
      [["--max-net-delta", "-5"], "max_net_delta must be 0 or more, not -5"],
      [[], "nothing to set: give --max-lock-notional, --max-open-notional or --max-net-delta"]
    ]
    for (const [flags, message] of refusals) {
      const refused = await set(...flags)
      assert.strictEqual(refused.code, 1, flags.join(" "))
      assert.include(refused.stderr, message)
    }
    const unknown = await cli(
      dir,
      "limits",
      "set",
      "--environment",
      "production",
      "--corridor",
      "USD_TO_JPY",
      "--max-net-delta",
      "1"
    )
    assert.strictEqual(unknown.code, 1)
    assert.include(unknown.stderr, "USD_TO_JPY")

    // none: back to the default
    assert.strictEqual((await set("--max-net-delta", "none")).code, 0)
    const shown = await cliJson(dir, "limits", "show")
    assert.strictEqual(shown.corridors.length, 18)
    const of = (environment: string, corridor: string) =>
      shown.corridors.find(
        (c: { environment: string; corridor: string }) => c.environment === environment && c.corridor === corridor
      )
    assert.deepStrictEqual(
      [
        of("production", "USD_TO_BRL").max_lock_notional,
        of("production", "USD_TO_BRL").max_open_notional,
        of("production", "USD_TO_BRL").max_net_delta
      ],
      ["1000000", "20000000", null]
    )
    assert.deepStrictEqual(of("production", "USD_TO_BRL").headroom, "20000000")
    // the sandbox's corridor is another one; an inverted corridor's default is its market pair's
    assert.deepStrictEqual(
      [of("sandbox", "USD_TO_BRL").max_open_notional, of("sandbox", "USD_TO_BRL").headroom],
      [null, null]
    )
    assert.deepStrictEqual(
      [of("sandbox", "BRL_TO_USD").currency, of("sandbox", "BRL_TO_USD").default_max_lock_notional],
      ["BRL", { amount: "5000000", currency: "USD" }]
    )
    const production = await cliJson(dir, "limits", "show", "--environment", "production")
    assert.deepStrictEqual(
      [...new Set(production.corridors.map((c: { environment: string }) => c.environment))],
      ["production"]
    )
    const table = await cli(dir, "limits", "show", "--environment", "production")
    assert.match(
      table.stdout,
      /^ENVIRONMENT +CORRIDOR +UNIT +MAX LOCK +MAX OPEN +MAX NET DELTA +OPEN NOTIONAL +HEADROOM$/m
    )
    assert.match(table.stdout, /^production +USD_TO_BRL +USD +1000000 +20000000 +unlimited +0 +20000000$/m)
    assert.match(
      table.stdout,
      /^production +BRL_TO_USD +BRL +5000000 USD \(default\) +unlimited +unlimited +0 +unlimited$/m
    )
  })

  // some twenty commands, a few seconds each on a busy machine
  it("hedge: a manual venue's orders wait for a trader, who fills and rejects them with the CLI", {
    timeout: 300_000
  }, async () => {
    const dir = tempDataDir()
    const set = await cliJson(
      dir,
      "hedge",
      "policy",
      "set",
      "--environment",
      "production",
      "--pair",
      "USD/BRL",
      "--target-ratio",
      "1",
      "--band",
      "50000",
      "--instrument",
      "spot"
    )
    assert.deepInclude(set, { environment: "production", pair: "USD/BRL", target_ratio: "1", band: "50000" })
    const badRatio = await cli(
      dir,
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
      "50000",
      "--instrument",
      "forward"
    )
    assert.strictEqual(badRatio.code, 1)
    assert.include(badRatio.stderr, "target_ratio: Expected a ratio from 0 to 1")

    const pass = (delta: string) => hedgingPass(dir, "production", delta)

    // the book carries 180,000 USD of delta: sell 180,000, which waits for the trader
    assert.strictEqual((await pass("180000")).moved, 1)
    const pending = (await cliJson(dir, "hedge", "orders", "--status", "pending")).items
    assert.strictEqual(pending.length, 1)
    const [order] = pending
    assert.deepInclude(order, { pair: "USD/BRL", side: "sell", amount: "180000.00", status: "sent", venue: "manual" })
    assert.match(order.id, uuid)
    // waiting: the next pass places nothing more
    assert.strictEqual((await pass("180000")).moved, 0)

    const filled = await cliJson(dir, "hedge", "fill", order.id, "--rate", "5.4012", "--amount", "100000")
    assert.deepInclude(filled, { id: order.id, status: "filled", fill_rate: "5.4012", fill_amount: "100000" })
    const again = await cli(dir, "hedge", "fill", order.id, "--rate", "5.4")
    assert.strictEqual(again.code, 1)
    assert.include(again.stderr, `hedge order ${order.id} is already filled`)
    const shown = (await cliJson(dir, "hedge", "policy", "show")).items
    assert.deepInclude(shown[0], { pair: "USD/BRL", position: "-100000", outstanding_order: null })

    // the 80,000 not filled is a new decision, which the trader cannot do: rejected
    const second = await pass("180000")
    assert.strictEqual(second.moved, 1)
    const [rest] = (await cliJson(dir, "hedge", "orders", "--status", "sent")).items
    assert.deepInclude(rest, { side: "sell", amount: "80000.00" })
    const tooMuch = await cli(dir, "hedge", "fill", rest.id, "--rate", "5.4", "--amount", "80000.01")
    assert.strictEqual(tooMuch.code, 1)
    assert.include(tooMuch.stderr, "at most the order's 80000.00 USD")
    const rejected = await cliJson(dir, "hedge", "reject", rest.id, "--reason", "no liquidity at this size")
    assert.deepInclude(rejected, { status: "rejected", rejection_reason: "no liquidity at this size" })

    // decided anew, under a new id; the fill's ledger entries balance per currency
    const third = await pass("180000")
    assert.strictEqual(third.moved, 1)
    for (const [currency, total] of Ledger.balances(third.entries)) assert.isTrue(Money.isZero(total), currency)
    assert.deepStrictEqual(
      third.entries.filter((e) => e.account === "hedge_position").map((e) => [e.currency, Money.format(e.amount)]),
      [
        ["USD", "-100000"],
        ["BRL", "540120.0000"]
      ]
    )
    const all = (await cliJson(dir, "hedge", "orders")).items
    assert.deepStrictEqual(
      all.map((o: { status: string }) => o.status),
      ["sent", "rejected", "filled"]
    )
    assert.notInclude([order.id, rest.id], all[0].id)
    const text = await cli(dir, "hedge", "orders")
    assert.match(text.stdout, /^ID +CREATED +ENVIRONMENT +PAIR/)
    assert.include(text.stdout, `${order.id}`)
    assert.match(text.stdout, /filled +100000 at 5\.4012/)

    const armed = await cli(dir, "hedge", "simulate", "--timeout-next")
    assert.strictEqual(armed.code, 0, armed.stderr)
    assert.include(armed.stdout, "RATELOCK_HEDGING is off")
  })

  it("risk scenario set stores the operator's scenarios beside the defaults; risk report prints the book with them", async () => {
    const dir = tempDataDir()
    const file = join(dir, "..", `scenarios-${Date.now()}.json`)
    writeFileSync(
      file,
      JSON.stringify([
        { name: "mxn_minus_20", description: "MXN sells off", spot_shocks: { "USD/MXN": "0.20" } },
        { name: "vol_plus_5", description: "vols up ten points instead", vol_shift: "0.10" }
      ])
    )
    const stored = await cliJson(dir, "risk", "scenario", "set", file)
    assert.deepStrictEqual(stored, { stored: ["mxn_minus_20", "vol_plus_5"] })
    const listed = (await cliJson(dir, "risk", "scenario", "list")).items
    assert.strictEqual(listed.length, 9, "eight defaults, one replaced, one added")
    const byName = Object.fromEntries(listed.map((s: { name: string }) => [s.name, s]))
    assert.strictEqual(byName.mxn_minus_20.source, "operator")
    assert.deepStrictEqual([byName.vol_plus_5.source, byName.vol_plus_5.vol_shift], ["operator", "0.10"])
    assert.strictEqual(byName.brl_minus_15.source, "default")

    // refused whole, every problem listed, nothing stored
    writeFileSync(file, JSON.stringify([{ name: "Bad Name", spot_shocks: { "USD/XXX": "lots" } }]))
    const refused = await cli(dir, "risk", "scenario", "set", file)
    assert.strictEqual(refused.code, 1)
    assert.match(refused.stderr, /Scenarios refused, nothing stored: [2-9] problems/)
    assert.strictEqual((await cliJson(dir, "risk", "scenario", "list")).items.length, 9)

    // an empty book: every pair at zero, the operator's scenarios in the stress, every corridor's limits
    const report = await cliJson(dir, "risk", "report", "--environment", "sandbox")
    assert.strictEqual(report.environment, "sandbox")
    assert.strictEqual(report.snapshot_id, null, "no snapshot imported: the built-in illustrative one")
    assert.strictEqual(report.pairs.length, 6)
    for (const pair of report.pairs) {
      assert.deepStrictEqual(
        [pair.open_locks, pair.mtm, pair.delta, pair.hedge.position],
        [0, "0.00", "0.00", "0"],
        pair.pair
      )
    }
    assert.includeMembers(
      report.stress.map((s: { name: string }) => s.name),
      ["mxn_minus_20", "vol_plus_5", "brl_minus_15", "crash_combo"]
    )
    assert.strictEqual(report.limits.length, 9)
    const text = await cli(dir, "risk", "report")
    assert.strictEqual(text.code, 0, text.stderr)
    assert.match(text.stdout, /^Book of production as of /)
    assert.match(text.stdout, /\nStress, worst first\n/)
    assert.match(text.stdout, /\nUSD\/BRL +5\.4 +0 /)
  })

  it("risk report reads the stored revaluation; --fresh revalues now, with what came since, and stores it", async () => {
    const dir = tempDataDir()
    const names = (report: { stress: ReadonlyArray<{ name: string }> }) => report.stress.map((s) => s.name)
    const usdBrlSpot = (report: { pairs: ReadonlyArray<{ pair: string; spot: string }> }) =>
      report.pairs.find((p) => p.pair === "USD/BRL")!.spot
    // none stored: the first report revalues (on the built-in illustrative snapshot) and stores it
    const first = await cliJson(dir, "risk", "report", "--environment", "sandbox")
    assert.strictEqual(first.snapshot_id, null)
    assert.strictEqual(usdBrlSpot(first), "5.4")

    // since then: a snapshot imported and a scenario added, which the stored revaluation has not seen
    const example = join(import.meta.dirname, "../../../docs/market/example-snapshot.json")
    const imported = await cliJson(dir, "market", "import", example)
    const file = join(dir, "..", `scenario-fresh-${Date.now()}.json`)
    writeFileSync(
      file,
      JSON.stringify({ name: "ngn_minus_40", description: "NGN", spot_shocks: { "USD/NGN": "0.40" } })
    )
    await cliJson(dir, "risk", "scenario", "set", file)

    const stored = await cliJson(dir, "risk", "report", "--environment", "sandbox")
    assert.strictEqual(stored.computed_at, first.computed_at)
    assert.strictEqual(stored.snapshot_id, null)
    assert.notInclude(names(stored), "ngn_minus_40")

    const fresh = await cliJson(dir, "risk", "report", "--environment", "sandbox", "--fresh")
    assert.notStrictEqual(fresh.computed_at, first.computed_at)
    assert.strictEqual(fresh.snapshot_id, imported.snapshot_id)
    assert.strictEqual(fresh.snapshot_as_of, imported.as_of)
    const spot = JSON.parse(readFileSync(example, "utf8")).spot["USD/BRL"] as string
    assert.strictEqual(usdBrlSpot(fresh), spot.replace(/0+$/, ""))
    assert.include(names(fresh), "ngn_minus_40")

    // and stored: the plain report reads it now
    const after = await cliJson(dir, "risk", "report", "--environment", "sandbox")
    assert.deepStrictEqual(
      [after.computed_at, after.snapshot_id, names(after)],
      [fresh.computed_at, fresh.snapshot_id, names(fresh)]
    )
  })

  it("treasury reconcile, record-inflow and funds refund: the books against the chain, an inflow booked, a refund refused with its reason", async () => {
    const dir = tempDataDir()
    // the sandbox's simulated chains: nothing funded, nothing to differ
    const { reconciliation: runs } = await cliJson(dir, "treasury", "reconcile", "--environment", "sandbox")
    assert.isAtLeast(runs.length, 1)
    for (const run of runs) assert.deepInclude(run, { environment: "sandbox", error: null, differences: [] })
    const text = await cli(dir, "treasury", "reconcile", "--environment", "sandbox")
    assert.strictEqual(text.code, 0, text.stderr)
    assert.match(text.stdout, /Reconciliation of sandbox polygon at .*: 0 balances, \d+ chain calls, no difference/)

    const booked = await cliJson(
      dir,
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
    )
    assert.deepStrictEqual(booked.entries, [
      { account: "payout_wallet", currency: "USDC", amount: "12.5" },
      { account: "owner_funding", currency: "USDC", amount: "-12.5" }
    ])
    const zero = await cli(
      dir,
      "treasury",
      "record-inflow",
      "--environment",
      "sandbox",
      "--chain",
      "polygon",
      "--currency",
      "USDC",
      "--amount",
      "0",
      "--as",
      "topup"
    )
    assert.strictEqual(zero.code, 1)
    assert.include(zero.stderr, "--amount must be a positive decimal")

    const unknown = await cli(dir, "funds", "refund", "0xabc")
    assert.strictEqual(unknown.code, 1)
    assert.include(unknown.stderr, "no unmatched or funding transfer 0xabc")
  })

  it("treasury show prints the hot wallets the workers read against their thresholds; --json is the operator API's view", async () => {
    const dir = tempDataDir()
    const readAt = DateTime.makeUnsafe(Date.now() - 5_000)
    // what the hot-wallet pass would have stored from the chain
    await Effect.runPromise(
      HotWalletRepo.HotWalletRepo.use((repo) =>
        repo.save([
          {
            environment: "production",
            chain: "polygon",
            asset: "NATIVE",
            address: "0x00000000000000000000000000000000000000a2",
            amount: Money.unsafe("4.200000000000000001"),
            readAt
          },
          {
            environment: "production",
            chain: "polygon",
            asset: "USDC",
            address: "0x00000000000000000000000000000000000000a2",
            amount: Money.unsafe("25000.000001"),
            readAt
          }
        ])
      ).pipe(Effect.provide(EmbeddedStore.layer({ dataDir: dir })))
    )
    const thresholds = {
      RATELOCK_POLYGON_HOT_WALLET_MIN_NATIVE: "5",
      RATELOCK_POLYGON_HOT_WALLET_MIN_USDC: "10000"
    }
    const json = await cliWith(dir, thresholds, "treasury", "show", "--json")
    assert.strictEqual(json.code, 0, json.stderr)
    const view = JSON.parse(json.stdout)
    const row = (asset: string) => view.wallets.find((w: { asset: string }) => w.asset === asset)
    assert.deepInclude(row("NATIVE"), {
      environment: "production",
      chain: "polygon",
      balance: "4.200000000000000001",
      min_balance: "5",
      below_min: true,
      payouts_due: 0,
      can_pay: true
    })
    assert.deepInclude(row("USDC"), { balance: "25000.000001", min_balance: "10000", below_min: false, can_pay: true })
    assert.isAtLeast(row("USDC").age_seconds, 5)
    assert.deepStrictEqual(view.stuck_payouts, [])

    const text = await cliWith(dir, thresholds, "treasury", "show")
    assert.strictEqual(text.code, 0, text.stderr)
    assert.match(text.stdout, /production\s+polygon\s+NATIVE\s+4\.200000000000000001\s+\d+s ago\s+5\s+LOW/)
    assert.match(text.stdout, /production\s+polygon\s+USDC\s+25000\.000001\s+\d+s ago\s+10000\s+ok/)
    assert.include(text.stdout, "No payout stuck.")
    // without thresholds nothing is low; the sandbox has no hot wallet
    const plain = await cliJson(dir, "treasury", "show")
    assert.deepStrictEqual(
      plain.wallets.map((w: { min_balance: unknown; below_min: unknown }) => [w.min_balance, w.below_min]),
      [
        [null, null],
        [null, null]
      ]
    )
    assert.deepStrictEqual((await cliJson(dir, "treasury", "show", "--environment", "sandbox")).wallets, [])
    const refused = await cliWith(dir, { RATELOCK_POLYGON_HOT_WALLET_MIN_USDC: "-3" }, "treasury", "show")
    assert.strictEqual(refused.code, 1)
    assert.include(refused.stderr, "RATELOCK_POLYGON_HOT_WALLET_MIN_USDC")
  })

  it("finance: a close now, refused without market data; the closes and the P&L between them as a table, CSV or JSON", {
    timeout: 300_000
  }, async () => {
    const dir = tempDataDir()
    const finance = (...args: ReadonlyArray<string>) => cli(dir, "finance", ...args)
    const sandbox = ["--environment", "sandbox"]

    // nothing closed: no period, no close
    const nothing = await finance("pnl", ...sandbox)
    assert.strictEqual(nothing.code, 0, nothing.stderr)
    assert.match(
      nothing.stdout,
      /^P&L of sandbox from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d, USD: 0 periods between closes/
    )
    assert.include(nothing.stdout, "No period ends in these days")
    const header = ["date", "total", "realised", "unrealised", ...PeriodPnl.explainedLines, "unexplained", "cumulative"]
    assert.strictEqual((await finance("pnl", ...sandbox, "--csv")).stdout, `${header.join(",")}\n`)
    assert.include((await finance("closes", ...sandbox)).stdout, "No close in these days")

    // production has no market data in force: refused with core's reason, nothing written
    const refused = await finance("close", "--environment", "production")
    assert.strictEqual(refused.code, 1)
    assert.include(refused.stderr, "no market data in force for production: no market data snapshot has been imported")

    // the sandbox closes on the built-in illustrative snapshot: its first close
    const first = await finance("close", ...sandbox)
    assert.strictEqual(first.code, 0, first.stderr)
    assert.match(
      first.stdout,
      /^Closed sandbox at \S+Z: close_[0-9a-f-]{36}\n {2}on the built-in illustrative snapshot of /
    )
    assert.include(first.stdout, "first close of the environment: no P&L before it")

    // then a hedge sold and filled (a trader's, at a manual venue), and the market moves: another close
    await cliJson(
      dir,
      "hedge",
      "policy",
      "set",
      ...sandbox,
      "--pair",
      "USD/BRL",
      "--band",
      "50000",
      "--instrument",
      "spot"
    )
    assert.strictEqual((await hedgingPass(dir, "sandbox", "180000")).moved, 1)
    const [order] = (await cliJson(dir, "hedge", "orders", "--status", "pending")).items
    await cliJson(dir, "hedge", "fill", order.id, "--rate", "5.4012")
    const example = join(import.meta.dirname, "../../../docs/market/example-snapshot.json")
    const imported = await cliJson(dir, "market", "import", example)
    const second = await cliJson(dir, "finance", "close", ...sandbox)
    assert.deepInclude(second, { environment: "sandbox", snapshot_id: imported.snapshot_id, scheduled_for: null })
    assert.strictEqual(second.pnl.from_close_id, second.previous_close_id)
    assert.notStrictEqual(Number(second.pnl.usd.hedges), 0, "the hedge's mark moved")

    const closes = await cliJson(dir, "finance", "closes", ...sandbox)
    assert.deepStrictEqual(
      closes.items.map((c: { id: string; pnl: unknown }) => [c.id, c.pnl === null]),
      [
        [second.previous_close_id, true],
        [second.id, false]
      ]
    )
    const listed = await finance("closes", ...sandbox)
    assert.match(listed.stdout, /^ID +CLOSED_AT +FOR_CUT +SNAPSHOT +OPEN_LOCKS +PNL_USD\n/)
    assert.match(listed.stdout, /operator +illustrative +0 +first close\n/)
    assert.match(
      listed.stdout,
      new RegExp(`operator +${imported.snapshot_id} +0 +${second.pnl.usd.total.replace(".", "\\.")}\n`)
    )

    // the P&L of the day: one period, the close's own figures, laid out
    const report = await cliJson(dir, "finance", "pnl", ...sandbox)
    assert.deepInclude(report, { environment: "sandbox", by: "day", currency: "USD", periods: 1 })
    assert.strictEqual(report.totals.total, second.pnl.usd.total)
    assert.strictEqual(report.days[0].cumulative_total, second.pnl.usd.total)
    const table = await finance("pnl", ...sandbox)
    assert.match(
      table.stdout,
      /\nDATE +TOTAL +REALISED +UNREALISED +NEW_BUSINESS +THETA +ROLL +DELTA +GAMMA +VEGA +VANNA +VOLGA +RATES +SETTLED +HEDGES +FX_TRANSLATION +UNEXPLAINED +CUMULATIVE\n/
    )
    assert.include(table.stdout, `\nTotals\nLINE`)
    assert.match(table.stdout, new RegExp(`\\nhedges +${report.totals.hedges.replace(".", "\\.")}\\n`))
    const csv = (await finance("pnl", ...sandbox, "--csv")).stdout.trim().split("\n")
    assert.deepStrictEqual(csv, [
      header.join(","),
      [
        report.days[0].date,
        ...header.slice(1, -1).map((line) => report.days[0].lines[line]),
        report.days[0].cumulative_total
      ].join(",")
    ])
    const byPair = await cliJson(dir, "finance", "pnl", ...sandbox, "--by", "pair")
    const usdBrl = byPair.pairs.find((p: { pair: string }) => p.pair === "USD/BRL")
    assert.strictEqual(usdBrl.quote, "BRL")
    const pairCsv = (await finance("pnl", ...sandbox, "--by", "pair", "--csv")).stdout.trim().split("\n")
    assert.strictEqual(
      pairCsv[0],
      `pair,locks_sold,locks_settled,total,realised,unrealised,${PeriodPnl.explainedLines.join(",")},unexplained,quote,quote_total,quote_realised,quote_unrealised`
    )
    const usdBrlRow = pairCsv.find((l) => l.startsWith("USD/BRL,"))!.split(",")
    assert.deepStrictEqual(usdBrlRow.slice(0, 4), ["USD/BRL", "0", "0", usdBrl.usd.total])
    assert.deepStrictEqual(usdBrlRow.slice(-4), [
      "BRL",
      usdBrl.in_quote.total,
      usdBrl.in_quote.realised,
      usdBrl.in_quote.unrealised
    ])
    assert.include((await finance("pnl", ...sandbox, "--by", "pair")).stdout, "USD/BRL")
    const byPartner = await finance("pnl", ...sandbox, "--by", "partner")
    assert.include(byPartner.stdout, "No partner has a figure.")

    // the days and the output are checked before anything is read
    for (const [args, said] of [
      [["--from", "2026-13-01"], '--from is a UTC date such as 2026-12-01, not "2026-13-01"'],
      [["--to", "today"], '--to is a UTC date such as 2026-12-01, not "today"'],
      [["--from", "2026-12-02", "--to", "2026-12-01"], "--from 2026-12-02 is after --to 2026-12-01"],
      [["--json", "--csv"], "--json and --csv: one or the other"]
    ] as const) {
      const bad = await finance("pnl", ...sandbox, ...args)
      assert.strictEqual(bad.code, 1, args.join(" "))
      assert.include(bad.stderr, said)
    }
    assert.strictEqual((await finance("pnl", ...sandbox, "--by", "week")).code, 1)

    // the log: both closes and the refusal, as the CLI's user on the database
    const log = (await cliJson(dir, "audit", "list", "--action", "finance.close")).items
    assert.deepStrictEqual(
      log.map((e: { outcome: string; target_id: string; actor: string }) => [
        e.outcome,
        e.target_id,
        e.actor.startsWith("cli:")
      ]),
      [
        ["ok", "sandbox", true],
        ["ok", "sandbox", true],
        ["refused", "production", true]
      ]
    )
  })

  it("says clearly that the data directory is in use, and ignores the pid a lock file names", async () => {
    const lockFile = join(dataDir, DataDirLock.fileName)
    // a running process holds it (this test's own process stands in for the server)
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          yield* DataDirLock.acquire(dataDir)
          const refused = yield* Effect.promise(() => cli(dataDir, "partner", "list"))
          assert.strictEqual(refused.code, 1)
          assert.include(
            refused.stderr,
            `The data directory ${dataDir} is in use by another Ratelock process (pid ${process.pid})`
          )
          assert.strictEqual(refused.stdout, "")
        })
      )
    )

    // what a lock file says is no lock: a pid that has ended, or a live one that holds no lock
    for (const pid of [deadPid(), process.pid, 1]) {
      writeFileSync(lockFile, `${pid}\n`)
      const listed = await cli(dataDir, "partner", "list")
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.include(listed.stdout, "Acme Pay")
      assert.strictEqual(readFileSync(lockFile, "utf8"), "", "no holder left named after the command")
    }
  })
})
