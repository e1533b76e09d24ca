import { createRatelock, type RatelockHarness } from "@ratelock/testkit/promise"
import { afterEach, beforeEach, expect, test } from "vitest"

// The integrator's own code: it reports the customer's transaction to Ratelock over HTTP.
async function reportExercise(
  api: { baseUrl: string; fetch: typeof fetch; headers: Record<string, string> },
  exercise: { contractId: string; rate: string; wallet: string; at: string }
) {
  const response = await api.fetch(`${api.baseUrl}/api/v1/fx/webhooks/inbound`, {
    method: "POST",
    headers: {
      ...api.headers,
      "content-type": "application/json",
      "idempotency-key": `exercise-${exercise.contractId}`
    },
    body: JSON.stringify({
      event_type: "contract_exercised",
      fx_contract_id: exercise.contractId,
      executed_at: exercise.at,
      live_execution_rate: exercise.rate,
      payout_wallet_address: exercise.wallet,
      chain: "polygon"
    })
  })
  if (!response.ok) throw new Error(`exercise refused: ${response.status} ${await response.text()}`)
  return (await response.json()) as { webhook_event_id: string; status: string }
}

let ratelock: RatelockHarness
beforeEach(async () => {
  ratelock = await createRatelock()
})
afterEach(() => ratelock.close())

test("an option exercised below its locked rate is paid the difference", async () => {
  // an option on 10,000 USD locked at 5.41 BRL per USD, funded and active
  const contract = await ratelock.activeContract({ contract_type: "option", notional_amount: "10000" })
  expect(contract.locked_rate).toBe("5.4100")

  // the customer transacts at 5.10: our code reports it
  const api = { baseUrl: ratelock.baseUrl, fetch: ratelock.fetch as typeof fetch, headers: ratelock.headers() }
  const wallet = "0x2222222222222222222222222222222222222222"
  const ack = await reportExercise(api, { contractId: contract.id, rate: "5.10", wallet, at: await ratelock.now() })
  expect(ack.status).toBe("queued")

  // 10,000 × (5.41 − 5.10) = 3,100 BRL, paid in USDC at 5.10
  const settled = await ratelock.webhooks.awaitEvent("payout_settled", contract.id)
  expect(settled.payout).toMatchObject({ status: "settled", amount: "607.843137", currency: "USDC" })
  expect(settled.payout.destination_wallet_address).toBe(wallet)
  expect(settled.contract?.fx_delta_in_quote_currency).toBe("3100.0000")
  expect((await ratelock.lock(contract.id)).status).toBe("settled")
})
