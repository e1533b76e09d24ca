/**
 * `pnpm ratelock <command>` for the money, as an operator runs it: a child process per command on a
 * temporary embedded data directory: the treasury, refunds and the daily close with its P&L.
 */

import { join } from "node:path"
import { EmbeddedStore } from "@ratelock/adapters-store"
import { HotWalletRepo, Money, PeriodPnl } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import { hedgingPass } from "./support/hedge/onDataDir.ts"
import { cli, cliJson, cliWith, removeTempDirs, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

// each command is a process of its own: about a second alone, several under the full suite (a hang guard)
describe("ratelock CLI: treasury and finance", { timeout: 300_000 }, () => {
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
})
