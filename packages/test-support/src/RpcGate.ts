/**
 * A JSON-RPC gate between the service and a local chain, for crash tests: it forwards every call
 * to the chain, except that calls of a method it is told to `hold` are kept waiting (neither
 * forwarded nor answered) until `release`d, so a test can SIGKILL a process at an exact point, say
 * after it persisted a signed transaction and before the chain received it. Batched requests are
 * held whole when any call in them is held. It listens on a free port of 127.0.0.1.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

interface Held {
  readonly body: string
  readonly response: ServerResponse
}

export interface RpcGate {
  /** The gate's URL: give it to the service in place of the chain's. */
  readonly url: string
  /**
   * From now on, calls of `method` wait; with `when`, only those whose request body it accepts
   * (say, every broadcast but the re-sending of bytes the chain already saw).
   */
  readonly hold: (method: string, when?: (body: string) => boolean) => void
  /** Calls of `method` pass again; those held are forwarded (`forward`) or dropped unanswered. */
  readonly release: (method: string, options?: { readonly forward?: boolean }) => Promise<void>
  /** How many calls of `method` have arrived (held or not). */
  readonly count: (method: string) => number
  /** Resolves once at least `n` calls of `method` are waiting. */
  readonly whenHeld: (method: string, n?: number) => Promise<void>
  /** The request bodies of the calls of `method` waiting now, oldest first. */
  readonly held: (method: string) => ReadonlyArray<string>
  readonly close: () => Promise<void>
}

const methodsOf = (body: string): ReadonlyArray<string> => {
  try {
    const parsed = JSON.parse(body) as unknown
    const calls = Array.isArray(parsed) ? parsed : [parsed]
    return calls.flatMap((c) => (typeof c === "object" && c !== null && "method" in c ? [String(c.method)] : []))
  } catch {
    return []
  }
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

export const start = async (target: string): Promise<RpcGate> => {
  const holding = new Map<string, (body: string) => boolean>()
  const held = new Map<string, Array<Held>>()
  const counts = new Map<string, number>()
  const waiters: Array<() => void> = []

  const forward = async ({ body, response }: Held) => {
    try {
      const reply = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body })
      response.writeHead(reply.status, { "content-type": "application/json" })
      response.end(await reply.text())
    } catch {
      response.destroy()
    }
  }

  const server = createServer(async (request, response) => {
    const body = await readBody(request)
    const methods = methodsOf(body)
    for (const m of methods) counts.set(m, (counts.get(m) ?? 0) + 1)
    const gated = methods.find((m) => holding.get(m)?.(body) === true)
    if (gated === undefined) return forward({ body, response })
    held.set(gated, [...(held.get(gated) ?? []), { body, response }])
    for (const wake of waiters.splice(0)) wake()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  const whenHeld = (method: string, n = 1) =>
    new Promise<void>((resolve) => {
      const check = () => ((held.get(method)?.length ?? 0) >= n ? resolve() : waiters.push(check))
      check()
    })

  return {
    url: `http://127.0.0.1:${port}`,
    hold: (method, when = () => true) => void holding.set(method, when),
    release: async (method, options = {}) => {
      holding.delete(method)
      const waiting = held.get(method) ?? []
      held.delete(method)
      if (options.forward === true) await Promise.all(waiting.map(forward))
      else for (const h of waiting) h.response.destroy()
    },
    count: (method) => counts.get(method) ?? 0,
    whenHeld,
    held: (method) => (held.get(method) ?? []).map((h) => h.body),
    close: () =>
      new Promise<void>((resolve) => {
        for (const list of held.values()) for (const h of list) h.response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
