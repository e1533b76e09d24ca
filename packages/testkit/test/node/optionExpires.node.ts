import assert from "node:assert/strict"
import { after, test } from "node:test"
import { createRatelock } from "@ratelock/testkit/promise"

const ratelock = await createRatelock()
after(() => ratelock.close())

test("an option nobody exercises expires, with no deposit to forfeit", async () => {
  const contract = await ratelock.activeContract({ contract_type: "option" }, { window: "2 days" })
  assert.equal(contract.deposit_amount, null)

  await ratelock.advance("3 days")

  const expired = await ratelock.webhooks.awaitEvent("contract_expired", contract.id)
  assert.equal(expired.deposit_outcome, null)
  assert.equal(expired.contract.expired_at, contract.window_end)
  assert.equal((await ratelock.lock(contract.id)).status, "expired")
})
