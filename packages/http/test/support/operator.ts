/**
 * The operator listener for end-to-end tests, as the host composes it: `operator/Server.ts` on an
 * ephemeral loopback port of its own, over the store and crypto of the layer below it, with one
 * live operator token made by core's program (what `ratelock operator token create` runs).
 */
import { NodeHttpServer } from "@effect/platform-node"
import { type IdGenerator, type OperatorRole, type OperatorTokenRepo, OperatorTokens } from "@ratelock/core"
import { Context, Duration, Effect, Layer } from "effect"
import type { SecureRandom } from "effect/crypto"
import { createServer } from "node:http"
import { OperatorInfo } from "../../src/operator/OperatorInfo.ts"
import * as OperatorServer from "../../src/operator/Server.ts"
import { request } from "./http.ts"

export class Operator extends Context.Service<Operator, { readonly url: string; readonly token: string }>()(
  "test/Operator"
) {}

export const layer: Layer.Layer<
  Operator,
  never,
  OperatorServer.Ports | OperatorTokenRepo.OperatorTokenRepo | IdGenerator.IdGenerator | SecureRandom.SecureRandom
> = Layer.effect(
  Operator,
  Effect.gen(function* () {
    const { url } = yield* OperatorServer.OperatorListener
    const created = yield* OperatorTokens.create({ name: "tests", role: "admin" }).pipe(Effect.orDie)
    return { url, token: created.token }
  })
).pipe(
  Layer.provide(
    OperatorServer.layer.pipe(
      Layer.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
      Layer.provide(
        Layer.succeed(OperatorInfo, {
          role: "api",
          processName: "operator-test:1",
          startedAt: Date.now(),
          database: "embedded",
          marketMaxAge: Duration.seconds(900),
          hedging: "off"
        })
      ),
      Layer.orDie
    )
  )
)

/** The operator token's `Authorization` header. */
export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

/** A token of `role` named `name`, made as `ratelock operator token create` makes it: its secret. */
export const tokenOf = (name: string, role: OperatorRole.OperatorRole) =>
  Effect.map(OperatorTokens.create({ name, role }).pipe(Effect.orDie), (created) => created.token)

/** A call to the operator listener, as the layer's admin token unless another is given, under a key if one is. */
export const call = (
  method: string,
  path: string,
  options: { readonly body?: unknown; readonly key?: string; readonly token?: string } = {}
) =>
  Effect.flatMap(Operator, ({ url, token }) =>
    request(url, method, path, {
      headers: {
        ...bearer(options.token ?? token),
        ...(options.key === undefined ? {} : { "Idempotency-Key": options.key })
      },
      ...(options.body === undefined ? {} : { body: options.body })
    })
  )
