/**
 * Plain HTTP calls for the end-to-end tests (test-support's: global `fetch`, real sockets, or a
 * `fetch` given per call), and valid request bodies to vary.
 */
import { Requests } from "@ratelock/core"
import { DateTime, Effect } from "effect"

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
