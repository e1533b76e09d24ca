/**
 * A partner's webhook endpoint for tests and benchmarks that run Ratelock in other processes: a
 * `node:http` server on loopback that answers 200 to every POST and records each delivery in
 * arrival order, with its `X-Partner-Signature` checked against the webhook secret once the test
 * knows it. `signatureMatches` is the check itself, recomputed here rather than taken from the code
 * under test, for receivers of other kinds.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer, type Server } from "node:http"

/**
 * Whether `header` is the hex HMAC-SHA256 of the raw body keyed with the secret string's UTF-8
 * bytes (`X-Partner-Signature`), compared in constant time.
 */
export const signatureMatches = (
  secret: string | undefined,
  body: string | Uint8Array,
  header: string | undefined
): boolean => {
  if (secret === undefined || header === undefined) return false
  const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest()
  const given = Buffer.from(header, "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export interface Delivery {
  /** Arrival order, from 0. */
  readonly index: number
  readonly receivedAt: number
  readonly eventId: string
  readonly eventType: string
  readonly contractId: string
  readonly sequence: number
  readonly signed: boolean
  // biome-ignore lint/suspicious/noExplicitAny: the payload is read field by field
  readonly body: any
}

export interface Receiver {
  readonly url: string
  readonly deliveries: ReadonlyArray<Delivery>
  /** Deliveries of each event id, in arrival order. */
  readonly byEvent: ReadonlyMap<string, ReadonlyArray<Delivery>>
  setSecret(secret: string): void
  /** Called on every delivery, once it is recorded. */
  onDelivery(listener: (delivery: Delivery) => void): void
  close(): Promise<void>
}

export const start = async (): Promise<Receiver> => {
  const deliveries: Array<Delivery> = []
  const byEvent = new Map<string, Array<Delivery>>()
  const listeners: Array<(d: Delivery) => void> = []
  let secret: string | undefined
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const raw = Buffer.concat(chunks)
      const body = JSON.parse(raw.toString("utf8"))
      const header = req.headers["x-partner-signature"]
      const delivery: Delivery = {
        index: deliveries.length,
        receivedAt: Date.now(),
        eventId: body.event_id,
        eventType: body.event_type,
        contractId: body.fx_contract_id,
        sequence: body.sequence,
        signed: signatureMatches(secret, raw, typeof header === "string" ? header : undefined),
        body
      }
      deliveries.push(delivery)
      const earlier = byEvent.get(delivery.eventId)
      if (earlier === undefined) byEvent.set(delivery.eventId, [delivery])
      else earlier.push(delivery)
      res.writeHead(200, { "content-type": "text/plain" }).end("ok")
      for (const listener of listeners) listener(delivery)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/`,
    deliveries,
    byEvent,
    setSecret: (s) => {
      secret = s
    },
    onDelivery: (listener) => void listeners.push(listener),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
