import { afterEach, beforeEach, describe, expect, test } from "vitest"
import { ApiFailure, createRatelock, type RatelockHarness } from "../src/promise.ts"

describe("the promise façade", () => {
  let ratelock: RatelockHarness
  beforeEach(async () => {
    ratelock = await createRatelock()
  })
  afterEach(() => ratelock.close())

  test("wire JSON in and out, the clock and the workers", async () => {
    expect(await ratelock.now()).toBe("2026-01-05T09:00:00.000Z")
    const quote = await ratelock.quote({ contract_type: "forward" }, { window: "10 days" })
    expect(quote.status).toBe("created")
    expect(typeof quote.premium_amount).toBe("string")
    expect(quote.window_end).toBe("2026-01-15T09:00:00.000Z")
    const contract = await ratelock.contract({ customer_reference_id: "c-promise" })
    await ratelock.fund(contract.id)
    expect((await ratelock.lock(contract.id)).status).toBe("quote_created")
    await ratelock.runWorkers()
    expect((await ratelock.lock(contract.id)).status).toBe("active")
    const [received] = await ratelock.webhooks.events(contract.id)
    expect(received).toMatchObject({ event_type: "funds_received", fx_contract_id: contract.id, sequence: 1 })
    await ratelock.advance("2 hours")
    expect(await ratelock.now()).toBe("2026-01-05T11:00:00.000Z")
  })

  test("a refused call rejects with an ApiFailure", async () => {
    const contract = await ratelock.activeContract()
    const refusal = ratelock.exercise(contract.id, "5.10", { chain: "solana" })
    await expect(refusal).rejects.toBeInstanceOf(ApiFailure)
    await expect(refusal).rejects.toMatchObject({ status: 409, code: "contract_mismatch" })
  })

  test("fetch with the partner's headers, and the request builders", async () => {
    const body = await ratelock.requests.quote({ notional_amount: "2500" })
    const response = await ratelock.fetch("/api/v1/fx/quotes", {
      method: "POST",
      headers: { ...ratelock.headers(), "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    expect(response.status).toBe(201)
    expect(((await response.json()) as { status: string }).status).toBe("created")
    const production = await ratelock.fetch(`${ratelock.baseUrl}/api/v1/partners/me`, {
      headers: ratelock.headers("production")
    })
    expect(((await production.json()) as { environment: string }).environment).toBe("production")
  })

  test("webhooks: an endpoint down, deliveries, redelivery from the listing", async () => {
    await ratelock.webhooks.respondWith(503)
    const contract = await ratelock.activeContract()
    await ratelock.advance("1 day")
    const attempts = await ratelock.webhooks.deliveries()
    expect(attempts.map((d) => d.status)).toEqual([503, 503, 503, 503, 503, 503, 503])
    expect(attempts[0]?.headers["x-partner-signature"]).toMatch(/^[0-9a-f]{64}$/)
    await ratelock.webhooks.respondWith(200)
    const [record] = await ratelock.webhookEvents({ fx_contract_id: contract.id, direction: "outgoing" })
    expect(record?.status).toBe("failed")
    await ratelock.redeliver(record!.id)
    const received = await ratelock.webhooks.awaitEvent("funds_received", contract.id, { within: 0 })
    expect(received.event_id).toBe(record?.idempotency_key)
    expect(received.funds.amount).toBe(contract.total_amount)
  })

  test("harnesses are independent, and await using closes one", async () => {
    await using other = await createRatelock({ partnerName: "Other" })
    await other.activeContract()
    expect(await ratelock.webhooks.deliveries()).toEqual([])
    expect(other.partner.name).toBe("Other")
    expect(other.partner.sandbox.keyId).toBe(ratelock.partner.sandbox.keyId)
  })
})
