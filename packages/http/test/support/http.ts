/**
 * Plain HTTP calls for the end-to-end tests (global `fetch`, real sockets, or the `fetch` of the
 * API in process: `inProcess.ts`), and valid request bodies to vary.
 */
import { Requests } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import type { Key } from "./server.ts"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field in tests
  readonly json: any
}

export interface Call {
  readonly key?: Key | undefined
  /** Serialised with `JSON.stringify` unless it is already a string. */
  readonly body?: unknown
  readonly headers?: Record<string, string>
  /** Where the request goes: the global `fetch` (a real socket) unless given. */
  readonly fetch?: ((input: string, init: RequestInit) => Promise<Response>) | undefined
}

export const credentialHeaders = (key: Key): Record<string, string> => ({
  "X-Partner-Key-Id": key.keyId,
  "X-Partner-Key-Secret": key.secret,
  "X-Partner-Environment": key.environment
})

export const request = (baseUrl: string, method: string, path: string, call: Call = {}): Effect.Effect<Reply> =>
  Effect.promise(async () => {
    const body =
      call.body === undefined ? undefined : typeof call.body === "string" ? call.body : JSON.stringify(call.body)
    const response = await (call.fetch ?? fetch)(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(call.key === undefined ? {} : credentialHeaders(call.key)),
        ...call.headers
      },
      ...(body === undefined ? {} : { body })
    })
    const text = await response.text()
    let json: unknown
    try {
      json = text === "" ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  })

/**
 * A valid quote request at the current time, the testkit's (an option on 10,000 USD, USD_TO_BRL,
 * 30 days), for customer `cust-1`; overrides may be anything, for requests meant to be refused.
 */
export const quoteBody = (overrides: Record<string, unknown> = {}) =>
  Effect.map(DateTime.now, (now) => ({
    ...Requests.quoteAt(now, { customer_reference_id: "cust-1" }),
    ...overrides
  }))

let counter = 0
/** A fresh Idempotency-Key. */
export const newKey = () => `test-key-${Date.now()}-${++counter}`
