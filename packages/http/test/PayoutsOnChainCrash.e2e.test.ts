/**
 * A worker SIGKILLed around a payout's replacement, end to end (production on anvil, real
 * PostgreSQL, `ratelock worker` processes): the worker reaches the chain through an RPC gate that
 * holds the replacement's broadcast, so the kill lands at an exact point: after the replacement
 * was persisted and before the chain received it, or right after the chain received and answered
 * it. A worker started again at once finishes the payout: settled once, the customer paid once,
 * the payout row naming the version that was mined. Skipped without `DATABASE_URL`.
 */
import { databaseUrl } from "@ratelock/test-support/Postgres"
import * as RpcGate from "@ratelock/test-support/RpcGate"
import { keccak256 } from "viem"
import { assert, describe, it } from "vitest"
import {
  type Deployment,
  mineUntil,
  type PayoutRow,
  paidOnce,
  payoutInPool,
  versionsOf,
  withDeployment
} from "./support/onChain.ts"

const broadcast = "eth_sendRawTransaction"

/**
 * A payout whose first version is priced out (blocks at 30 gwei against its 3 gwei) while its
 * worker, behind `gate`, goes on re-sending those bytes: every other broadcast is held. Resolves
 * once the replacement is persisted and its broadcast held at the gate.
 */
const replacementHeld = async (d: Deployment, gate: RpcGate.RpcGate) => {
  const { contract, destination, first } = await payoutInPool(d)
  const [v0] = versionsOf(first)
  gate.hold(broadcast, (body) => !body.toLowerCase().includes(v0!.slice(2).toLowerCase()))
  const row = (await mineUntil(
    d,
    () => d.payout(contract.id),
    (p) => p !== undefined && p.replacements >= 1 && gate.held(broadcast).length >= 1,
    "the replacement persisted and its broadcast held",
    { baseFeeGwei: "30", everyMs: 500 }
  ))!
  assert.strictEqual(row.replacements, 1, "one replacement signed")
  const replacement = versionsOf(row)[1]!
  assert.strictEqual(versionsOf(row)[0], v0)
  assert.strictEqual(row.transaction_hash, keccak256(replacement))
  assert.isTrue(
    gate.held(broadcast).every((body) => body.toLowerCase().includes(replacement.slice(2).toLowerCase())),
    "what the gate holds is the replacement's broadcast"
  )
  return { contract, destination, first, replaced: row }
}

/** Mines at 30 gwei (which the replacement covers) until the contract settles; the payout paid once. */
const settlesOnce = async (d: Deployment, contractId: string, destination: `0x${string}`, first: PayoutRow) => {
  await mineUntil(
    d,
    () => d.contractStatus(contractId),
    (status) => status === "settled",
    "the payout to settle after the restart",
    { baseFeeGwei: "30", everyMs: 500 }
  )
  const payout = (await d.payout(contractId))!
  assert.deepInclude(payout, { status: "confirmed", attempts: 0 })
  // the row names the version that was mined: one of its own, not the priced-out first one
  const mined = (await d.transaction(payout.transaction_hash!))!
  assert.isNotNull(mined.blockNumber)
  assert.include(
    versionsOf(payout).map((v) => keccak256(v)),
    payout.transaction_hash
  )
  assert.notStrictEqual(payout.transaction_hash, first.transaction_hash)
  assert.strictEqual(mined.nonce, Number(first.nonce))
  await paidOnce(d, destination, payout.amount)
  assert.strictEqual(await d.hotWalletNonce(), 1, "one transaction from the hot wallet")
  return payout
}

describe.skipIf(databaseUrl === undefined)(
  "a worker SIGKILLed around a payout's replacement (anvil, PostgreSQL)",
  () => {
    it(
      "killed between persisting the replacement and broadcasting it, started again at once: paid once",
      { timeout: 180_000 },
      () =>
        withDeployment(
          databaseUrl!,
          { prefix: "ratelock_payouts_kill_before", env: { RATELOCK_ETHEREUM_REPLACE_AFTER_SECONDS: "2" } },
          async (d) => {
            const gate = await RpcGate.start(d.anvil.url)
            try {
              const gated = { env: { RATELOCK_ETHEREUM_RPC_URL: gate.url } }
              const worker = await d.cluster.startWorker("worker", gated)
              const { contract, destination, first, replaced } = await replacementHeld(d, gate)

              await d.cluster.kill(worker)
              // the held broadcast is dropped unanswered: the chain never saw the replacement
              await gate.release(broadcast)
              assert.isNull(await d.transaction(replaced.transaction_hash!))
              await d.cluster.startWorker("worker-again", gated)

              const payout = await settlesOnce(d, contract.id, destination, first)
              // the persisted replacement, sent by the new worker, is what was mined
              assert.strictEqual(payout.transaction_hash, replaced.transaction_hash)
            } finally {
              await gate.close()
            }
          }
        )
    )

    it(
      "killed right after the chain received and answered the replacement, started again at once: paid once",
      { timeout: 180_000 },
      () =>
        withDeployment(
          databaseUrl!,
          { prefix: "ratelock_payouts_kill_after", env: { RATELOCK_ETHEREUM_REPLACE_AFTER_SECONDS: "2" } },
          async (d) => {
            const gate = await RpcGate.start(d.anvil.url)
            try {
              const gated = { env: { RATELOCK_ETHEREUM_RPC_URL: gate.url } }
              const worker = await d.cluster.startWorker("worker", gated)
              const { contract, destination, first, replaced } = await replacementHeld(d, gate)

              // the replacement goes to the chain and the chain's answer back to the worker (the
              // release resolves once every held call was answered), then the kill
              const held = gate.held(broadcast).length
              await gate.release(broadcast, { forward: true })
              await d.cluster.kill(worker)
              assert.isAtLeast(held, 1)
              const pooled = await d.transaction(replaced.transaction_hash!)
              assert.isNotNull(pooled, "the chain holds the replacement")
              await d.cluster.startWorker("worker-again", gated)

              const payout = await settlesOnce(d, contract.id, destination, first)
              assert.strictEqual(payout.transaction_hash, replaced.transaction_hash)
            } finally {
              await gate.close()
            }
          }
        )
    )
  }
)
