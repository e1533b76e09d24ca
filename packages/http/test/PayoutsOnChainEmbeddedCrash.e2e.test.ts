/**
 * The service SIGKILLed around a payout's replacement on its embedded store, end to end
 * (production on anvil, `pnpm start`'s one process running the API and the workers on a fresh data
 * directory, never `DATABASE_URL`): the service reaches the chain through an RPC gate that holds
 * the replacement's broadcast, so the kill lands at an exact point: after the replacement was
 * persisted and before the chain received it, or right after the chain received and answered it.
 * Started again at once on the same data directory (the dead process's lock on it went with it),
 * it finishes the payout: settled once, the customer paid once (one Transfer), the hot wallet's one
 * transaction, and the payout naming the version that was mined, as the operator API shows it
 * while the service runs and `ratelock payouts show` once it stopped.
 */
import * as RpcGate from "@ratelock/test-support/RpcGate"
import { type Hex, keccak256 } from "viem"
import { assert, describe, it } from "vitest"
import { openEmbedded } from "./support/crash/embeddedDatabase.ts"
import {
  type EmbeddedDeployment,
  mineUntil,
  type PayoutDetail,
  paidOnce,
  payoutInPool,
  withEmbeddedDeployment
} from "./support/onChain.ts"

const broadcast = "eth_sendRawTransaction"

/** Generous on a loaded machine: every wait polls, none is timed. */
const patience = { timeoutMs: 150_000 }

/** The hashes of the signed transactions a JSON-RPC request body broadcasts (one call or a batch). */
const broadcastHashes = (body: string): ReadonlyArray<string> => {
  const parsed = JSON.parse(body) as unknown
  const calls = (Array.isArray(parsed) ? parsed : [parsed]) as ReadonlyArray<{
    readonly method?: string
    readonly params?: ReadonlyArray<unknown>
  }>
  return calls.filter((c) => c.method === broadcast).map((c) => keccak256(c.params![0] as Hex))
}

const hashesOf = (payout: PayoutDetail) => payout.versions.map((v) => v.transaction_hash)

/**
 * A payout whose first version is priced out (blocks at 30 gwei against its 3 gwei) while the
 * service, behind `gate`, goes on re-sending it: every other broadcast is held. Resolves once the
 * replacement is persisted (the operator API shows it) and its broadcast held at the gate.
 */
const replacementHeld = async (d: EmbeddedDeployment, gate: RpcGate.RpcGate) => {
  const { contract, destination, first } = await payoutInPool(d)
  assert.strictEqual(first.replacements, 0)
  const v0 = first.transaction_hash!
  assert.deepStrictEqual(hashesOf(first), [v0])
  gate.hold(broadcast, (body) => broadcastHashes(body).some((hash) => hash !== v0))
  const shown = (await mineUntil(
    d,
    () => d.payout(contract.id),
    (p) => p !== undefined && p.replacements >= 1 && gate.held(broadcast).length >= 1,
    "the replacement persisted and its broadcast held",
    { baseFeeGwei: "30", everyMs: 500, ...patience }
  ))!
  assert.strictEqual(shown.replacements, 1, "one replacement signed")
  assert.strictEqual(shown.chain_error, null)
  const [first0, replacement] = hashesOf(shown)
  assert.strictEqual(first0, v0)
  assert.isDefined(replacement)
  assert.strictEqual(shown.transaction_hash, replacement, "the payout names its replacement")
  assert.isTrue(
    gate.held(broadcast).every((body) => broadcastHashes(body).every((hash) => hash === replacement)),
    "what the gate holds is the replacement's broadcast"
  )
  return { contract, destination, first, replaced: shown }
}

/**
 * Mines at 30 gwei (which the replacement covers) until the contract settles: the payout paid once,
 * from the hot wallet's one transaction, the payout naming it (the operator API while the service
 * runs; `ratelock payouts show` and the store itself once it stopped).
 */
const settlesOnce = async (
  d: EmbeddedDeployment,
  contractId: string,
  destination: `0x${string}`,
  first: PayoutDetail
) => {
  await mineUntil(
    d,
    () => d.contractStatus(contractId),
    (status) => status === "settled",
    "the payout to settle after the restart",
    { baseFeeGwei: "30", everyMs: 500, ...patience }
  )
  const payout = (await d.payout(contractId))!
  assert.deepInclude(payout, { status: "confirmed", attempts: 0 })
  assert.isAtLeast(payout.replacements, 1)
  // the payout names the version that was mined: one of its own, not the priced-out first one
  const mined = (await d.transaction(payout.transaction_hash!))!
  assert.isNotNull(mined.blockNumber)
  assert.include(hashesOf(payout), payout.transaction_hash)
  assert.notStrictEqual(payout.transaction_hash, first.transaction_hash)
  assert.strictEqual(mined.nonce, first.nonce)
  assert.strictEqual(payout.nonce, first.nonce)
  assert.isNull(await d.transaction(first.transaction_hash!).then((tx) => tx?.blockNumber ?? null))
  await paidOnce(d, destination, payout.amount)
  assert.strictEqual(await d.hotWalletNonce(), 1, "one transaction from the hot wallet")

  // stopped, the data directory is the CLI's: the same payout, as the operator reads it there
  await d.halt()
  const shown: PayoutDetail = await d.ratelock("payouts", "show", contractId)
  assert.deepInclude(shown, {
    status: "confirmed",
    attempts: 0,
    transaction_hash: payout.transaction_hash,
    nonce: first.nonce,
    replacements: payout.replacements
  })
  assert.deepStrictEqual(hashesOf(shown), hashesOf(payout))
  // and the store: one payout for the contract, the partner told once that it settled, never that it failed
  const db = openEmbedded(d.dataDir)
  try {
    const payouts = await db.query<{ readonly n: string }>(
      (sql) => sql`SELECT count(*)::text AS n FROM payouts WHERE contract_id = ${contractId}`
    )
    assert.strictEqual(payouts[0]!.n, "1")
    const events = await db.query<{ readonly event_type: string }>(
      (sql) => sql`SELECT event_type FROM webhook_events
        WHERE contract_id = ${contractId} AND event_type IN ('payout_settled', 'payout_failed')`
    )
    assert.deepStrictEqual(
      events.map((e) => e.event_type),
      ["payout_settled"]
    )
  } finally {
    await db.close()
  }
  return payout
}

describe("the service SIGKILLed around a payout's replacement (anvil, embedded store, pnpm start)", () => {
  it(
    "killed between persisting the replacement and broadcasting it, started again at once: paid once",
    { timeout: 400_000 },
    () =>
      withEmbeddedDeployment({ env: { RATELOCK_ETHEREUM_REPLACE_AFTER_SECONDS: "2" } }, async (d) => {
        const gate = await RpcGate.start(d.anvil.url)
        try {
          const gated = { RATELOCK_ETHEREUM_RPC_URL: gate.url }
          await d.start(gated)
          const { contract, destination, first, replaced } = await replacementHeld(d, gate)

          await d.kill()
          // the held broadcast is dropped unanswered: the chain never saw the replacement
          await gate.release(broadcast)
          assert.isNull(await d.transaction(replaced.transaction_hash!))
          await d.start(gated)

          const payout = await settlesOnce(d, contract.id, destination, first)
          // the persisted replacement, sent by the service started again, is what was mined
          assert.strictEqual(payout.transaction_hash, replaced.transaction_hash)
        } finally {
          await gate.close()
        }
      })
  )

  it(
    "killed right after the chain received and answered the replacement, started again at once: paid once",
    { timeout: 400_000 },
    () =>
      withEmbeddedDeployment({ env: { RATELOCK_ETHEREUM_REPLACE_AFTER_SECONDS: "2" } }, async (d) => {
        const gate = await RpcGate.start(d.anvil.url)
        try {
          const gated = { RATELOCK_ETHEREUM_RPC_URL: gate.url }
          await d.start(gated)
          const { contract, destination, first, replaced } = await replacementHeld(d, gate)

          // the replacement goes to the chain and the chain's answer back to the service (the
          // release resolves once every held call was answered), then the kill
          const held = gate.held(broadcast).length
          await gate.release(broadcast, { forward: true })
          await d.kill()
          assert.isAtLeast(held, 1)
          const pooled = await d.transaction(replaced.transaction_hash!)
          assert.isNotNull(pooled, "the chain holds the replacement")
          await d.start(gated)

          const payout = await settlesOnce(d, contract.id, destination, first)
          assert.strictEqual(payout.transaction_hash, replaced.transaction_hash)
        } finally {
          await gate.close()
        }
      })
  )
})
