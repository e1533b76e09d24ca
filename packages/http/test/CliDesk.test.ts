/**
 * `pnpm ratelock <command>` for the desk, as an operator runs it: a child process per command on a temporary
 * embedded data directory: market snapshots, corridor limits, manual hedging and the risk report.
 */

import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Ledger, Money } from "@ratelock/core"
import { afterAll, assert, describe, it } from "vitest"
import { hedgingPass } from "./support/hedge/onDataDir.ts"
import { cli, cliJson, removeTempDirs, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

// each command is a process of its own: about a second alone, several under the full suite (a hang guard)
describe("ratelock CLI: market, limits, hedging and risk", { timeout: 300_000 }, () => {
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
})
