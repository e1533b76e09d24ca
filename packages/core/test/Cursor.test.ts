import { assert, describe, it } from "@effect/vitest"
import { Cursor } from "@ratelock/core"
import { Cause, DateTime, Effect, Exit, Schema } from "effect"
import { Base64Url } from "effect/encoding"

const position: Cursor.Position = { createdAt: "2024-05-01T12:00:00.123Z", id: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" }
const raw = (payload: unknown) => Base64Url.encode(JSON.stringify(payload))
const Millis = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 253402300799999 })) // up to 9999-12-31
const Uuid = Schema.String.check(Schema.isUUID())
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

const toPosition = (millis: number, id: string): Cursor.Position => ({
  createdAt: DateTime.formatIso(DateTime.makeUnsafe(millis)),
  id
})

/** Decodes, asserting it never dies or throws: either a position or an `InvalidCursor` failure. */
const attempt = (cursor: string) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(Cursor.decode(cursor))
    if (Exit.isSuccess(exit)) return exit.value
    const error = Cause.findErrorOption(exit.cause)
    assert.isTrue(error._tag === "Some", `defect for ${JSON.stringify(cursor)}: ${Cause.pretty(exit.cause)}`)
    if (error._tag === "Some") {
      assert.instanceOf(error.value, Cursor.InvalidCursor)
      assert.isString(error.value.message)
    }
    return undefined
  })

describe("Cursor", () => {
  it.effect("encodes to unpadded base64url of a versioned tuple, and decodes back", () =>
    Effect.gen(function* () {
      const cursor = Cursor.encode(position)
      assert.match(cursor, /^[A-Za-z0-9_-]+$/)
      assert.strictEqual(cursor, raw([1, position.createdAt, position.id]))
      assert.deepStrictEqual(yield* Cursor.decode(cursor), position)
    })
  )

  it.effect.prop("round-trips every position", [Millis, Uuid], ([millis, id]) =>
    Effect.gen(function* () {
      const p = toPosition(millis, id)
      const cursor = Cursor.encode(p)
      assert.notInclude(cursor, "=")
      assert.deepStrictEqual(yield* Cursor.decode(cursor), p)
    })
  )

  it.effect("fails with InvalidCursor on malformed input", () =>
    Effect.gen(function* () {
      const { createdAt, id } = position
      const malformed = [
        "",
        "not base64!",
        "a",
        "abc=",
        `${Cursor.encode(position)}==`,
        Base64Url.encode("hello"),
        Base64Url.encode(new Uint8Array([0xff, 0xfe, 0x00])),
        raw([2, createdAt, id]),
        raw(["1", createdAt, id]),
        raw([1, createdAt]),
        raw([1, createdAt, id, "extra"]),
        raw({ v: 1, createdAt, id }),
        raw([1, "2024-02-30T00:00:00.000Z", id]),
        raw([1, "2024-05-01T12:00:00Z", id]),
        raw([1, "2024-05-01T12:00:00.000+00:00", id]),
        raw([1, "2024-05-01", id]),
        raw([1, 1714564800000, id]),
        raw([1, createdAt, "not-a-uuid"]),
        raw([1, createdAt, "0190a1b2c3d47e5f8a9b0c1d2e3f4a5b"]),
        raw([1, createdAt, null]),
        Base64Url.encode(`[1, "${createdAt}", "${id}"]`), // valid but not canonical
        "A".repeat(10_000),
        "💥"
      ]
      for (const cursor of malformed) {
        const error = yield* Effect.flip(Cursor.decode(cursor))
        assert.strictEqual(error._tag, "InvalidCursor", cursor)
        assert.isTrue(error.message.length > 0)
      }
    })
  )

  it.effect.prop(
    "tampering with one character fails or yields a different position, never throws",
    [
      Millis,
      Uuid,
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1000 })),
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 63 }))
    ],
    ([millis, id, index, replacement]) =>
      Effect.gen(function* () {
        const p = toPosition(millis, id)
        const cursor = Cursor.encode(p)
        const i = index % cursor.length
        const char = ALPHABET[replacement] ?? "A"
        const edits = [
          cursor.slice(0, i) + char + cursor.slice(i + 1),
          cursor.slice(0, i) + cursor.slice(i + 1),
          cursor.slice(0, i) + char + cursor.slice(i)
        ]
        for (const edited of edits) {
          if (edited === cursor) continue
          const decoded = yield* attempt(edited)
          if (decoded !== undefined) assert.notDeepEqual(decoded, p)
        }
      })
  )
})
