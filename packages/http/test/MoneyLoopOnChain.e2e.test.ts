/**
 * The money loop end to end on a real chain (production on anvil, real PostgreSQL, `ratelock
 * worker` and the CLI): two forwards funded by the customer's ERC-20 transfers are swept whole,
 * the first into the hot wallet (below its float), the next into the treasury (the float reached);
 * one is exercised with a payout, and its deposit arrives once at the partner's refund address;
 * the reconciliation finds the books and the chain agree (every fee booked, native and token);
 * a token sent straight to the hot wallet is no difference while it is not yet at the confirmation
 * depth, then one of exactly that amount until it is recorded. Skipped without `DATABASE_URL`.
 */
import * as Erc20 from "@ratelock/test-support/Erc20"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { Effect } from "effect"
import type { Address } from "viem"
import { assert, describe, it } from "vitest"
import {
  freshDestination,
  mineUntil,
  openTreasury,
  paidOnce,
  recordInflow,
  usdcUnits,
  withDeployment
} from "./support/onChain.ts"

interface Run {
  readonly environment: string
  readonly chain: string
  readonly error: string | null
  readonly differences: ReadonlyArray<{
    readonly wallet: string
    readonly currency: string
    readonly difference: string
  }>
}

describe.skipIf(databaseUrl === undefined)("the money loop on anvil (PostgreSQL)", () => {
  it(
    "sweeps to the hot wallet then the treasury, refunds a deposit once, and reconciles to the unit",
    { timeout: 300_000 },
    () =>
      withDeployment(
        databaseUrl!,
        {
          prefix: "ratelock_money_loop",
          sweeps: true,
          env: {
            // the hot wallet starts with 1,000,000 USDC: one sweep fills it past this float
            RATELOCK_ETHEREUM_HOT_WALLET_FLOAT_USDC: "1000000.01",
            RATELOCK_ETHEREUM_TREASURY_ADDRESS: "0x7e57000000000000000000000000000000000001"
          }
        },
        async (d) => {
          const treasury = "0x7e57000000000000000000000000000000000001" as Address
          const refundAddress = freshDestination()
          const balance = (address: Address) => Effect.runPromise(Erc20.balanceOf(d.anvil.client, d.usdc, address))
          const reconcile = async () =>
            (
              (await d.ratelock("treasury", "reconcile", "--environment", "production")) as {
                reconciliation: ReadonlyArray<Run>
              }
            ).reconciliation.filter((r) => r.chain === "ethereum")

          await openTreasury(d, refundAddress)
          await d.cluster.startWorker("worker")

          const [first, second] = await d.activeContracts(2, { contractType: "forward" })
          const addresses = [first!.funding_wallet_address, second!.funding_wallet_address]
          await mineUntil(
            d,
            () => Promise.all([...addresses.map(balance), balance(treasury)]),
            ([a, b, t]) => a === 0n && b === 0n && t! > 0n,
            "both funding addresses swept"
          )
          // one sweep refilled the hot wallet, the other went cold, each whole
          const totals = [usdcUnits(first!.total_amount), usdcUnits(second!.total_amount)]
          const cold = await balance(treasury)
          assert.include(totals, cold)
          const warm = totals.find((t) => t !== cold) ?? cold
          assert.strictEqual(await balance(d.hotWallet), usdcUnits("1000000") + warm)

          // the forward exercised: the customer paid, then the deposit back to the partner, once
          const customer = freshDestination()
          await d.exercise(first!.id, customer)
          await mineUntil(
            d,
            () => balance(refundAddress),
            (b) => b === usdcUnits(first!.deposit_amount!),
            "the deposit at the refund address"
          )
          await mineUntil(
            d,
            () => d.contractStatus(first!.id),
            (s) => s === "settled",
            "the payout settled"
          )
          await paidOnce(d, refundAddress, first!.deposit_amount!)

          // every movement confirmed and booked at depth: the books and the chain agree
          const settled = async () => {
            const view = (await d.operator("/operator/v1/treasury?environment=production")).json
            return (
              view.refunds_waiting.length === 0 &&
              view.sweeps.every((s: { awaiting_sweep: number }) => s.awaiting_sweep === 0)
            )
          }
          await mineUntil(d, settled, (done) => done, "every movement confirmed")
          await d.anvil.client.mine({ blocks: d.confirmations + 1 })
          await mineUntil(
            d,
            reconcile,
            (runs) => runs.length === 1 && runs[0]!.error === null && runs[0]!.differences.length === 0,
            "a clean reconciliation"
          )

          // 5 USDC straight into the hot wallet: mined and not yet deep, no difference (the hot wallet
          // is read at the depth the books follow); then one difference of exactly that, until recorded
          await Effect.runPromise(
            Erc20.transfer(d.anvil.client, d.anvil.account(1), d.usdc, d.hotWallet, usdcUnits("5"))
          )
          const [shallow] = await reconcile()
          assert.deepStrictEqual([shallow!.error, shallow!.differences], [null, []])
          await d.anvil.client.mine({ blocks: d.confirmations + 1 })
          const [run] = await reconcile()
          assert.deepStrictEqual(
            run!.differences.map((x) => [x.wallet, x.currency, usdcUnits(x.difference)]),
            [["hot_wallet", "USDC", usdcUnits("5")]]
          )
          const status = (await d.operator("/operator/v1/status")).json
          assert.isTrue(status.degraded)
          assert.isTrue(status.alerts.some((a: { kind: string }) => a.kind === "reconciliation_differences"))
          // the gauge, sampled on a scrape: one USDC difference on the chain, 0 once recorded
          const gauge = async () =>
            (await d.operator("/metrics")).text
              .split("\n")
              .filter((line) => line.startsWith("ratelock_reconciliation_differences{"))
              .filter((line) => line.includes('chain="ethereum"') && line.includes('token="USDC"'))
              .map((line) => line.split(" ").at(-1))
          assert.deepStrictEqual(await gauge(), ["1"])
          await recordInflow(d, "USDC", "5", "unmatched")
          const [clean] = await reconcile()
          assert.deepStrictEqual(clean!.differences, [])
          assert.deepStrictEqual(await gauge(), ["0"])

          // the treasury view: today's sweeps and the refund
          const view = (await d.operator("/operator/v1/treasury?environment=production")).json
          const row = view.sweeps.find(
            (s: { chain: string; token: string }) => s.chain === "ethereum" && s.token === "USDC"
          )
          assert.strictEqual(usdcUnits(row.swept_today), totals[0]! + totals[1]!)
          assert.strictEqual(usdcUnits(row.refunded_today), usdcUnits(first!.deposit_amount!))
          assert.strictEqual(usdcUnits(row.treasury_balance), cold)
        }
      )
  )
})
