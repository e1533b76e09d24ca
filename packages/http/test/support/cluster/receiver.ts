/**
 * A partner's webhook endpoint for the multi-process tests and the benchmark: a `node:http`
 * server on loopback that answers 200 to every POST and records each delivery in arrival order,
 * with its `X-Partner-Signature` checked against the webhook secret once the test knows it.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer, type Server } from "node:http"

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

const signatureOk = (secret: string | undefined, raw: Buffer, header: string | undefined) => {
  if (secret === undefined || header === undefined) return false
  const expected = Buffer.from(createHmac("sha256", secret).update(raw).digest("hex"))
  const given = Buffer.from(header)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

export const startReceiver = async (): Promise<Receiver> => {
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
      const delivery: Delivery = {
        index: deliveries.length,
        receivedAt: Date.now(),
        eventId: body.event_id,
        eventType: body.event_type,
        contractId: body.fx_contract_id,
        sequence: body.sequence,
        signed: signatureOk(secret, raw, req.headers["x-partner-signature"] as string | undefined),
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
