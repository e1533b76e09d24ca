/**
 * `ratelock funds unmatched`: what the funding worker recorded for refund, as the operator reads
 * it (JSON records and text), on the e2e server's memory store.
 */
import { assert, layer } from "@effect/vitest"
import { ContractRepo, UnmatchedFunds } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import * as Format from "../src/internal/operatorFormat.ts"

import { createContract } from "./support/lifecycle.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

layer(serverLayer({ store: "memory" }), { excludeTestServices: true })("UnmatchedFunds", (it) => {
  it.effect("lists recorded transfers oldest first, per contract, as records and as text", () =>
    Effect.gen(function* () {
      const { baseUrl, a: partner } = yield* TestServer
      const { contract } = yield* createContract(baseUrl, partner.sandbox)
      const { contract: other } = yield* createContract(baseUrl, partner.sandbox)
      const repo = yield* ContractRepo.ContractRepo
      const now = yield* DateTime.now
      const record = (contractId: string, hash: string, seconds: number): ContractRepo.UnmatchedTransfer => ({
        contractId,
        partnerId: partner.id,
        environment: "sandbox",
        chain: "polygon",
        transactionHash: hash,
        index: 0,
        blockNumber: 7,
        token: "USDC",
        amount: "1.234567",
        unit: "token",
        reason: "not_awaiting_funds",
        contractStatus: "active",
        observedAt: DateTime.add(now, { seconds })
      })
      yield* repo.recordUnmatchedTransfer(record(contract.id, "0xbb", 2))
      yield* repo.recordUnmatchedTransfer(record(other.id, "0xaa", 1))

      const all = yield* UnmatchedFunds.list({ limit: 10 })
      assert.deepStrictEqual(
        all.map((t) => [t.fx_contract_id, t.transaction_hash, t.amount, t.reason]),
        [
          [other.id, "0xaa", "1.234567", "not_awaiting_funds"],
          [contract.id, "0xbb", "1.234567", "not_awaiting_funds"]
        ]
      )
      const mine = yield* UnmatchedFunds.list({ contractId: contract.id, limit: 10 })
      assert.deepStrictEqual(
        mine.map((t) => t.transaction_hash),
        ["0xbb"]
      )
      const text = Format.unmatchedFunds({ items: mine })
      assert.include(text, `polygon 0xbb #0`)
      assert.include(text, "1.234567 USDC")
      assert.include(text, `${contract.id} (active, sandbox)`)
      assert.strictEqual(Format.unmatchedFunds({ items: [] }), "No unmatched funds.")
    })
  )
})
