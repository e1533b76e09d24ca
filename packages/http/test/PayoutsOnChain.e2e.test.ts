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
import type { Address } from "viem"
import { type Deployment, deploy, freshDestination, usdcUnits, waitFor } from "./support/onChain.ts"

/** Deploys, runs `body`, and stops every process and drops the database whatever happened. */
const withDeployment = async (
  options: Parameters<typeof deploy>[1],
  body: (d: Deployment) => Promise<void>
): Promise<void> => {
  const d = await deploy(databaseUrl!, options)
  try {
    await body(d)
  } finally {
    await d.stop()
  }
}

/** Mines a block (at `baseFeeGwei` when given, by hand) every `everyMs` until `done`. */
const mineUntil = async <A>(
  d: Deployment,
  read: () => Promise<A>,
  done: (a: A) => boolean,
  what: string,
  options: { readonly baseFeeGwei?: string; readonly everyMs?: number; readonly timeoutMs?: number } = {}
) =>
  waitFor(
    async () => {
      if (options.baseFeeGwei === undefined) await d.anvil.client.mine({ blocks: 1 })
      else await d.mineAt(options.baseFeeGwei)
      return read()
    },
    done,
    what,
    { everyMs: options.everyMs ?? 300, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }
  )

/** The payouts a worker counted as sent (`ratelock_payouts_total{outcome="sent"}` on its operator listener). */
const payoutsSent = async (d: Deployment, operatorPort: number) => {
  const reply = await d.operator("/metrics", `http://127.0.0.1:${operatorPort}`)
  assert.strictEqual(reply.status, 200, reply.text)
  const line = reply.text
    .split("\n")
    .find((l) => l.startsWith("ratelock_payouts_total{") && l.includes('outcome="sent"'))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

/** Paid exactly once: the destination holds the payout's amount, brought by one Transfer. */
const paidOnce = async (d: Deployment, destination: Address, amount: string) => {
  const received = await d.received(destination)
  assert.strictEqual(received.balance, usdcUnits(amount), `the balance of ${destination}`)
  assert.strictEqual(received.transfers, 1, `Transfer logs to ${destination}`)
}

describe.skipIf(databaseUrl === undefined)("payouts on an EVM chain (anvil, PostgreSQL, processes)", () => {
  it(
    "two `ratelock worker` processes, one hot wallet, 20 payouts due at once: 20 settle, 20 distinct nonces, no nonce_conflict",
    { timeout: 240_000 },
    () =>
      withDeployment({ prefix: "ratelock_payouts_nonces" }, async (d) => {
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
        // all 20 and drafts `concurrency` of them; once its lease ran out (2 s) the second claims them
        // too and drafts as many. Released together, both sign the same payouts at once: each
        // allocates a nonce under the wallet's lock, and per payout only the one whose write lands
        // broadcasts
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
          await Promise.all(gates.map((gate) => gate.whenHeld("eth_getTransactionCount", 2 * concurrency)))
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
})
