import { createHmac } from "node:crypto"
import { assert, describe, it, layer } from "@effect/vitest"
import { WebhookSignature } from "@ratelock/core"
import { Effect, Layer, Schema } from "effect"
import { SecureRandom } from "effect/crypto"
import { Base64, Hex } from "effect/encoding"
import { TestClock } from "effect/testing"
import { Webhook } from "standardwebhooks"

// Standard Webhooks specification example
const SPEC = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
}
const NEW = "whsec_" + Base64.encode(new Uint8Array(32).fill(7))
const OLD = "whsec_" + Base64.encode(new Uint8Array(32).fill(9))
const OTHER = "whsec_" + Base64.encode(new Uint8Array(32).fill(11))

const nowSeconds = (seconds: number) => TestClock.setTime(seconds * 1000)
const reasonOf = <A, R>(effect: Effect.Effect<A, WebhookSignature.WebhookVerificationError, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)
const signingReasonOf = <A, R>(effect: Effect.Effect<A, WebhookSignature.WebhookSigningError, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)

const flipByte = (bytes: Uint8Array, index: number, mask: number) => {
  const copy = Uint8Array.from(bytes)
  const i = index % copy.length
  copy[i] = (copy[i] ?? 0) ^ ((mask % 255) + 1)
  return copy
}

const secretOf = (bytes: Uint8Array) => "whsec_" + Base64.encode(bytes.length > 0 ? bytes : new Uint8Array([0]))
const EventId = Schema.String.check(Schema.isPattern(/^[\x21-\x7e]{1,40}$/))

layer(WebhookSignature.layerWebCrypto)("WebhookSignature", (it) => {
  describe("known answers", () => {
    it.effect("Standard Webhooks spec example signs to the published signature", () =>
      Effect.gen(function* () {
        const signature = yield* WebhookSignature.standardSignature({
          eventId: SPEC.id,
          timestamp: SPEC.timestamp,
          body: SPEC.body,
          secrets: SPEC.secret
        })
        assert.strictEqual(signature, SPEC.signature)
      })
    )

    it.effect("Standard Webhooks spec example verifies (case-insensitive headers)", () =>
      Effect.gen(function* () {
        yield* nowSeconds(SPEC.timestamp + 10)
        const headers = {
          "Webhook-Id": SPEC.id,
          "WEBHOOK-TIMESTAMP": `${SPEC.timestamp}`,
          "webhook-signature": SPEC.signature
        }
        const body = yield* WebhookSignature.verify({ headers, body: SPEC.body, secrets: SPEC.secret })
        assert.strictEqual(body, SPEC.body)
        const fetchHeaders = new Headers(headers)
        const bytes = new TextEncoder().encode(SPEC.body)
        assert.strictEqual(
          yield* WebhookSignature.verify({ headers: fetchHeaders, body: bytes, secrets: SPEC.secret }),
          bytes
        )
      })
    )

    it.effect("x-partner-signature: RFC 4231 test case 2", () =>
      Effect.gen(function* () {
        const hex = yield* WebhookSignature.partnerSignature("what do ya want for nothing?", "Jefe")
        assert.strictEqual(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
      })
    )

    it.effect("x-partner-signature matches node:crypto, keyed with the whole secret string", () =>
      Effect.gen(function* () {
        const body = '{"event":"lock.created","amount":"1000.00"}'
        const expected = createHmac("sha256", NEW).update(body).digest("hex")
        assert.strictEqual(yield* WebhookSignature.partnerSignature(body, NEW), expected)
        assert.strictEqual(yield* WebhookSignature.partnerSignature(new TextEncoder().encode(body), NEW), expected)
        assert.strictEqual(yield* WebhookSignature.verifyPartnerSignature(body, expected, NEW), body)
        assert.strictEqual(yield* WebhookSignature.verifyPartnerSignature(body, expected.toUpperCase(), NEW), body)
      })
    )
  })

  describe("headers", () => {
    it.effect("builds the full header set; x-partner-signature uses the newest secret", () =>
      Effect.gen(function* () {
        const body = '{"id":"evt_1"}'
        const headers = yield* WebhookSignature.headers({
          eventId: "evt_1",
          body,
          secrets: [NEW, OLD],
          timestamp: 1700000000
        })
        assert.deepStrictEqual(Object.keys(headers).sort(), [
          "content-type",
          "webhook-id",
          "webhook-signature",
          "webhook-timestamp",
          "x-partner-signature"
        ])
        assert.strictEqual(headers["content-type"], "application/json")
        assert.strictEqual(headers["webhook-id"], "evt_1")
        assert.strictEqual(headers["webhook-timestamp"], "1700000000")
        assert.strictEqual(headers["x-partner-signature"], createHmac("sha256", NEW).update(body).digest("hex"))
        const [first, second, ...rest] = headers["webhook-signature"].split(" ")
        assert.strictEqual(rest.length, 0)
        const v1 = (secret: string) =>
          "v1," +
          createHmac("sha256", Buffer.from(secret.slice(6), "base64"))
            .update(`evt_1.1700000000.${body}`)
            .digest("base64")
        assert.strictEqual(first, v1(NEW))
        assert.strictEqual(second, v1(OLD))
      })
    )

    it.effect.prop(
      "what headers writes is what the OutboundHeaders schema (the OpenAPI document's) describes",
      { eventId: EventId, secrets: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3 })) },
      ({ eventId, secrets }) =>
        Effect.gen(function* () {
          const headers = yield* WebhookSignature.headers({
            eventId,
            body: "{}",
            secrets: [NEW, ...[OLD, OTHER].slice(0, secrets - 1)],
            timestamp: 1700000000
          })
          assert.deepStrictEqual(Schema.decodeUnknownSync(WebhookSignature.OutboundHeaders)(headers), headers)
          const isOutbound = Schema.is(WebhookSignature.OutboundHeaders)
          assert.isFalse(
            isOutbound({ ...headers, "x-partner-signature": headers["x-partner-signature"].toUpperCase() })
          )
          assert.isFalse(isOutbound({ ...headers, "webhook-signature": `${headers["webhook-signature"]} ` }))
        })
    )

    it.effect("takes the timestamp from Clock when not given", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(1_700_000_123_999)
        const headers = yield* WebhookSignature.headers({ eventId: "evt_2", body: "{}", secrets: NEW })
        assert.strictEqual(headers["webhook-timestamp"], "1700000123")
      })
    )

    it.effect("rejects malformed event ids, timestamps and secrets", () =>
      Effect.gen(function* () {
        const sign = (input: Partial<WebhookSignature.SignInput>) =>
          signingReasonOf(
            WebhookSignature.headers({ eventId: "evt", body: "{}", secrets: NEW, timestamp: 1, ...input })
          )
        assert.strictEqual(yield* sign({ eventId: "" }), "invalid_event_id")
        assert.strictEqual(yield* sign({ eventId: "evt 1" }), "invalid_event_id")
        assert.strictEqual(yield* sign({ eventId: "evt\r\nx-injected: 1" }), "invalid_event_id")
        assert.strictEqual(yield* sign({ timestamp: -1 }), "invalid_timestamp")
        assert.strictEqual(yield* sign({ timestamp: 1.5 }), "invalid_timestamp")
        assert.strictEqual(yield* sign({ secrets: "whsec_" }), "invalid_secret")
        assert.strictEqual(yield* sign({ secrets: "whsec_not base64!" }), "invalid_secret")
        assert.strictEqual(yield* sign({ secrets: [] as never }), "invalid_secret")
        assert.strictEqual(yield* signingReasonOf(WebhookSignature.partnerSignature("{}", "")), "invalid_secret")
      })
    )
  })

  describe("interoperability with the standardwebhooks library", () => {
    it.effect("our headers verify with Webhook.verify, for each rotated secret", () =>
      Effect.gen(function* () {
        const body = '{"type":"lock.settled","data":{"rate":"1.08315"}}'
        const timestamp = Math.floor(Date.now() / 1000) // the library checks against real time
        const headers = yield* WebhookSignature.headers({ eventId: "evt_x", body, secrets: [NEW, OLD], timestamp })
        const plain: Record<string, string> = { ...headers }
        assert.deepStrictEqual(new Webhook(NEW).verify(body, plain), JSON.parse(body))
        assert.deepStrictEqual(new Webhook(OLD).verify(body, plain), JSON.parse(body))
        assert.throws(() => new Webhook(OTHER).verify(body, plain))
      })
    )

    it.effect("Webhook.sign output verifies with ours", () =>
      Effect.gen(function* () {
        const body = '{"hello":"wörld"}'
        const signature = new Webhook(NEW).sign("msg_1", new Date(1_700_000_000_000), body)
        yield* nowSeconds(1_700_000_000)
        const headers = { "webhook-id": "msg_1", "webhook-timestamp": "1700000000", "webhook-signature": signature }
        assert.strictEqual(yield* WebhookSignature.verify({ headers, body, secrets: [OLD, NEW] }), body)
      })
    )
  })

  describe("verification properties", () => {
    it.effect.prop(
      "sign → verify round-trips for arbitrary bodies, ids and secrets",
      [Schema.Uint8Array, EventId, Schema.Uint8Array, Schema.String],
      ([bytes, eventId, key, text]) =>
        Effect.gen(function* () {
          const secret = secretOf(key)
          yield* nowSeconds(1_700_000_000)
          for (const body of [bytes, text]) {
            const headers = yield* WebhookSignature.headers({ eventId, body, secrets: secret })
            assert.strictEqual(yield* WebhookSignature.verify({ headers, body, secrets: secret }), body)
            const partner = headers["x-partner-signature"]
            assert.strictEqual(yield* WebhookSignature.verifyPartnerSignature(body, partner, secret), body)
          }
        })
    )

    it.effect.prop(
      "flipping any single byte of the body or of a signature fails verification",
      [
        Schema.Uint8Array.check(Schema.isMinLength(1)),
        Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1e6 })),
        Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 254 }))
      ],
      ([body, index, mask]) =>
        Effect.gen(function* () {
          yield* nowSeconds(1_700_000_000)
          const headers = yield* WebhookSignature.headers({ eventId: "evt", body, secrets: NEW })
          const tampered = flipByte(body, index, mask)
          const verify = (h: typeof headers, b: Uint8Array) =>
            reasonOf(WebhookSignature.verify({ headers: h, body: b, secrets: NEW }))
          assert.strictEqual(yield* verify(headers, tampered), "no_matching_signature")
          const tag = Base64.decode(headers["webhook-signature"].slice(3))
          assert.isTrue(tag._tag === "Success")
          if (tag._tag !== "Success") return
          const badSignature = "v1," + Base64.encode(flipByte(tag.success, index, mask))
          assert.strictEqual(
            yield* verify({ ...headers, "webhook-signature": badSignature }, body),
            "no_matching_signature"
          )

          const partner = (b: Uint8Array, hex: string) => reasonOf(WebhookSignature.verifyPartnerSignature(b, hex, NEW))
          assert.strictEqual(yield* partner(tampered, headers["x-partner-signature"]), "no_matching_signature")
          const partnerTag = Hex.decode(headers["x-partner-signature"])
          if (partnerTag._tag !== "Success") return assert.fail("hex")
          assert.strictEqual(
            yield* partner(body, Hex.encode(flipByte(partnerTag.success, index, mask))),
            "no_matching_signature"
          )
        })
    )

    it.effect.prop(
      "timestamp is accepted iff within tolerance",
      [Schema.Int.check(Schema.isBetween({ minimum: -1000, maximum: 1000 }))],
      ([skew]) =>
        Effect.gen(function* () {
          const headers = yield* WebhookSignature.headers({
            eventId: "evt",
            body: "{}",
            secrets: NEW,
            timestamp: 1_700_000_000
          })
          yield* nowSeconds(1_700_000_000 - skew)
          const result = yield* Effect.exit(WebhookSignature.verify({ headers, body: "{}", secrets: NEW }))
          const custom = yield* Effect.exit(
            WebhookSignature.verify({ headers, body: "{}", secrets: NEW, tolerance: "10 seconds" })
          )
          assert.strictEqual(result._tag === "Success", Math.abs(skew) <= 300)
          assert.strictEqual(custom._tag === "Success", Math.abs(skew) <= 10)
        })
    )
  })

  describe("rotation and failures", () => {
    it.effect("either of two rotated secrets verifies; an unrelated one does not", () =>
      Effect.gen(function* () {
        yield* nowSeconds(1_700_000_000)
        const body = "{}"
        const headers = yield* WebhookSignature.headers({ eventId: "evt", body, secrets: [NEW, OLD] })
        for (const secrets of [NEW, OLD, [OLD, NEW] as const, [OTHER, OLD] as const]) {
          assert.strictEqual(yield* WebhookSignature.verify({ headers, body, secrets }), body)
        }
        assert.strictEqual(
          yield* reasonOf(WebhookSignature.verify({ headers, body, secrets: OTHER })),
          "no_matching_signature"
        )
        const partner = headers["x-partner-signature"]
        assert.strictEqual(yield* WebhookSignature.verifyPartnerSignature(body, partner, [OLD, NEW]), body)
        assert.strictEqual(
          yield* reasonOf(WebhookSignature.verifyPartnerSignature(body, partner, OLD)),
          "no_matching_signature"
        )
      })
    )

    it.effect("timestamp boundaries: exactly ±5 minutes passes, one second more fails", () =>
      Effect.gen(function* () {
        const headers = yield* WebhookSignature.headers({
          eventId: "evt",
          body: "{}",
          secrets: NEW,
          timestamp: 1_700_000_000
        })
        const check = (now: number) =>
          Effect.andThen(nowSeconds(now), WebhookSignature.verify({ headers, body: "{}", secrets: NEW }))
        yield* check(1_700_000_300)
        yield* check(1_699_999_700)
        assert.strictEqual(yield* reasonOf(check(1_700_000_301)), "timestamp_too_old")
        assert.strictEqual(yield* reasonOf(check(1_699_999_699)), "timestamp_too_new")
      })
    )

    it.effect("reports each failure with its reason", () =>
      Effect.gen(function* () {
        yield* nowSeconds(SPEC.timestamp)
        const good = {
          "webhook-id": SPEC.id,
          "webhook-timestamp": `${SPEC.timestamp}`,
          "webhook-signature": SPEC.signature
        }
        const verify = (headers: Record<string, string | undefined>, secrets: WebhookSignature.Secrets = SPEC.secret) =>
          reasonOf(WebhookSignature.verify({ headers, body: SPEC.body, secrets }))
        assert.strictEqual(yield* verify({ ...good, "webhook-id": undefined }), "missing_header")
        assert.strictEqual(yield* verify({ ...good, "webhook-timestamp": "" }), "missing_header")
        assert.strictEqual(yield* verify({ "webhook-id": SPEC.id }), "missing_header")
        for (const timestamp of ["abc", "-5", "1.5", "1e9", " 1614265330"]) {
          assert.strictEqual(yield* verify({ ...good, "webhook-timestamp": timestamp }), "invalid_timestamp")
        }
        assert.strictEqual(yield* verify({ ...good, "webhook-id": "msg_other" }), "no_matching_signature")
        assert.strictEqual(yield* verify({ ...good, "webhook-signature": "v2,abc" }), "no_matching_signature")
        assert.strictEqual(yield* verify({ ...good, "webhook-signature": "v1,%%%" }), "no_matching_signature")
        const mixed = { ...good, "webhook-signature": `v1,AAAA v2,xyz  ${SPEC.signature}` }
        assert.strictEqual(
          yield* WebhookSignature.verify({ headers: mixed, body: SPEC.body, secrets: SPEC.secret }),
          SPEC.body
        )
        assert.strictEqual(yield* verify(good, "whsec_"), "invalid_secret")
        assert.strictEqual(yield* verify(good, [SPEC.secret, "whsec_??"]), "invalid_secret")
        assert.strictEqual(yield* reasonOf(WebhookSignature.verifyPartnerSignature("{}", "zz", "")), "invalid_secret")
        assert.strictEqual(
          yield* reasonOf(WebhookSignature.verifyPartnerSignature("{}", "zz", NEW)),
          "no_matching_signature"
        )
      })
    )
  })
})

describe("WebhookSignature.generateSecret", () => {
  it.effect("is whsec_ + base64 of 32 bytes drawn from SecureRandom", () =>
    Effect.gen(function* () {
      const fixed = SecureRandom.make((size) => Uint8Array.from({ length: size }, (_, i) => i))
      const secret = yield* Effect.provide(
        WebhookSignature.generateSecret,
        Layer.succeed(SecureRandom.SecureRandom, fixed)
      )
      assert.strictEqual(secret, "whsec_" + Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString("base64"))

      const [a, b] = yield* Effect.provide(
        Effect.all([WebhookSignature.generateSecret, WebhookSignature.generateSecret]),
        SecureRandom.layerWebCrypto
      )
      assert.notStrictEqual(a, b)
      assert.strictEqual(Buffer.from(a.slice(6), "base64").length, 32)
      assert.doesNotThrow(() => new Webhook(a))
    })
  )
})
