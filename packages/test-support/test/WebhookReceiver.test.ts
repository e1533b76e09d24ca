import { assert, describe, it } from "vitest"
import { createHmac } from "node:crypto"
import * as WebhookReceiver from "../src/WebhookReceiver.ts"

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

describe("WebhookReceiver", () => {
  it("records each delivery in arrival order, signed only with the right secret", async () => {
    const receiver = await WebhookReceiver.start()
    try {
      receiver.setSecret(secret)
      const seen: Array<string> = []
      receiver.onDelivery((d) => seen.push(d.eventId))
      const post = (body: string, signature: string) =>
        fetch(receiver.url, {
          method: "POST",
          headers: { "content-type": "application/json", "x-partner-signature": signature },
          body
        })
      const body = (n: number) =>
        JSON.stringify({ event_id: `evt-${n}`, event_type: "funds_received", fx_contract_id: "c-1", sequence: n })
      const sign = (text: string) => createHmac("sha256", secret).update(text).digest("hex")
      assert.strictEqual((await post(body(1), sign(body(1)))).status, 200)
      assert.strictEqual((await post(body(2), sign(body(1)))).status, 200)
      assert.deepStrictEqual(
        receiver.deliveries.map((d) => [d.index, d.eventId, d.sequence, d.signed]),
        [
          [0, "evt-1", 1, true],
          [1, "evt-2", 2, false]
        ]
      )
      assert.deepStrictEqual(seen, ["evt-1", "evt-2"])
      assert.strictEqual(receiver.byEvent.get("evt-1")?.length, 1)
    } finally {
      await receiver.close()
    }
  })

  it("signatureMatches: hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes", () => {
    const body = '{"a":1}'
    const good = createHmac("sha256", Buffer.from(secret, "utf8")).update(body, "utf8").digest("hex")
    assert.isTrue(WebhookReceiver.signatureMatches(secret, body, good))
    assert.isTrue(WebhookReceiver.signatureMatches(secret, Buffer.from(body), good))
    assert.isFalse(WebhookReceiver.signatureMatches(secret, '{"a":2}', good))
    assert.isFalse(WebhookReceiver.signatureMatches(`${secret}x`, body, good))
    assert.isFalse(WebhookReceiver.signatureMatches(secret, body, good.slice(2)))
    assert.isFalse(WebhookReceiver.signatureMatches(undefined, body, good))
    assert.isFalse(WebhookReceiver.signatureMatches(secret, body, undefined))
  })
})
