/**
 * Raw HTTP for the fuzz and concurrency tests: `node:http` with a keep-alive agent, so a test
 * controls every header and byte of the body (`fetch` refuses or rewrites some), and a check of the
 * error envelope every non-2xx answer must carry (api-decisions.md, "Errors").
 */
import * as http from "node:http"

export interface RawRequest {
  readonly method: string
  /** Path and query string, sent as given (already percent-encoded where needed). */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
}

export interface RawReply {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
}

/** A keep-alive agent with at most `sockets` connections: the bound on requests in flight. */
export const agent = (sockets: number) => new http.Agent({ keepAlive: true, maxSockets: sockets })

/** Sends one request; rejects only when the exchange itself fails (refused, reset, malformed). */
export const send = (baseUrl: string, via: http.Agent, request: RawRequest): Promise<RawReply> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl)
    const outgoing = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        agent: via
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString("utf8")
          })
        )
        response.on("error", reject)
      }
    )
    outgoing.on("error", (error: NodeJS.ErrnoException) =>
      // the server closed an idle keep-alive connection as this request went out on it: it never
      // reached the server, so send it again on a fresh one (the pattern Node's http docs give)
      outgoing.reusedSocket && error.code === "ECONNRESET"
        ? send(baseUrl, via, request).then(resolve, reject)
        : reject(error)
    )
    // framed by Content-Length (a GET body would otherwise go unframed, read as the next request)
    if (request.body !== undefined) outgoing.setHeader("Content-Length", Buffer.byteLength(request.body))
    outgoing.end(request.body)
  })

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * What is wrong with an answer's body, or `undefined`: a non-2xx answer must be JSON of the shape
 * `{"error": {"code", "message"}}` (nothing else at the top level but `detail` on 422), and a 422's
 * `detail` a non-empty list of `{loc, msg, type}` with `loc` rooted at a request part.
 */
export const envelopeProblem = (reply: {
  readonly status: number
  readonly text: string
  readonly contentType?: string | undefined
}): string | undefined => {
  if (reply.status < 400) return undefined
  if (!(reply.contentType ?? "").includes("application/json")) return `content-type ${reply.contentType}`
  let body: unknown
  try {
    body = JSON.parse(reply.text)
  } catch {
    return "body is not JSON"
  }
  if (!isRecord(body) || !isRecord(body.error)) return "no error object"
  if (typeof body.error.code !== "string" || body.error.code === "") return "error.code is not a string"
  if (typeof body.error.message !== "string" || body.error.message === "") return "error.message is not a string"
  if (Object.keys(body.error).length !== 2) return "error has keys beyond code and message"
  const keys = Object.keys(body).sort().join(",")
  if (reply.status !== 422) return keys === "error" ? undefined : `top-level keys ${keys}`
  if (keys !== "detail,error") return `422 top-level keys ${keys}`
  if (!Array.isArray(body.detail) || body.detail.length === 0) return "422 detail is not a non-empty array"
  for (const item of body.detail) {
    if (!isRecord(item)) return "422 detail item is not an object"
    if (typeof item.msg !== "string" || typeof item.type !== "string") return "422 detail item without msg/type"
    if (!Array.isArray(item.loc) || !item.loc.every((l) => typeof l === "string" || Number.isInteger(l))) {
      return "422 detail loc is not a list of strings and integers"
    }
    if (!["body", "query", "path", "header"].includes(String(item.loc[0]))) return `422 loc root ${String(item.loc[0])}`
  }
  return undefined
}
