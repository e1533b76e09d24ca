/**
 * A partner's webhook receiver for end-to-end tests: a real `node:http` server on 127.0.0.1 that
 * verifies every delivery twice, with the official `standardwebhooks` library (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) and by recomputing `X-Partner-Signature` (test-support's
 * `signatureMatches`: hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes),
 * checks its body and headers against the OpenAPI document's `webhooks`, then records it.
 *
 * A contract's deliveries can be scripted: answer 500 to the next few, or hold one until the test
 * releases it (then 200). Anything unscripted is answered 204.
 */
import { WebhookSignature } from "@ratelock/core"
import { signatureMatches } from "@ratelock/test-support/WebhookReceiver"
import { Context, Effect, Layer } from "effect"
import type { SecureRandom } from "effect/crypto"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { deliveryProblem } from "./webhookDocument.ts"

export interface Attempt {
  readonly eventId: string
  readonly contractId: string
  readonly eventType: string
  readonly sequence: number
  // biome-ignore lint/suspicious/noExplicitAny: delivered JSON is inspected field by field in tests
  readonly json: any
  /** The status the receiver answered. */
  readonly answered: number
}

/** What the receiver does with a contract's next delivery. */
export type Answer = 500 | "hold"

export class Receiver extends Context.Service<
  Receiver,
  {
    readonly url: string
    readonly secret: string
    /** Every verified delivery attempt, answered 2xx or not, in arrival order. */
    readonly attempts: Effect.Effect<ReadonlyArray<Attempt>>
    /** Deliveries that failed verification (answered 401): must stay empty. */
    readonly rejected: Effect.Effect<ReadonlyArray<string>>
    /** The contract's next deliveries get these answers, in order; then 204 again. */
    readonly script: (contractId: string, answers: ReadonlyArray<Answer>) => Effect.Effect<void>
    /** A delivery held for the contract: whether one is waiting now. */
    readonly holding: (contractId: string) => Effect.Effect<boolean>
    /** Answers the held delivery of the contract with 200. */
    readonly release: (contractId: string) => Effect.Effect<void>
  }
>()("test/Receiver") {}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name]
  return Array.isArray(value) ? value.join(",") : (value ?? "")
}

/** Why a delivery is not authentic, or undefined when both signatures verify. */
const verify = (secret: string, body: string, req: IncomingMessage): string | undefined => {
  try {
    new Webhook(secret).verify(body, {
      "webhook-id": header(req, "webhook-id"),
      "webhook-timestamp": header(req, "webhook-timestamp"),
      "webhook-signature": header(req, "webhook-signature")
    })
  } catch (e) {
    return `standardwebhooks: ${e instanceof Error ? e.message : String(e)}`
  }
  if (!signatureMatches(secret, body, header(req, "x-partner-signature"))) return "x-partner-signature mismatch"
  if (header(req, "content-type") !== "application/json") return "content-type is not application/json"
  return deliveryProblem((name) => (req.headers[name] === undefined ? undefined : header(req, name)), JSON.parse(body))
}

const listen = (handler: Parameters<typeof createServer>[1]) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Server>((resolve) => {
          const server = createServer(handler)
          server.listen(0, "127.0.0.1", () => resolve(server))
        })
    ),
    (server) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
      )
  )

export const layer: Layer.Layer<Receiver, never, SecureRandom.SecureRandom> = Layer.effect(
  Receiver,
  Effect.gen(function* () {
    const secret = yield* WebhookSignature.generateSecret
    const attempts: Array<Attempt> = []
    const rejected: Array<string> = []
    const scripts = new Map<string, Array<Answer>>()
    /** Per contract, the release of its held delivery. */
    const held = new Map<string, () => void>()

    /** The answer for this delivery: scripted, or 204. */
    const answerFor = async (contractId: string): Promise<number> => {
      const next = scripts.get(contractId)?.shift()
      if (next === undefined) return 204
      if (next === 500) return 500
      await new Promise<void>((resolve) => held.set(contractId, resolve))
      held.delete(contractId)
      return 200
    }

    const server = yield* listen((req, res) => {
      void readBody(req).then(async (body) => {
        const problem = verify(secret, body, req)
        if (problem !== undefined) {
          rejected.push(problem)
          res.statusCode = 401
          return res.end()
        }
        const json = JSON.parse(body)
        const contractId = String(json.fx_contract_id)
        const answered = await answerFor(contractId)
        attempts.push({
          eventId: json.event_id,
          contractId,
          eventType: json.event_type,
          sequence: json.sequence,
          json,
          answered
        })
        res.statusCode = answered
        res.end()
      })
    })
    const port = (server.address() as AddressInfo).port

    return Receiver.of({
      url: `http://127.0.0.1:${port}/hooks`,
      secret,
      attempts: Effect.sync(() => [...attempts]),
      rejected: Effect.sync(() => [...rejected]),
      script: (contractId, answers) => Effect.sync(() => void scripts.set(contractId, [...answers])),
      holding: (contractId) => Effect.sync(() => held.has(contractId)),
      release: (contractId) => Effect.sync(() => held.get(contractId)?.())
    })
  })
)
