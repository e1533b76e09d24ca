/**
 * Plain HTTP calls for the end-to-end tests (test-support's: global `fetch`, real sockets, or a
 * `fetch` given per call), and valid request bodies to vary.
 */
import { Requests } from "@ratelock/core"
import type { Reply } from "@ratelock/test-support/Http"
import { DateTime, Effect } from "effect"
import { assert } from "vitest"

export { type Call, credentialHeaders, newKey, type Reply, request } from "@ratelock/test-support/Http"

/**
 * A valid quote request at the current time, core's `Requests` default (an option on 10,000 USD,
 * USD_TO_BRL, 30 days), for customer `cust-1`; overrides may be anything, for requests meant to be
 * refused.
 */
export const quoteBody = (overrides: Record<string, unknown> = {}) =>
  Effect.map(DateTime.now, (now) => ({
    ...Requests.quoteAt(now, { customer_reference_id: "cust-1" }),
    ...overrides
  }))

/**
 * A request the API could not decode, refused as the spec's 422: `validation_error`, its message
 * counting the problems, its `detail` naming each one as `loc:type` (`query.environment:enum`), in
 * the order answered.
 */
export const assertInvalid = (reply: Reply, fields: ReadonlyArray<string>, what = "") => {
  assert.strictEqual(reply.status, 422, `${what}: ${reply.text}`)
  assert.deepStrictEqual(
    reply.json.error,
    { code: "validation_error", message: `${fields.length} invalid field${fields.length === 1 ? "" : "s"}` },
    what
  )
  assert.deepStrictEqual(
    reply.json.detail.map((d: { loc: ReadonlyArray<string | number>; type: string }) => `${d.loc.join(".")}:${d.type}`),
    fields,
    what
  )
}
