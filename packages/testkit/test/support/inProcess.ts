/**
 * The API in process, on the in-memory Ratelock (memory stores, the simulated chain, Effect's
 * `TestClock`, no socket), with two partners as http's end-to-end server seeds them: A (the
 * layer's partner) and B, each with a sandbox and a production key and a revoked sandbox key.
 * Requests are test-support's plain HTTP calls, made through the in-process `fetch`.
 */
import { type Call, type Key, type Reply, request } from "@ratelock/test-support/Http"
import { Context, Effect, Layer } from "effect"
import { Ratelock, TestPartner } from "../../src/index.ts"

export interface SeededPartner {
  readonly id: string
  readonly name: string
  readonly sandbox: Key
  readonly production: Key
  /** A sandbox key revoked at seeding. */
  readonly revoked: Key
}

export class InProcess extends Context.Service<
  InProcess,
  {
    readonly a: SeededPartner
    readonly b: SeededPartner
    /** A request to the API in process, as test-support's `request` makes it over a socket. */
    readonly request: (method: string, path: string, call?: Call) => Effect.Effect<Reply>
  }
>()("@ratelock/testkit/test/InProcess") {}

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
