/**
 * Opaque keyset cursors for lists ordered newest first by `(created_at, id)`.
 *
 * A cursor is the unpadded base64url of the JSON tuple `[1, createdAt, id]` (1 = format version). `createdAt` is
 * an ISO-8601 UTC string with milliseconds exactly as `DateTime.formatIso` / `toISOString` print it
 * (`2024-05-01T12:00:00.000Z`), `id` a UUID. Cursors are not signed: a client can forge any valid position, which
 * only lets it page from that position, so treat it as untrusted input (it is validated, never interpolated).
 * Only the canonical encoding of a position decodes, so cursor and position map one to one.
 *
 * Precision: `created_at` must be stored with millisecond precision (e.g. Postgres `timestamptz(3)`); with
 * microseconds, a millisecond cursor would skip or repeat rows that share the millisecond.
 */
import { DateTime, Effect, Option, Schema } from "effect"
import { Base64Url } from "effect/encoding"

const VERSION = 1
const MAX_LENGTH = 256
const ISO_UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** ISO-8601 UTC with milliseconds, and a real instant (no `2024-02-30`). */
export const CreatedAt = Schema.String.check(
  Schema.isPattern(ISO_UTC_MILLIS, { expected: "an ISO-8601 UTC date-time with milliseconds" }),
  Schema.makeFilter(
    (s: string) => Option.exists(DateTime.make(s), (dt) => DateTime.formatIso(dt) === s) || "not a real date-time"
  )
)

/** A position in a list: the `(created_at, id)` of the last row of the previous page. */
export const Position = Schema.Struct({ createdAt: CreatedAt, id: Schema.String.check(Schema.isUUID()) })
export type Position = typeof Position.Type

/** Malformed, tampered, or from an unsupported version. */
export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", {
  message: Schema.String
}) {}

const Token = Schema.String.check(
  Schema.isMaxLength(MAX_LENGTH),
  Schema.isPattern(/^[A-Za-z0-9_-]+$/, { expected: "an unpadded base64url string" })
)
const Payload = Schema.Tuple([Schema.Literal(VERSION), Position.fields.createdAt, Position.fields.id])
const decodePayload = Schema.decodeUnknownEffect(
  Token.pipe(Schema.decodeTo(Schema.StringFromBase64Url), Schema.decodeTo(Schema.fromJsonString(Payload)))
)

/** Encodes a position. Total; a position that is not a valid {@link Position} yields a cursor that won't decode. */
export const encode = (position: Position): string =>
  Base64Url.encode(JSON.stringify([VERSION, position.createdAt, position.id]))

/** Decodes a cursor from a client. Never throws; anything but a canonical valid cursor fails with `InvalidCursor`. */
export const decode = Effect.fn("Cursor.decode")(function* (cursor: string): Effect.fn.Return<Position, InvalidCursor> {
  const [, createdAt, id] = yield* decodePayload(cursor).pipe(
    Effect.mapError(
      (error) => new InvalidCursor({ message: `Invalid cursor: ${error.message.replace(/\s*\n\s*/g, " ")}` })
    )
  )
  const position: Position = { createdAt, id }
  if (encode(position) !== cursor) return yield* new InvalidCursor({ message: "Invalid cursor: not canonical" })
  return position
})
