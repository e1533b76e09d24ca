/**
 * `@ratelock/http/client`: a typed client for the Partner API, made from the same definition as
 * the server. It sends the three credential headers on every partner route.
 *
 * ```ts
 * const client = yield* makeClient("https://sandbox.example", { keyId, secret, environment: "sandbox" })
 * const me = yield* client.partners.me()
 * ```
 */
import type { Partner } from "@ratelock/core"
import { Effect, Redacted } from "effect"
import { type HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { Api } from "./api/Api.ts"
import { PartnerAuth } from "./api/Security.ts"

export { Api } from "./api/Api.ts"

export interface Credentials {
  readonly keyId: string
  readonly secret: string | Redacted.Redacted<string>
  readonly environment: Partner.Environment
}

export type Client = HttpApiClient.ForApi<typeof Api>

/** Adds the credential headers to every request of a route behind `PartnerAuth`. */
export const layerCredentials = (credentials: Credentials) =>
  HttpApiMiddleware.layerClient(PartnerAuth, ({ next, request }) =>
    next(
      HttpClientRequest.setHeaders(request, {
        "x-partner-key-id": credentials.keyId,
        "x-partner-key-secret": Redacted.isRedacted(credentials.secret)
          ? Redacted.value(credentials.secret)
          : credentials.secret,
        "x-partner-environment": credentials.environment
      })
    )
  )

/** A client for the API at `baseUrl`, on the `HttpClient` in context (e.g. `FetchHttpClient.layer`). */
export const makeClient = (
  baseUrl: string,
  credentials: Credentials
): Effect.Effect<Client, never, HttpClient.HttpClient> =>
  HttpApiClient.make(Api, { baseUrl }).pipe(Effect.provide(layerCredentials(credentials)))
