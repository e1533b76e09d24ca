/**
 * The API in process, on `@ratelock/testkit`'s in-memory Ratelock (memory stores, the simulated
 * chain, Effect's `TestClock`, no socket), with the partners `server.ts` seeds: A (the testkit's
 * partner) and B, each with a sandbox and a production key and a revoked sandbox key.
 *
 * The testkit is imported by path: it depends on this package, so a dependency back on it would
 * make a cycle in the workspace.
 */
import { Context, Effect, Layer } from "effect"
import { Ratelock, TestPartner } from "../../../testkit/src/index.ts"
import { type Call, type Reply, request } from "./http.ts"
import type { SeededPartner } from "./server.ts"

export class InProcess extends Context.Service<
  InProcess,
  {
    readonly a: SeededPartner
    readonly b: SeededPartner
    /** A request to the API in process, as `http.ts`'s `request` makes it over a socket. */
    readonly request: (method: string, path: string, call?: Call) => Effect.Effect<Reply>
  }
>()("test/InProcess") {}

const seeded = Effect.fnUntraced(function* (partner: TestPartner.TestPartner) {
  const revoked = yield* TestPartner.issueKey(partner.id, "sandbox")
  yield* TestPartner.revokeKey(revoked)
  return {
    id: partner.id,
    name: partner.name,
    sandbox: partner.sandbox,
    production: partner.production,
    revoked
  } satisfies SeededPartner
})

export const layer = (options: Ratelock.Options = {}): Layer.Layer<InProcess | Ratelock.Services> =>
  Layer.effect(
    InProcess,
    Effect.gen(function* () {
      const ratelock = yield* Ratelock.Ratelock
      return InProcess.of({
        a: yield* seeded(ratelock.partner),
        b: yield* seeded(yield* Ratelock.makePartner("Beta Remit")),
        request: (method, path, call = {}) =>
          request(ratelock.baseUrl, method, path, { ...call, fetch: ratelock.fetch })
      })
    }).pipe(Effect.orDie)
  ).pipe(Layer.provideMerge(Ratelock.layerWith({ partnerName: "Acme Pay", ...options })))
