/**
 * Plain HTTP calls to the Partner API for end-to-end tests, the way a partner's code makes them:
 * the global `fetch` over a real socket, or any `fetch`-like function (the API in process). The
 * reply is read whole: status, headers, text and the JSON, if it is JSON.
 */
import { Effect } from "effect"

/** An API key as the credential headers carry it. */
export interface Key {
  readonly keyId: string
  readonly secret: string
  readonly environment: string
}

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

let counter = 0
/** A fresh Idempotency-Key. */
export const newKey = () => `test-key-${Date.now()}-${++counter}`
