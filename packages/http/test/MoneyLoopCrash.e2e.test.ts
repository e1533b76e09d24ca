/**
 * SIGKILL at random moments over 30 sweeps and 30 refunds, on PostgreSQL (two `ratelock worker`
 * processes, one killed and another started at once) and on the embedded store (`pnpm start`'s one
 * process, killed and started again at once on its data directory), production on anvil: 30
 * forwards funded by the customer's transfers, each exercised with a payout. Afterwards every
 * funding address was swept once (one Transfer out of it, nothing left), every deposit refunded
 * once (30 Transfers to the partner's refund address, their sum the deposits'), both ledgers sum to
 * zero per currency, and the reconciliation finds nothing.
 */
import * as Erc20 from "@ratelock/test-support/Erc20"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { Money } from "@ratelock/core"
import { Effect } from "effect"
import { type Address, parseAbiItem } from "viem"
import { assert, describe, it } from "vitest"
import type { Readable } from "./support/cluster/database.ts"
import { openEmbedded } from "./support/crash/embeddedDatabase.ts"
import {
  type Common,
  freshDestination,
  openTreasury,
  sleep,
  usdcUnits,
  waitFor,
  withDeployment,
  withEmbeddedDeployment
} from "./support/onChain.ts"

const contracts = 30
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")

interface Run {
  readonly chain: string
  readonly error: string | null
  readonly differences: ReadonlyArray<unknown>
}

/**
 * Sells and funds 30 forwards and exercises each, while `crash` kills (and restarts) the service
 * at random moments and blocks are mined; then waits for every sweep and refund to land.
 */
const underCrashes = async (d: Common, refundAddress: Address, crash: () => Promise<void>) => {
  let mining = true
  const miner = (async () => {
    while (mining) {
      await d.anvil.client.mine({ blocks: 1 }).catch(() => undefined)
      await sleep(250)
    }
  })()
  let killing = true
  let killer: Promise<void> = Promise.resolve()
  try {
    const sold = await d.activeContracts(contracts, { contractType: "forward" })
    let crashes = 0
    killer = (async () => {
      while (killing && crashes < 6) {
        await sleep(1500 + Math.floor(Math.random() * 2500))
        await crash()
        crashes++
      }
    })()
    // handled now, rethrown where it is awaited: a crash that fails while the partner is still exercising is not left unhandled
    killer.catch(() => undefined)
    for (const contract of sold) await d.exercise(contract.id, freshDestination())
    await killer
    const balance = (address: Address) => Effect.runPromise(Erc20.balanceOf(d.anvil.client, d.usdc, address))
    const deposits = sold.reduce((sum, c) => sum + usdcUnits(c.deposit_amount!), 0n)
    await waitFor(
      async () => ({
        refunded: await balance(refundAddress),
        left: (await Promise.all(sold.map((c) => balance(c.funding_wallet_address)))).filter((b) => b > 0n).length,
        settled: (await Promise.all(sold.map((c) => d.contractStatus(c.id)))).filter((s) => s === "settled").length
      }),
      (s) => s.refunded === deposits && s.left === 0 && s.settled === contracts,
      "every address swept, every deposit refunded, every contract settled",
      { timeoutMs: 240_000, everyMs: 1000 }
    )
    // once each: one Transfer out of every funding address, one Transfer in per deposit
    for (const contract of sold) {
      const out = await d.anvil.client.getLogs({
        address: d.usdc,
        event: transferEvent,
        args: { from: contract.funding_wallet_address },
        fromBlock: 0n
      })
      assert.strictEqual(out.length, 1, `sweeps of ${contract.funding_wallet_address}`)
    }
    assert.strictEqual((await d.received(refundAddress)).transfers, contracts)
    return sold
  } finally {
    // a failure above is the test's: the killer stops after its current crash, its own error then beside the point
    killing = false
    await killer.catch(() => undefined)
    mining = false
    await miner
  }
}

/** Both ledgers sum to zero per currency. */
const ledgersAtZero = async (db: Readable) => {
  for (const table of ["ledger_entries", "treasury_entries"]) {
    const sums = await db.query<{ readonly currency: string; readonly total: string }>(
      (sql) => sql`SELECT currency, sum(amount)::text AS total FROM ${sql(table)} GROUP BY currency`
    )
    for (const s of sums) assert.isTrue(Money.isZero(Money.unsafe(s.total)), `${table} ${s.currency}: ${s.total}`)
  }
}

const reconciledClean = async (d: Common) => {
  await d.anvil.client.mine({ blocks: d.confirmations + 1 })
  const { reconciliation: runs } = (await d.ratelock("treasury", "reconcile", "--environment", "production")) as {
    reconciliation: ReadonlyArray<Run>
  }
  assert.deepStrictEqual(
    runs.map((r) => [r.chain, r.error, r.differences]),
    [["ethereum", null, []]]
  )
}

describe("the money loop SIGKILLed at random (anvil)", () => {
  it.skipIf(databaseUrl === undefined)(
    "on PostgreSQL: two workers, one killed and replaced at once, six times",
    { timeout: 600_000 },
    () =>
      withDeployment(databaseUrl!, { prefix: "ratelock_money_crash", sweeps: true }, async (d) => {
        const refundAddress = freshDestination()
        await openTreasury(d, refundAddress)
        const workers = [await d.cluster.startWorker("worker-0"), await d.cluster.startWorker("worker-1")]
        let next = 2
        await underCrashes(d, refundAddress, async () => {
          const i = Math.floor(Math.random() * workers.length)
          await d.cluster.kill(workers[i]!)
          workers[i] = await d.cluster.startWorker(`worker-${next++}`)
        })
        // the movements all confirmed before the books are read
        await waitFor(
          () =>
            d.db.query<{ readonly n: string }>(
              (sql) => sql`SELECT count(*)::text AS n FROM movements WHERE status <> 'confirmed'`
            ),
          (rows) => rows[0]!.n === "0",
          "every movement confirmed",
          { timeoutMs: 120_000 }
        )
        await ledgersAtZero(d.db)
        const movements = await d.db.query<{ readonly kind: string; readonly n: string }>(
          (sql) => sql`SELECT kind, count(*)::text AS n FROM movements GROUP BY kind ORDER BY kind`
        )
        assert.deepStrictEqual(
          movements.map((m) => [m.kind, m.n]),
          [
            ["refund", String(contracts)],
            ["sweep", String(contracts)]
          ]
        )
        await reconciledClean(d)
      })
  )

  it("on the embedded store: the one service killed and started again at once, six times", { timeout: 600_000 }, () =>
    withEmbeddedDeployment({ sweeps: true }, async (d) => {
      const refundAddress = freshDestination()
      await openTreasury(d, refundAddress)
      await d.start()
      const sold = await underCrashes(d, refundAddress, async () => {
        await d.kill()
        await d.start()
      })
      // the service's own view says every movement was booked before it stops
      const swept = sold.reduce((sum, c) => sum + usdcUnits(c.total_amount), 0n)
      const refunded = sold.reduce((sum, c) => sum + usdcUnits(c.deposit_amount!), 0n)
      await waitFor(
        async () => {
          const view = (await d.operator("/operator/v1/treasury?environment=production")).json
          return view.sweeps.find((s: { chain: string; token: string }) => s.chain === "ethereum" && s.token === "USDC")
        },
        (row) => usdcUnits(row.swept_today) === swept && usdcUnits(row.refunded_today) === refunded,
        "every sweep and refund booked",
        { timeoutMs: 120_000 }
      )
      await d.halt()
      const db = openEmbedded(d.dataDir)
      try {
        await ledgersAtZero(db)
        const pending = await db.query<{ readonly n: string }>(
          (sql) => sql`SELECT count(*)::text AS n FROM movements WHERE status <> 'confirmed'`
        )
        assert.strictEqual(pending[0]!.n, "0")
      } finally {
        await db.close()
      }
      await reconciledClean(d)
    })
  )
})
