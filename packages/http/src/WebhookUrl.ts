/**
 * Webhook URL rules (api-decisions.md, SSRF): production URLs must be https and every address the
 * host resolves to must be public; sandbox also allows http and loopback, for development.
 *
 * `classify` is the one judge of an address: at `webhook set` / `partner create` ({@link validate})
 * and again by the delivery client on the address it connects to ({@link destinations}), so a host
 * re-pointed after its URL was checked (DNS rebinding) is still refused.
 */
import { type Partner, WebhookUrlCheck } from "@ratelock/core"
import { Context, Data, Effect, Layer } from "effect"
import { lookup } from "node:dns/promises"
import { type Cidr, cidr, formatV4, parse, within } from "./internal/ipAddress.ts"

export const InvalidWebhookUrl = WebhookUrlCheck.InvalidWebhookUrl

/**
 * Host name → every address it resolves to, asked when a URL is set and at every delivery. Tests
 * replace it; the default asks the system resolver.
 */
export const Resolver = Context.Reference<(host: string) => Effect.Effect<ReadonlyArray<string>, unknown>>(
  "@ratelock/http/WebhookUrl/Resolver",
  {
    defaultValue: () => (host) =>
      Effect.tryPromise(() => lookup(host, { all: true, verbatim: true })).pipe(
        Effect.map((entries) => entries.map((entry) => entry.address))
      )
  }
)

export type AddressClass = "public" | "loopback" | "non-public"

/** An address's class, and why: `why` completes a sentence about the address ("is link-local (…)"). */
export interface Verdict {
  readonly class: AddressClass
  readonly why: string
}

const publicAddress: Verdict = { class: "public", why: "is public" }

/**
 * IPv4: the IANA special-purpose registry's blocks that are not globally reachable, plus
 * multicast and the deprecated 6to4 relay anycast. First match wins.
 */
const ipv4Ranges: ReadonlyArray<readonly [Cidr, string]> = (
  [
    ["127.0.0.0/8", "loopback"],
    ["0.0.0.0/8", `"this network"`],
    ["10.0.0.0/8", "private"],
    ["100.64.0.0/10", "shared address space for carrier-grade NAT"],
    ["169.254.0.0/16", "link-local"],
    ["172.16.0.0/12", "private"],
    ["192.0.0.0/24", "reserved for IETF protocol assignments"],
    ["192.0.2.0/24", "documentation"],
    ["192.88.99.0/24", "the deprecated 6to4 relay anycast"],
    ["192.168.0.0/16", "private"],
    ["198.18.0.0/15", "benchmarking"],
    ["198.51.100.0/24", "documentation"],
    ["203.0.113.0/24", "documentation"],
    ["224.0.0.0/4", "multicast"],
    ["255.255.255.255/32", "limited broadcast"],
    ["240.0.0.0/4", "reserved"]
  ] as const
).map(([network, name]) => [cidr(network), name])

const classifyV4 = (bytes: Uint8Array): Verdict => {
  const match = ipv4Ranges.find(([network]) => within(bytes, network))
  if (match === undefined) return publicAddress
  const [network, name] = match
  return { class: name === "loopback" ? "loopback" : "non-public", why: `is ${name} (${network.text})` }
}

/** The IPv4 addresses an IPv6 form carries, each judged as that IPv4 address would be. */
type Embeds = (address: Uint8Array) => ReadonlyArray<Uint8Array>
const last32: Embeds = (a) => [a.slice(12, 16)]

/**
 * IPv6, first match wins: the IANA special-purpose registry's blocks that are not globally
 * reachable, plus multicast, site-local and ORCHID/DRIP identifiers. The class is the prefix's
 * own; a form that carries IPv4 addresses is refused as well when one of those would be.
 */
const ipv6Ranges = (
  [
    ["::/128", "non-public", "unspecified"],
    ["::1/128", "loopback", "loopback"],
    ["::ffff:0:0/96", "public", "IPv4-mapped", last32],
    ["::/96", "non-public", "IPv4-compatible, deprecated", last32],
    ["64:ff9b::/96", "public", "NAT64", last32],
    // RFC 6052 at a /48 prefix: IPv4 bits 48..63 and 72..87 (bits 64..71 are the zero u-octet)
    ["64:ff9b:1::/48", "non-public", "local-use NAT64", (a) => [Uint8Array.of(a[6]!, a[7]!, a[9]!, a[10]!)]],
    ["100::/64", "non-public", "discard-only"],
    ["100:0:0:1::/64", "non-public", "the dummy prefix"],
    // Teredo: the server's IPv4 in bits 32..63, the client's inverted in the last 32
    ["2001::/32", "public", "Teredo", (a) => [a.slice(4, 8), a.slice(12, 16).map((byte) => byte ^ 0xff)]],
    ["2001:1::1/128", "public", "PCP anycast"],
    ["2001:1::2/128", "public", "TURN anycast"],
    ["2001:1::3/128", "public", "DNS-SD service registration anycast"],
    ["2001:2::/48", "non-public", "benchmarking"],
    ["2001:3::/32", "public", "AMT"],
    ["2001:4:112::/48", "public", "AS112-v6"],
    ["2001:10::/28", "non-public", "ORCHID, deprecated"],
    ["2001:20::/28", "non-public", "ORCHIDv2, identifiers that are not routed to a host"],
    ["2001:30::/28", "non-public", "DRIP entity tags, identifiers that are not routed to a host"],
    ["2001::/23", "non-public", "reserved for IETF protocol assignments"],
    ["2001:db8::/32", "non-public", "documentation"],
    ["2002::/16", "public", "6to4", (a) => [a.slice(2, 6)]],
    ["3fff::/20", "non-public", "documentation"],
    ["5f00::/16", "non-public", "segment routing (SRv6 SIDs)"],
    ["fc00::/7", "non-public", "unique-local"],
    ["fe80::/10", "non-public", "link-local"],
    ["fec0::/10", "non-public", "site-local, deprecated"],
    ["ff00::/8", "non-public", "multicast"]
  ] satisfies ReadonlyArray<readonly [string, AddressClass, string, Embeds?]>
).map(([network, kind, name, embeds]) => ({
  network: cidr(network),
  class: kind,
  name,
  embeds
}))

/** Only 2000::/3 is handed out for global unicast; the rest of the space is reserved. */
const globalUnicast = cidr("2000::/3")

const classifyV6 = (bytes: Uint8Array): Verdict => {
  const range = ipv6Ranges.find((r) => within(bytes, r.network))
  if (range === undefined) {
    return within(bytes, globalUnicast)
      ? publicAddress
      : { class: "non-public", why: `is outside the global unicast range (${globalUnicast.text})` }
  }
  const carried = (range.embeds?.(bytes) ?? []).map((v4) => ({ v4, verdict: classifyV4(v4) }))
  const worst =
    carried.find((c) => c.verdict.class === "non-public") ?? carried.find((c) => c.verdict.class === "loopback")
  // the carried address is the reason when it is at least as bad as the prefix itself
  if (worst !== undefined && (worst.verdict.class === "non-public" || range.class !== "non-public")) {
    return { class: worst.verdict.class, why: `embeds ${formatV4(worst.v4)}, which ${worst.verdict.why}` }
  }
  return range.class === "public"
    ? publicAddress
    : { class: range.class, why: `is ${range.name} (${range.network.text})` }
}

/** The one judge of a webhook target address (IPv4 or IPv6 text); anything else is non-public. */
export const classify = (address: string): Verdict => {
  const bytes = parse(address)
  if (bytes === undefined) return { class: "non-public", why: "is not an IP address" }
  return bytes.length === 4 ? classifyV4(bytes) : classifyV6(bytes)
}

const allowed = (verdict: Verdict, environment: Partner.Environment) =>
  verdict.class === "public" || (verdict.class === "loopback" && environment === "sandbox")

export class RefusedHost extends Data.TaggedError("RefusedHost")<{ readonly reason: string }> {}

/**
 * Every address `host` (an IP literal or a name, resolved now) stands for, once each one is
 * allowed in `environment`; else why not.
 */
export const destinations = Effect.fn("WebhookUrl.destinations")(function* (
  host: string,
  environment: Partner.Environment
) {
  const literal = parse(host) !== undefined
  const unresolved = new RefusedHost({ reason: `${host} does not resolve` })
  const addresses = literal ? [host] : yield* (yield* Resolver)(host).pipe(Effect.catch(() => Effect.fail(unresolved)))
  if (addresses.length === 0) return yield* unresolved
  for (const address of addresses) {
    const verdict = classify(address)
    if (!allowed(verdict, environment)) {
      const subject = literal ? host : `${host} resolves to ${address}, which`
      return yield* new RefusedHost({ reason: `${subject} ${verdict.why}` })
    }
  }
  return addresses
})

/** A URL's host without the brackets of an IPv6 literal. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

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
  yield* destinations(hostOf(parsed), environment).pipe(Effect.catch((e) => refuse(url, environment, e.reason)))
  return parsed.href
})

/** These rules as core's `WebhookUrlCheck`, which the partner programs ask before storing a URL. */
export const layer: Layer.Layer<WebhookUrlCheck.WebhookUrlCheck> = Layer.succeed(
  WebhookUrlCheck.WebhookUrlCheck,
  WebhookUrlCheck.WebhookUrlCheck.of({ check: validate })
)
