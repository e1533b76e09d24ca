/**
 * Webhook URL rules (api-decisions.md, SSRF): production URLs must be https and every address the
 * host resolves to must be public (not private, loopback, link-local, unique-local, multicast or
 * reserved); sandbox also allows http and loopback, for development.
 *
 * Checked when an operator sets the URL. The host can resolve elsewhere later (DNS rebinding):
 * the delivery worker should check the address it connects to with {@link classify} as well.
 */
import type { Partner } from "@ratelock/core"
import { Context, Data, Effect } from "effect"
import { lookup } from "node:dns/promises"
import { BlockList, isIP } from "node:net"

export class InvalidWebhookUrl extends Data.TaggedError("InvalidWebhookUrl")<{
  readonly url: string
  readonly environment: Partner.Environment
  readonly reason: string
}> {
  override get message() {
    return `${this.environment} webhook URL ${this.url} refused: ${this.reason}`
  }
}

/** Host name → every address it resolves to. Tests replace it; the default asks the system resolver. */
export const Resolver = Context.Reference<(host: string) => Effect.Effect<ReadonlyArray<string>, unknown>>(
  "@ratelock/http/WebhookUrl/Resolver",
  {
    defaultValue: () => (host) =>
      Effect.tryPromise(() => lookup(host, { all: true, verbatim: true })).pipe(
        Effect.map((entries) => entries.map((entry) => entry.address))
      )
  }
)

const subnets = (entries: ReadonlyArray<readonly [string, number]>) => {
  const list = new BlockList()
  for (const [network, prefix] of entries) list.addSubnet(network, prefix, isIP(network) === 6 ? "ipv6" : "ipv4")
  return list
}

const loopback = subnets([
  ["127.0.0.0", 8],
  ["::1", 128]
])

/** Never a webhook target, in any environment. IPv4 rules also match IPv4-mapped IPv6 addresses. */
const nonPublic = subnets([
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
  ["::", 128], // unspecified
  ["64:ff9b:1::", 48], // local-use NAT64
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["ff00::", 8] // multicast
])

export type AddressClass = "public" | "loopback" | "non-public"

export const classify = (address: string): AddressClass => {
  const family = isIP(address)
  if (family === 0) return "non-public"
  const type = family === 6 ? "ipv6" : "ipv4"
  if (loopback.check(address, type)) return "loopback"
  return nonPublic.check(address, type) ? "non-public" : "public"
}

const refuse = (url: string, environment: Partner.Environment, reason: string) =>
  Effect.fail(new InvalidWebhookUrl({ url, environment, reason }))

/** The URL as it will be stored (normalised by `URL`), or why it is refused. */
export const validate = Effect.fn("WebhookUrl.validate")(function* (url: string, environment: Partner.Environment) {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return yield* refuse(url, environment, "not an absolute URL")
  }
  const sandbox = environment === "sandbox"
  if (parsed.protocol !== "https:" && !(sandbox && parsed.protocol === "http:")) {
    return yield* refuse(url, environment, sandbox ? "must be http or https" : "must be https")
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return yield* refuse(url, environment, "must not carry credentials")
  }
  if (parsed.hash !== "") return yield* refuse(url, environment, "must not have a #fragment")
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1")
  const resolve = yield* Resolver
  const addresses =
    isIP(host) !== 0
      ? [host]
      : yield* resolve(host).pipe(Effect.catch(() => refuse(url, environment, `${host} does not resolve`)))
  if (addresses.length === 0) return yield* refuse(url, environment, `${host} does not resolve`)
  for (const address of addresses) {
    const kind = classify(address)
    if (kind === "non-public" || (kind === "loopback" && !sandbox)) {
      const what = kind === "loopback" ? "a loopback" : "a private, link-local or reserved"
      return yield* refuse(url, environment, `${host} resolves to ${what} address (${address})`)
    }
  }
  return parsed.href
})
