/**
 * One call to the API in process, as a partner makes it: JSON in, JSON out, the credential
 * headers of a key; a success decoded with the route's response schema, anything else an
 * `ApiFailure`.
 */
import { Effect, Schema } from "effect"
import { ApiFailure, type DetailItem } from "../ApiFailure.ts"
import type { FetchLike } from "./inProcess.ts"
import { type ApiKey, credentialHeaders } from "../TestPartner.ts"

export interface CallOptions {
  readonly body?: unknown
  readonly idempotencyKey?: string
}

interface Envelope {
  readonly error?: { readonly code?: unknown; readonly message?: unknown }
  readonly detail?: ReadonlyArray<DetailItem>
}

export const call = <A>(
  fetch: FetchLike,
  key: ApiKey,
  method: "GET" | "POST",
  path: string,
  schema: Schema.Decoder<A>,
  options: CallOptions = {}
): Effect.Effect<A, ApiFailure> =>
  Effect.gen(function* () {
    const headers: Record<string, string> = { ...credentialHeaders(key) }
    if (options.body !== undefined) headers["content-type"] = "application/json"
    if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey
    const response = yield* Effect.promise(() =>
      fetch(path, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
      })
    )
    const text = yield* Effect.promise(() => response.text())
    let json: unknown
    try {
      json = text === "" ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    if (response.status >= 300) {
      const envelope = (json ?? {}) as Envelope
      return yield* new ApiFailure({
        method,
        path,
        status: response.status,
        code: typeof envelope.error?.code === "string" ? envelope.error.code : `http_${response.status}`,
        message: typeof envelope.error?.message === "string" ? envelope.error.message : text,
        detail: envelope.detail ?? []
      })
    }
    return yield* Schema.decodeUnknownEffect(schema)(json).pipe(
      Effect.catch((error) =>
        Effect.die(
          new Error(
            `Ratelock testkit: ${method} ${path} answered ${response.status} with an unexpected body: ${error.message}`
          )
        )
      )
    )
  })
