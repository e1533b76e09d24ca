/**
 * Steps of a contract's life for end-to-end tests: through the API where the partner acts, and
 * through core's worker programs (funding, payouts) where the service would, on the same store.
 */
import { Funding, Money, Payouts } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import { SimulatedChain } from "@ratelock/adapters-chain"
import { newKey, quoteBody, request } from "./http.ts"
import type { Key, Provided } from "./server.ts"

export const createQuote = Effect.fnUntraced(function* (
  baseUrl: string,
  key: Key,
  overrides: Record<string, unknown> = {}
) {
  const reply = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", { key, body: yield* quoteBody(overrides) })
  if (reply.status !== 201) return yield* Effect.die(new Error(`quote: ${reply.status} ${reply.text}`))
  return reply.json
})

/** A quote turned into a contract at once (the test server's quotes may live only a second). */
export const createContract = Effect.fnUntraced(function* (
  baseUrl: string,
  key: Key,
  overrides: Record<string, unknown> = {}
) {
  const quote = yield* createQuote(baseUrl, key, overrides)
  const reply = yield* request(baseUrl, "POST", "/api/v1/fx/contracts", {
    key,
    body: { quote_id: quote.id, partner_transaction_reference: "ptx-1" }
  })
  if (reply.status !== 201) return yield* Effect.die(new Error(`contract: ${reply.status} ${reply.text}`))
  return { quote, contract: reply.json }
})

/** The sandbox chain sees the full amount at the funding address; the funding pass activates the contract. */
export const activate = (contract: {
  chain: "solana" | "ethereum" | "polygon"
  settlement_currency: "USDC" | "USDT" | "EURC"
  funding_wallet_address: string
  total_amount: string
}): Effect.Effect<void, never, Provided> =>
  Effect.gen(function* () {
    const chain = yield* SimulatedChain.SimulatedChain
    const rail = { chain: contract.chain, environment: "sandbox" as const, token: contract.settlement_currency }
    yield* chain.fund(rail, contract.funding_wallet_address, Money.unsafe(contract.total_amount))
    yield* Funding.confirmFunding()
  }).pipe(Effect.orDie)

export const exercise = (baseUrl: string, key: Key, contractId: string, overrides: Record<string, unknown> = {}) =>
  Effect.flatMap(DateTime.now, (now) =>
    request(baseUrl, "POST", "/api/v1/fx/webhooks/inbound", {
      key,
      headers: { "Idempotency-Key": newKey() },
      body: {
        event_type: "contract_exercised",
        fx_contract_id: contractId,
        executed_at: DateTime.formatIso(now),
        live_execution_rate: "5.0",
        payout_wallet_address: "0x1111111111111111111111111111111111111111",
        chain: "polygon",
        ...overrides
      }
    })
  )

/** Payout passes until the payout is settled: prepare and broadcast, then confirm. */
export const settle: Effect.Effect<void, never, Provided> = Effect.andThen(Payouts.runDue(), Payouts.runDue()).pipe(
  Effect.asVoid,
  Effect.orDie
)
