/**
 * Payouts that never stall, end to end: production on anvil (a solc-compiled USDC, a partner made
 * with the CLI, fresh market data), real PostgreSQL, the API and `ratelock worker` as separate
 * processes. Many payouts due at once from one hot wallet across two workers: one nonce each, all
 * paid once. A payout priced out block after block (automine off, the base fee set before each
 * block): replaced at its nonce, paid once. Above the operator's fee cap: it waits, shown stuck
 * (`fee_cap`), never failed, and lands once the fee falls. Skipped without `DATABASE_URL`.
 */
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { freePort } from "@ratelock/test-support/Processes"
import * as RpcGate from "@ratelock/test-support/RpcGate"
import { assert, describe, it } from "vitest"
import { parseGwei } from "viem"
import {
  type Deployment,
  freshDestination,
  mineUntil,
  paidOnce,
  payoutInPool,
  sleep,
  withDeployment
} from "./support/onChain.ts"

interface PayoutView {
  readonly contract_id: string
  readonly status: string
  readonly waiting: string | null
  readonly stuck: boolean
  readonly attempts: number
}

/** The payouts a worker counted as sent (`ratelock_payouts_total{outcome="sent"}` on its operator listener). */
const payoutsSent = async (d: Deployment, operatorPort: number) => {
  const reply = await d.operator("/metrics", `http://127.0.0.1:${operatorPort}`)
  assert.strictEqual(reply.status, 200, reply.text)
  const line = reply.text
    .split("\n")
    .find((l) => l.startsWith("ratelock_payouts_total{") && l.includes('outcome="sent"'))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

describe.skipIf(databaseUrl === undefined)("payouts on an EVM chain (anvil, PostgreSQL, processes)", () => {
  it(
    "two `ratelock worker` processes, one hot wallet, 20 payouts due at once: 20 settle, 20 distinct nonces, no nonce_conflict",
    { timeout: 240_000 },
    () =>
      withDeployment(databaseUrl!, { prefix: "ratelock_payouts_nonces" }, async (d) => {
        const count = 20
        // funded and activated by a worker, which then stops: the 20 exercises find no worker
        const funding = await d.cluster.startWorker("funding-worker")
        const contracts = await d.activeContracts(count)
        await d.cluster.kill(funding)
        const destinations = contracts.map(() => freshDestination())
        await Promise.all(contracts.map((c, i) => d.exercise(c.id, destinations[i]!)))

        // two workers at once over the same due payouts and the same hot wallet, each through a gate.
        // The gates hold both at start (their first call, the chain id) and let them go together;
        // then they hold the reads of the wallet's nonce a draft starts with. The first worker claims
        // all 20 and drafts the first of them (a worker drafts one rail's payouts in turn, each
        // counting what the wallet already owes); once its lease ran out (2 s) the second claims them
        // too and drafts the same one. Released together, both sign it at once: each allocates a
        // nonce under the wallet's lock, and only the one whose write lands broadcasts; the other
        // nineteen race the same way, one after another
        const concurrency = 10
        const gates = await Promise.all([RpcGate.start(d.anvil.url), RpcGate.start(d.anvil.url)])
        const metricsPorts = await Promise.all([freePort(), freePort()])
        for (const gate of gates) {
          gate.hold("eth_chainId")
          gate.hold("eth_getTransactionCount")
        }
        await Promise.all(
          gates.map((gate, i) =>
            d.cluster.startWorker(`worker-${i}`, {
              env: {
                RATELOCK_ETHEREUM_RPC_URL: gate.url,
                RATELOCK_OPERATOR_PORT: String(metricsPorts[i]),
                RATELOCK_WORKER_CONCURRENCY: String(concurrency)
              }
            })
          )
        )
        try {
          await Promise.all(gates.map((gate) => gate.whenHeld("eth_chainId")))
          await Promise.all(gates.map((gate) => gate.release("eth_chainId", { forward: true })))
          // a draft reads the nonce twice (latest and pending)
          await Promise.all(gates.map((gate) => gate.whenHeld("eth_getTransactionCount", 2)))
          await Promise.all(gates.map((gate) => gate.release("eth_getTransactionCount", { forward: true })))
          const ids = contracts.map((c) => c.id)
          await mineUntil(
            d,
            () => Promise.all(ids.map(d.contractStatus)),
            (statuses) => statuses.every((s) => s === "settled"),
            "every contract to settle",
            { timeoutMs: 150_000 }
          )

          const payouts = await Promise.all(ids.map(async (id) => (await d.payout(id))!))
          for (const [i, p] of payouts.entries()) {
            assert.strictEqual(p.status, "confirmed", JSON.stringify(p))
            assert.strictEqual(p.destination, destinations[i])
            assert.strictEqual(p.attempts, 0, `no failed attempt: ${JSON.stringify(p)}`)
            assert.notMatch(p.last_error ?? "", /nonce/i, JSON.stringify(p))
            await paidOnce(d, destinations[i]!, p.amount)
          }
          // one transaction per payout, each at a nonce of its own: 0 to 19
          assert.strictEqual(await d.hotWalletNonce(), count)
          const mined = await Promise.all(payouts.map((p) => d.transaction(p.transaction_hash!)))
          const nonces = mined.map((tx) => tx!.nonce).sort((a, b) => a - b)
          assert.deepStrictEqual(
            nonces,
            Array.from({ length: count }, (_, i) => i)
          )
          assert.isTrue(mined.every((tx) => tx!.blockNumber !== null))
          assert.deepStrictEqual(
            payouts.map((p) => Number(p.nonce)).sort((a, b) => a - b),
            nonces,
            "each row's nonce is its transaction's"
          )
          // the store handed out those nonces, once each, to those payouts
          const held = await d.db.query<{ readonly nonce: string; readonly holder: string }>(
            (sql) => sql`SELECT nonce::text, holder FROM hot_wallet_nonces ORDER BY hot_wallet_nonces.nonce`
          )
          assert.deepStrictEqual(
            held.map((h) => [Number(h.nonce), h.holder]),
            payouts.map((p) => [Number(p.nonce), `payout:${p.id}`]).sort((a, b) => Number(a[0]) - Number(b[0]))
          )
          // each payout was broadcast as sent by one worker: the workers' counts add up to 20
          const sent = await Promise.all(metricsPorts.map((port) => payoutsSent(d, port)))
          console.log(`20 payouts on one hot wallet: sent by the two workers ${sent.join(" + ")}`)
          assert.strictEqual(sent[0]! + sent[1]!, count)
        } finally {
          await Promise.all(gates.map((gate) => gate.close()))
        }
      })
  )

  it(
    "automine off, the base fee held far above a payout's max fee block after block: replaced at its nonce, mined, paid once",
    { timeout: 180_000 },
    () =>
      withDeployment(
        databaseUrl!,
        { prefix: "ratelock_payouts_replaced", env: { RATELOCK_ETHEREUM_REPLACE_AFTER_SECONDS: "2" } },
        async (d) => {
          await d.cluster.startWorker("worker")
          const { contract, destination, first } = await payoutInPool(d)
          assert.strictEqual(first.replacements, 0)
          // 30 gwei before each block: the first version (3 gwei) can never be mined
          // the contract settles, then the payout is marked confirmed: wait for both (one read of each
          // between the two would see a settled contract beside a payout not yet marked)
          const settled = await mineUntil(
            d,
            async () => [await d.contractStatus(contract.id), (await d.payout(contract.id))?.status] as const,
            ([status, payout]) => status === "settled" && payout === "confirmed",
            "the replaced payout to settle and be confirmed",
            { baseFeeGwei: "30", everyMs: 500 }
          )
          assert.deepStrictEqual(settled, ["settled", "confirmed"])

          const payout = (await d.payout(contract.id))!
          assert.strictEqual(payout.status, "confirmed")
          assert.isAtLeast(payout.replacements, 1)
          assert.strictEqual(payout.attempts, 0, JSON.stringify(payout))
          assert.notStrictEqual(payout.transaction_hash, first.transaction_hash, "the first version was mined")
          const mined = (await d.transaction(payout.transaction_hash!))!
          assert.isNotNull(mined.blockNumber, "the payout's transaction is the one mined")
          assert.isNull(await d.transaction(first.transaction_hash!).then((tx) => tx?.blockNumber ?? null))
          // the operator sees every version at the payout's one nonce
          const shown = await d.ratelock("payouts", "show", contract.id)
          assert.isAtLeast(shown.versions.length, 2)
          assert.strictEqual(shown.versions[0].transaction_hash, first.transaction_hash)
          // replaced once the replace-after time (2 s) had passed, not before
          const [v0, v1] = shown.versions.map((v: { signed_at: string }) => Date.parse(v.signed_at))
          assert.isAtLeast(v1 - v0, 2_000)
          assert.include(
            shown.versions.map((v: { transaction_hash: string }) => v.transaction_hash),
            payout.transaction_hash
          )
          assert.deepStrictEqual(
            [...new Set(shown.versions.map((v: { nonce: number }) => v.nonce))],
            [Number(payout.nonce)]
          )
          assert.strictEqual(mined.nonce, Number(payout.nonce))
          await paidOnce(d, destination, payout.amount)
          assert.strictEqual(await d.hotWalletNonce(), 1)
        }
      )
  )

  it(
    "the base fee above the cap: the payout waits (fee_cap, stuck), never fails; the fee falls and it lands once",
    { timeout: 180_000 },
    () =>
      withDeployment(
        databaseUrl!,
        {
          prefix: "ratelock_payouts_capped",
          env: { RATELOCK_ETHEREUM_REPLACE_AFTER_SECONDS: "2", RATELOCK_ETHEREUM_MAX_FEE_GWEI: "4" }
        },
        async (d) => {
          await d.cluster.startWorker("worker")
          const { contract, destination } = await payoutInPool(d)
          // 30 gwei: the chain asks 61 gwei; one replacement at the cap (4 gwei), then nothing more to sign
          const stuck = await mineUntil(
            d,
            () => d.payout(contract.id),
            (p) => p?.waiting === "fee_cap",
            "the payout to wait on the fee cap",
            { baseFeeGwei: "30", everyMs: 500 }
          )
          assert.strictEqual(stuck!.status, "prepared")
          assert.strictEqual(stuck!.replacements, 1)

          // the operator finds it among the stuck payouts, by the CLI and by the operator API
          const listed = (await d.ratelock("payouts", "list", "--status", "stuck")) as {
            items: ReadonlyArray<PayoutView>
          }
          const byCli = listed.items.find((p) => p.contract_id === contract.id)
          assert.deepInclude(byCli, { status: "prepared", waiting: "fee_cap", stuck: true, attempts: 0 })
          const reply = await d.operator("/operator/v1/payouts?status=stuck")
          assert.strictEqual(reply.status, 200, reply.text)
          const byApi = (reply.json.items as ReadonlyArray<PayoutView>).find((p) => p.contract_id === contract.id)
          assert.deepInclude(byApi, { status: "prepared", waiting: "fee_cap", stuck: true, attempts: 0 })

          // blocks go on at 30 gwei: still waiting, never failed
          await d.mineAt("30", 4)
          await sleep(1_000)
          const waiting = (await d.payout(contract.id))!
          assert.deepInclude(waiting, { status: "prepared", waiting: "fee_cap", attempts: 0 })
          assert.strictEqual(await d.contractStatus(contract.id), "exercised")

          // the fee falls: the version at the cap is sent again and mined
          await mineUntil(
            d,
            () => d.contractStatus(contract.id),
            (status) => status === "settled",
            "the payout to land once the fee fell",
            { baseFeeGwei: "1", everyMs: 500 }
          )
          const payout = (await d.payout(contract.id))!
          assert.deepInclude(payout, { status: "confirmed", attempts: 0 })
          const mined = await d.anvil.client.getTransaction({ hash: payout.transaction_hash as `0x${string}` })
          assert.isTrue(mined.maxFeePerGas! <= parseGwei("4"), "no version pays above the cap")
          // the partner heard of the payout once, when it landed: never that it failed
          const events = await d.db.query<{ readonly event_type: string }>(
            (sql) => sql`SELECT event_type FROM webhook_events
              WHERE contract_id = ${contract.id} AND event_type IN ('payout_settled', 'payout_failed')`
          )
          assert.deepStrictEqual(
            events.map((e) => e.event_type),
            ["payout_settled"]
          )
          await paidOnce(d, destination, payout.amount)
          assert.strictEqual(await d.hotWalletNonce(), 1)
        }
      )
  )
})
