/**
 * The Partner API served in process: `@ratelock/http`'s routes and envelope middleware built
 * into one handler over the testkit's stores, chain and clock, reached through a `fetch`
 * function (no socket, no port) and, over that, an Effect `HttpClient`.
 */
import { WebApp } from "@ratelock/http"
import type { Server } from "@ratelock/http"
import { Context, Effect, Layer, Scope } from "effect"
import { FetchHttpClient, HttpClient, HttpEffect, HttpServer, type HttpServerRequest } from "effect/http"

/** The origin in-process URLs carry; any other origin is answered the same. */
export const baseUrl = "http://ratelock.test"

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

export interface InProcess {
  /** A web handler: `Request` in, `Response` out. */
  readonly handler: (request: Request) => Promise<Response>
  /** `fetch` on the handler; a path alone (`/api/v1/...`) is resolved against `baseUrl`. */
  readonly fetch: FetchLike
  /** An Effect `HttpClient` whose requests go to the handler. */
  readonly httpClient: HttpClient.HttpClient
}

const toRequest = (input: string | URL | Request, init?: RequestInit): Request =>
  input instanceof Request ? new Request(input, init) : new Request(new URL(input, baseUrl), init)

/** Builds the app in the current scope, on the ports in context. */
export const make: Effect.Effect<InProcess, never, Server.Ports | Scope.Scope> = Effect.gen(function* () {
  const app = yield* WebApp.toHttpEffect.pipe(Effect.provide(HttpServer.layerServices))
  const context = Context.omit(Scope.Scope)(yield* Effect.context<Server.Ports>())
  const handler = HttpEffect.toWebHandlerWith<
    Server.Ports,
    Server.Ports | HttpServerRequest.HttpServerRequest | Scope.Scope
  >(context)(app)
  const fetch: FetchLike = (input, init) => handler(toRequest(input, init))
  const httpClient = yield* Effect.gen(function* () {
    return yield* HttpClient.HttpClient
  }).pipe(
    Effect.provide(
      FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, fetch as typeof globalThis.fetch)))
    )
  )
  return { handler: (request) => handler(request), fetch, httpClient }
})
