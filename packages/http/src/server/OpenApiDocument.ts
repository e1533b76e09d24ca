/**
 * `GET /openapi.json`: the OpenAPI document of `Api`, its `servers` the origin the request reached
 * (the scheme from trusted proxy middleware when there is one, else the connection's), so a client
 * generated from it calls this server. `Api` itself names the relative `/`, which the 3.1 spec
 * allows but older tooling (and the 2021-04-15 official 3.1 schema) refuses.
 */
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { Api } from "../api/Api.ts"

export const layer = HttpRouter.add(
  "GET",
  "/openapi.json",
  Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
    // a copy: `fromApi` builds the document once and clones it for each call
    const document = OpenApi.fromApi(Api)
    const servers = Option.match(HttpServerRequest.toURL(request), {
      onNone: () => document.servers,
      onSome: (url) => [{ url: url.origin }]
    })
    return HttpServerResponse.jsonUnsafe({ ...document, servers })
  })
)
