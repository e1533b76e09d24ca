/**
 * Malformed requests on every route over real HTTP (the whole server on the embedded Postgres):
 * fast-check generates 2,400 of them from a fixed seed (bodies of the wrong types, with fields
 * missing or extra, huge, unicode and control-character strings, numbers where decimal strings
 * belong, deep nesting, bodies that are not JSON or not objects; missing and garbage credentials,
 * Idempotency-Keys of every length, odd content types; bad and repeated query parameters; path ids
 * that are not uuids, very long or percent-encoded junk), sent 8 at a time with valid credentials
 * unless the case is about credentials. No answer may be a 5xx, every non-2xx answer carries the
 * `{"error": {"code", "message"}}` envelope (422 also `detail`), and the server still serves
 * afterwards.
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import fc from "fast-check"
import { credentialHeaders, newKey, quoteBody, request } from "./support/http.ts"
import { activate, createContract, createQuote } from "./support/lifecycle.ts"
import { agent, envelopeProblem, type RawReply, type RawRequest, send } from "./support/raw.ts"
import { type Key, layer as serverLayer, TestServer } from "./support/server.ts"

const seed = 20_260_521
const caseCount = 5_000
const inFlight = 8

// ---------------------------------------------------------------------------------------------
// Building blocks

/** A JSON fragment spliced verbatim into a body (numbers JSON.stringify cannot write, deep nesting). */
class Raw {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

const serialize = (value: unknown): string => {
  const raws: Array<string> = []
  const json = JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Raw ? `\u0000raw${raws.push(v.text) - 1}\u0000` : v
  )
  return (json ?? "").replace(/"\\u0000raw(\d+)\\u0000"/g, (_, i: string) => raws[Number(i)] ?? "")
}

/** Percent-encodes anything, lone surrogates included (as the invalid UTF-8 they would be). */
const percent = (s: string) => {
  try {
    return encodeURIComponent(s)
  } catch {
    return "%ED%A0%80"
  }
}

/** What Node lets a client put in a header value: tab, printable ASCII and Latin-1. */
const latin1Char = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09))
  .map((c) => String.fromCharCode(c))
const latin1 = (minLength: number, maxLength: number) => fc.string({ unit: latin1Char, minLength, maxLength })

const oddStrings = fc.constantFrom(
  "",
  " ",
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-0",
  "0x1A",
  "1e5",
  "1E-7",
  "+5",
  ".5",
  "5.",
  "5,40",
  "1_000",
  "١٢٣.٤",
  "５.４",
  " 5.4",
  "5.4 ",
  "5.4\n",
  "\uFEFF5.4",
  "0.00000000000000000001",
  "9".repeat(400),
  "-1",
  "0",
  "true",
  "[]",
  "{}",
  "' OR '1'='1",
  "<script>alert(1)</script>",
  "$" + "{jndi:ldap://x}",
  "../../etc/passwd",
  "\u202eevil",
  "\u0000",
  "%00",
  "2026-02-30T10:00:00Z",
  "2026-13-01T00:00:00Z",
  "2026-01-01",
  "2026-01-01T24:00:00Z",
  "2026-01-01T10:00:60Z",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999999999Z",
  "2026-01-01T10:00:00+25:00",
  "2026-01-01t10:00:00z",
  "1767225600",
  "USD_to_BRL",
  "OPTION",
  "Polygon",
  "usdc",
  "created",
  "sandbox"
)

const controlChars = fc.string({
  unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 8
})

/** Short strings: graphemes, any code point (lone surrogates too), control characters, odd values. */
const shortText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 2, arbitrary: controlChars },
  { weight: 5, arbitrary: oddStrings }
)

/**
 * Up to 50,000 repetitions of one character (1 to 4 UTF-8 bytes): four of them in one body stay
 * under the 1 MiB limit (bodies over it are refused before they are read: Errors.e2e.test.ts).
 */
const hugeText = fc
  .tuple(fc.integer({ min: 300, max: 50_000 }), fc.constantFrom("x", "9", "é", "€", "😀", "\u0000", " "))
  .map(([n, c]) => c.repeat(n))

const text = fc.oneof({ weight: 14, arbitrary: shortText }, { weight: 1, arbitrary: hugeText })

/** `[[[…]]]` or `{"a":{"a":…}}`, up to 40,000 levels deep. */
const deepJson = fc
  .tuple(fc.integer({ min: 50, max: 40_000 }), fc.boolean())
  .map(([n, arrays]) => (arrays ? "[".repeat(n) + "]".repeat(n) : '{"a":'.repeat(n) + "1" + "}".repeat(n)))

const jsonLeaf = fc.oneof(
  { weight: 5, arbitrary: text },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      new Raw("1e400"),
      new Raw("-0"),
      new Raw("123456789012345678901234567890"),
      new Raw("5.40"),
      new Raw("0.1e-999"),
      new Raw("10000")
    )
  }
)

/** A value of the wrong type (or the right type with a wrong value) for any field. */
const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: jsonLeaf },
  { weight: 2, arbitrary: fc.array(jsonLeaf, { maxLength: 5 }) },
  { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), jsonLeaf, { maxKeys: 4 }) },
  { weight: 1, arbitrary: deepJson.map((t) => new Raw(t)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) }
)

/** Characters that are easy to get wrong: NUL and other controls, invisible ones, a lone surrogate, an emoji. */
const oddChar = fc.constantFrom(
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "\u200b",
  "\ufeff",
  "\u202e",
  "\ud800",
  "😀",
  "\n",
  "\\",
  '"'
)

const extraKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("__proto__", "constructor", "prototype", "", " ", "quote_id ", "QUOTE_ID", "toString", "😀", "\u0000")
)

type Mutation =
  | { readonly _tag: "set"; readonly key: string; readonly value: unknown }
  | { readonly _tag: "spice"; readonly key: string; readonly char: string }
  | { readonly _tag: "drop"; readonly key: string }
  | { readonly _tag: "extra"; readonly key: string; readonly value: unknown }

const mutation = (keys: ReadonlyArray<string>): fc.Arbitrary<Mutation> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({ _tag: fc.constant("set" as const), key: fc.constantFrom(...keys), value: junkValue })
    },
    { weight: 2, arbitrary: fc.record({ _tag: fc.constant("drop" as const), key: fc.constantFrom(...keys) }) },
    // a character slipped into the value: often still a valid body
    {
      weight: 2,
      arbitrary: fc.record({ _tag: fc.constant("spice" as const), key: fc.constantFrom(...keys), char: oddChar })
    },
    { weight: 2, arbitrary: fc.record({ _tag: fc.constant("extra" as const), key: extraKey, value: junkValue }) }
  )

const mutate = (base: Readonly<Record<string, unknown>>, mutations: ReadonlyArray<Mutation>) => {
  const out: Record<string, unknown> = { ...base }
  for (const m of mutations) {
    if (m._tag === "drop") delete out[m.key]
    else if (m._tag === "spice") {
      const value = out[m.key]
      if (typeof value === "string") out[m.key] = `${value.slice(0, 2)}${m.char}${value.slice(2)}`
    }
    // an own property even for `__proto__`
    else Object.defineProperty(out, m.key, { value: m.value, enumerable: true, writable: true, configurable: true })
  }
  return out
}

interface Body {
  readonly label: string
  readonly text: string
}

/** Whole bodies that are not the expected object: other JSON, no JSON, cut, doubled, nested. */
const wholeBody = (valid: string): fc.Arbitrary<Body> =>
  fc.oneof(
    fc
      .constantFrom(
        "",
        " ",
        "null",
        "true",
        "0",
        "-1",
        '"a string"',
        "[]",
        "{}",
        "[{}]",
        "{",
        "}",
        "{,}",
        '{"a":1,}',
        "[1,2,]",
        "'single'",
        "{'a':1}",
        "undefined",
        "NaN",
        '{"a":NaN}',
        "\uFEFF{}",
        "\u0000",
        "{}{}",
        '{"a":1}\n{"a":2}',
        "<xml/>",
        "a=1&b=2",
        '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--\r\n',
        '{"__proto__":{"polluted":true}}',
        '{"constructor":{"prototype":{"polluted":true}}}'
      )
      .map((t) => ({ label: `whole:${JSON.stringify(t).slice(0, 30)}`, text: t })),
    fc.string({ unit: "binary", maxLength: 200 }).map((t) => ({ label: "whole:binary", text: t })),
    deepJson.map((t) => ({ label: `whole:deep, ${t.length} bytes`, text: t })),
    fc
      .integer({ min: 1, max: 100_000 })
      .map((n) => ({ label: `whole:array of ${n} nulls`, text: `[${Array(n).fill("null").join(",")}]` })),
    fc.nat({ max: valid.length - 1 }).map((i) => ({ label: `whole:cut at ${i}`, text: valid.slice(0, i) })),
    fc.constantFrom(
      { label: "whole:array of bodies", text: `[${valid},${valid}]` },
      { label: "whole:BOM", text: `\uFEFF${valid}` },
      { label: "whole:single quotes", text: valid.replaceAll('"', "'") },
      { label: "whole:twice", text: `${valid}${valid}` },
      { label: "whole:as a JSON string", text: JSON.stringify(valid) }
    ),
    fc.jsonValue({ maxDepth: 3 }).map((v) => ({ label: "whole:other JSON", text: JSON.stringify(v) ?? "null" }))
  )

/** A valid body with 1 to 4 fields changed, dropped or added; or no object at all. */
const bodyFrom = (
  base: Readonly<Record<string, unknown>>,
  optional: ReadonlyArray<string> = []
): fc.Arbitrary<Body> => {
  const keys = [...Object.keys(base), ...optional]
  const valid = JSON.stringify(base)
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant({ label: "valid body", text: valid }) },
    {
      weight: 12,
      arbitrary: fc.array(mutation(keys), { minLength: 1, maxLength: 4 }).map((ms) => ({
        label: ms.map((m) => `${m._tag} ${JSON.stringify(m.key).slice(0, 20)}`).join(", "),
        text: serialize(mutate(base, ms))
      }))
    },
    { weight: 4, arbitrary: wholeBody(valid) }
  )
}

// ---------------------------------------------------------------------------------------------
// Headers

const names = { id: "X-Partner-Key-Id", secret: "X-Partner-Key-Secret", environment: "X-Partner-Environment" } as const

interface Headers {
  readonly label: string
  readonly headers: Readonly<Record<string, string>>
}

/** Mostly the valid credentials; otherwise some of them missing, garbled or for another key. */
const credentials = (w: World): fc.Arbitrary<Headers> => {
  const good = credentialHeaders(w.key)
  const replaced = (name: string, value: string) => ({ ...good, [name]: value })
  const bad = fc.oneof(
    fc.subarray(Object.values(names), { minLength: 1 }).map((drop) => ({
      label: `creds:without ${drop.join("+")}`,
      headers: Object.fromEntries(Object.entries(good).filter(([k]) => !drop.includes(k as never)))
    })),
    fc
      .tuple(
        fc.constantFrom(...Object.values(names)),
        fc.oneof(
          latin1(0, 300),
          oddStrings.filter((s) => !/[^\t\x20-\xff]/.test(s))
        )
      )
      .map(([name, value]) => ({ label: `creds:garbage ${name}`, headers: replaced(name, value) })),
    fc
      .constantFrom("SANDBOX", "Sandbox", " sandbox", "sandbox,production", "", "test", "production")
      .map((env) => ({ label: `creds:environment ${JSON.stringify(env)}`, headers: replaced(names.environment, env) })),
    fc
      .constantFrom(`${w.key.secret}x`, w.key.secret.slice(0, -1), w.key.secret.toUpperCase(), "rlk_", w.other.secret)
      .map((secret) => ({ label: "creds:wrong secret", headers: replaced(names.secret, secret) })),
    fc
      .constantFrom(
        w.key.keyId.toUpperCase(),
        `{${w.key.keyId}}`,
        w.key.keyId.replaceAll("-", ""),
        w.other.keyId,
        w.revoked.keyId
      )
      .map((id) => ({ label: "creds:other key id", headers: replaced(names.id, id) })),
    fc.constant({ label: "creds:revoked key", headers: credentialHeaders(w.revoked) })
  )
  return fc.oneof(
    { weight: 9, arbitrary: fc.constant({ label: "creds:valid", headers: good }) },
    { weight: 1, arbitrary: bad }
  )
}

/** No key, a valid fresh one, one reused across cases, or one of a bad length or odd characters. */
const idempotencyKey: fc.Arbitrary<Headers> = fc
  .oneof(
    { weight: 4, arbitrary: fc.constant<[string, string | undefined]>(["key:none", undefined]) },
    { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/).map((k): [string, string] => ["key:valid", k]) },
    {
      weight: 3,
      arbitrary: fc
        .integer({ min: 0, max: 7 })
        .chain((n) => latin1(n, n).map((k): [string, string] => [`key:length ${n}`, k]))
    },
    {
      weight: 2,
      arbitrary: fc.integer({ min: 257, max: 4_000 }).map((n): [string, string] => [`key:length ${n}`, "k".repeat(n)])
    },
    { weight: 2, arbitrary: latin1(8, 64).map((k): [string, string] => ["key:latin-1", k]) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          "        ",
          "\t\t\t\t\t\t\t\t",
          "fuzz-shared-key-0001",
          "fuzz-shared-key-0001, fuzz-shared-key-0002"
        )
        .map((k): [string, string] => [`key:${JSON.stringify(k)}`, k])
    }
  )
  .map(([label, key]) => ({ label, headers: key === undefined ? {} : { "Idempotency-Key": key } }))

const contentType: fc.Arbitrary<Headers> = fc
  .oneof(
    { weight: 12, arbitrary: fc.constant<string | undefined>("application/json") },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        undefined,
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "application/json;charset=UTF-16",
        "text/plain",
        "text/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz",
        "multipart/form-data",
        "application/xml",
        "application/octet-stream",
        "",
        "*/*",
        "application/json;;;",
        "application/json, text/plain",
        "application/vnd.api+json",
        "json"
      )
    },
    { weight: 1, arbitrary: latin1(0, 60) }
  )
  .map((ct) => ({ label: `ct:${JSON.stringify(ct)}`, headers: ct === undefined ? {} : { "Content-Type": ct } }))

// ---------------------------------------------------------------------------------------------
// Paths and query strings

const urlJunk = fc.constantFrom(
  "%",
  "%zz",
  "%E0%A4%A",
  "%ED%A0%80",
  "%00",
  "%FF%FE",
  "%2F",
  "a%2Fb",
  "..",
  ".",
  "%2e%2e",
  "%20",
  "+",
  ";",
  ";a=b",
  "*",
  "%7B%7D",
  "null",
  "-1",
  "0"
)

const segment = (valid: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 2, arbitrary: valid },
    { weight: 3, arbitrary: shortText.map(percent) },
    { weight: 2, arbitrary: urlJunk },
    {
      weight: 1,
      arbitrary: fc.constantFrom("00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff")
    },
    {
      weight: 2,
      arbitrary: fc
        .uuid()
        .chain((u) =>
          fc.constantFrom(u.toUpperCase(), u.replaceAll("-", ""), `${u}x`, `%7B${u}%7D`, ` ${u}`.replace(" ", "%20"))
        )
    },
    { weight: 1, arbitrary: fc.integer({ min: 300, max: 3_000 }).map((n) => "a".repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 50, max: 800 }).map((n) => percent("😀".repeat(n))) }
  )

const base64url = (s: string) => Buffer.from(s, "utf8").toString("base64url")

/** Cursors: junk, base64url of other JSON, and canonical-looking ones for odd positions. */
const cursorValue = fc.oneof(
  shortText.map(percent),
  fc.jsonValue({ maxDepth: 2 }).map((v) => base64url(JSON.stringify(v) ?? "")),
  fc
    .tuple(fc.constantFrom(0, 1, 2, "1"), fc.date({ noInvalidDate: true }), fc.oneof(fc.uuid(), shortText))
    .map(([version, date, id]) => base64url(JSON.stringify([version, date.toISOString(), id]))),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.uuid())
    .map(([year, id]) => base64url(JSON.stringify([1, `${String(year).padStart(4, "0")}-01-01T00:00:00.000Z`, id]))),
  fc.integer({ min: 257, max: 2_000 }).map((n) => "A".repeat(n))
)

const limitValue = fc.oneof(
  fc.integer({ min: -5, max: 130 }).map(String),
  fc.constantFrom(
    "",
    "1e1",
    "0x10",
    "25.0",
    "%205",
    "5%20",
    "99999999999999999999",
    "NaN",
    "null",
    "[]",
    "01",
    "007",
    "1,2"
  )
)

type Param = readonly [name: string, value: fc.Arbitrary<string>]

/** 0 to 6 parameters: known names (repeated at times) with valid or junk values, unknown names. */
const queryString = (params: ReadonlyArray<Param>): fc.Arbitrary<string> => {
  const value = (valid: fc.Arbitrary<string>) =>
    fc.oneof(
      { weight: 2, arbitrary: valid },
      { weight: 2, arbitrary: shortText.map(percent) },
      { weight: 1, arbitrary: urlJunk }
    )
  const pair = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(...params).chain(([name, valid]) => value(valid).map((v) => `${name}=${v}`))
    },
    { weight: 1, arbitrary: fc.tuple(shortText.map(percent), shortText.map(percent)).map(([k, v]) => `${k}=${v}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "limit",
        "limit=",
        "=",
        "&",
        "limit[]=1",
        "limit[a]=1",
        "__proto__=1",
        "constructor=x",
        "toString=1"
      )
    }
  )
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant("") },
    { weight: 6, arbitrary: fc.array(pair, { minLength: 1, maxLength: 6 }).map((pairs) => `?${pairs.join("&")}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "?",
        "?&&",
        "?==",
        "?%",
        "?limit=1&limit=2",
        "?limit=1&limit=1",
        "?status=created&status=failed",
        "?#x"
      )
    }
  )
}

// ---------------------------------------------------------------------------------------------
// Routes

interface World {
  readonly key: Key
  readonly other: Key
  readonly revoked: Key
  readonly quoteId: string
  readonly contractId: string
  readonly eventId: string
  readonly customer: string
  readonly quote: Readonly<Record<string, unknown>>
  readonly contract: Readonly<Record<string, unknown>>
  readonly funds: Readonly<Record<string, unknown>>
  readonly exercise: Readonly<Record<string, unknown>>
}

interface Case extends RawRequest {
  readonly route: string
  readonly label: string
}

const merge = (...parts: ReadonlyArray<Headers>) => ({
  label: parts.map((p) => p.label).join(" "),
  headers: Object.assign({}, ...parts.map((p) => p.headers)) as Record<string, string>
})

const post = (
  w: World,
  route: string,
  path: fc.Arbitrary<string>,
  body: fc.Arbitrary<Body | undefined>,
  keyed = true
): fc.Arbitrary<Case> =>
  fc
    .record({
      path,
      body,
      creds: credentials(w),
      key: keyed ? idempotencyKey : fc.constant({ label: "", headers: {} }),
      type: contentType
    })
    .map(({ path, body, creds, key, type }) => {
      const headers = merge(creds, key, body === undefined ? { label: "", headers: {} } : type)
      return {
        route,
        method: "POST",
        path,
        headers: headers.headers,
        body: body?.text,
        label: `${body?.label ?? "no body"} | ${headers.label}`
      }
    })

const get = (w: World, route: string, path: fc.Arbitrary<string>, query: fc.Arbitrary<string>): fc.Arbitrary<Case> =>
  fc
    .record({
      path,
      query,
      creds: credentials(w),
      // now and then a body on a GET
      body: fc.option(fc.constantFrom('{"limit": 1}', "not json", "[]"), { freq: 10 }),
      type: contentType
    })
    .map(({ path, query, creds, body, type }) => {
      const headers = merge(creds, body === null ? { label: "", headers: {} } : type)
      return {
        route,
        method: "GET",
        path: `${path}${query}`,
        headers: headers.headers,
        body: body ?? undefined,
        label: `${query.slice(0, 60)} ${body === null ? "" : "with a body "}| ${headers.label}`
      }
    })

const uuidOr = (...known: ReadonlyArray<string>) => fc.oneof(fc.uuid(), fc.constantFrom(...known))

const routes = (w: World): fc.Arbitrary<Case> => {
  const quotesCreate = post(
    w,
    "POST /fx/quotes",
    fc.constant("/api/v1/fx/quotes"),
    bodyFrom(w.quote, ["provider_extra_spread", "strike_mode", "target_strike"])
  )
  const contractsCreate = post(w, "POST /fx/contracts", fc.constant("/api/v1/fx/contracts"), bodyFrom(w.contract))
  const inbound = post(
    w,
    "POST /fx/webhooks/inbound",
    fc.constant("/api/v1/fx/webhooks/inbound"),
    fc.oneof(bodyFrom(w.funds), bodyFrom(w.exercise, ["payout_currency"]))
  )
  const redeliver = post(
    w,
    "POST /fx/webhook-events/{id}/redeliver",
    segment(uuidOr(w.eventId)).map((id) => `/api/v1/fx/webhook-events/${id}/redeliver`),
    fc.option(fc.oneof(bodyFrom({ reason: "retry" }), wholeBody("{}")), { freq: 2 }).map((b) => b ?? undefined)
  )
  const status = (...values: ReadonlyArray<string>) => fc.constantFrom(...values)
  const limit: Param = ["limit", limitValue]
  const cursor: Param = ["cursor", cursorValue]
  const quotesList = get(
    w,
    "GET /fx/quotes",
    fc.constant("/api/v1/fx/quotes"),
    queryString([
      ["status", status("created", "failed")],
      ["customer_reference_id", fc.constant(w.customer)],
      limit,
      cursor
    ])
  )
  const quotesGet = get(
    w,
    "GET /fx/quotes/{id}",
    segment(uuidOr(w.quoteId)).map((id) => `/api/v1/fx/quotes/${id}`),
    queryString([limit])
  )
  const locks = get(
    w,
    "GET /fx/customers/{id}/locks",
    segment(fc.constant(w.customer)).map((c) => `/api/v1/fx/customers/${c}/locks`),
    queryString([["status", status("quote_created", "active", "settled", "expired")], limit, cursor])
  )
  const events = get(
    w,
    "GET /fx/webhook-events",
    fc.constant("/api/v1/fx/webhook-events"),
    queryString([
      ["direction", status("incoming", "outgoing")],
      ["fx_contract_id", uuidOr(w.contractId)],
      limit,
      cursor
    ])
  )
  const payouts = get(
    w,
    "GET /fx/payout-events",
    fc.constant("/api/v1/fx/payout-events"),
    queryString([
      ["since", fc.constantFrom("2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z", "1970-01-01T00:00:00Z")],
      limit,
      cursor
    ])
  )
  const me = get(w, "GET /partners/me", fc.constant("/api/v1/partners/me"), queryString([["x", fc.constant("1")]]))
  const system = get(
    w,
    "GET /health, /ready",
    fc.constantFrom("/health", "/ready"),
    queryString([["verbose", fc.constant("1")]])
  )
  const elsewhere = fc
    .record({
      method: fc.constantFrom("PUT", "PATCH", "DELETE", "OPTIONS", "GET", "POST"),
      path: fc.oneof(
        fc.constantFrom(
          "/api/v1/fx/quotes/",
          "/API/V1/FX/QUOTES",
          "//api/v1/fx/quotes",
          "/api/v1/fx//quotes",
          "/api/v1/fx/contracts",
          "/api/v2/fx/quotes",
          "/api/v1/partners/me/",
          "/api/v1/fx/webhooks/inbound/",
          "/%2e%2e/api/v1/fx/quotes",
          "/api/v1/fx/quotes/%2e%2e/quotes",
          "/"
        ),
        segment(fc.constant("x")).map((s) => `/api/v1/${s}`)
      ),
      creds: credentials(w),
      body: fc.option(fc.constant(JSON.stringify(w.contract)), { freq: 2 })
    })
    .map(
      ({ method, path, creds, body }): Case => ({
        route: "unknown route or method",
        method,
        path,
        headers: body === null ? creds.headers : { ...creds.headers, "Content-Type": "application/json" },
        body: body ?? undefined,
        label: creds.label
      })
    )
  return fc.oneof(
    { weight: 20, arbitrary: quotesCreate },
    { weight: 12, arbitrary: contractsCreate },
    { weight: 15, arbitrary: inbound },
    { weight: 7, arbitrary: redeliver },
    { weight: 8, arbitrary: quotesList },
    { weight: 7, arbitrary: quotesGet },
    { weight: 8, arbitrary: locks },
    { weight: 6, arbitrary: events },
    { weight: 6, arbitrary: payouts },
    { weight: 4, arbitrary: me },
    { weight: 4, arbitrary: system },
    { weight: 3, arbitrary: elsewhere }
  )
}

// ---------------------------------------------------------------------------------------------

type Outcome = { readonly case: Case; readonly reply: RawReply } | { readonly case: Case; readonly error: string }

const show = (o: Outcome) => {
  const what = `${o.case.method} ${o.case.path.slice(0, 120)}${o.case.path.length > 120 ? "…" : ""} [${o.case.label.slice(0, 200)}]`
  return "error" in o
    ? `${what} → client error ${o.error}`
    : `${what} → ${o.reply.status} ${o.reply.text.slice(0, 300)}`
}

layer(serverLayer({ rateLimit: { ratePerSecond: 1_000_000, burst: 1_000_000 } }), {
  excludeTestServices: true,
  timeout: "120 seconds"
})("fuzz", (it) => {
  it.effect(
    `${caseCount} generated malformed requests: no 5xx, the error envelope on every non-2xx, the server still serves`,
    () =>
      Effect.gen(function* () {
        const { baseUrl, a, b } = yield* TestServer
        const customer = "cust-fuzz"
        const quote = yield* createQuote(baseUrl, a.sandbox, { customer_reference_id: customer })
        const { contract } = yield* createContract(baseUrl, a.sandbox, { customer_reference_id: customer })
        yield* activate(contract)
        const outgoing = yield* request(
          baseUrl,
          "GET",
          `/api/v1/fx/webhook-events?direction=outgoing&fx_contract_id=${contract.id}`,
          {
            key: a.sandbox
          }
        )
        const now = DateTime.formatIso(yield* DateTime.now)
        const world: World = {
          key: a.sandbox,
          other: b.sandbox,
          revoked: a.revoked,
          quoteId: quote.id,
          contractId: contract.id,
          eventId: outgoing.json.items[0].id,
          customer,
          quote: yield* quoteBody({ customer_reference_id: customer }),
          contract: { quote_id: quote.id, partner_transaction_reference: "ptx-fuzz" },
          funds: {
            event_type: "funds_in_route",
            fx_contract_id: contract.id,
            payment_type: "premium",
            amount: "1.5",
            currency: "USDC",
            chain: "polygon",
            transaction_hash: "0xabc",
            source_wallet_address: "0x2222222222222222222222222222222222222222"
          },
          exercise: {
            event_type: "contract_exercised",
            fx_contract_id: contract.id,
            executed_at: now,
            live_execution_rate: "5.0",
            payout_wallet_address: "0x1111111111111111111111111111111111111111",
            chain: "polygon"
          }
        }

        const cases = fc.sample(routes(world), { seed, numRuns: caseCount })
        const via = agent(inFlight)
        const outcomes = yield* Effect.forEach(
          cases,
          (c) =>
            Effect.promise(
              (): Promise<Outcome> =>
                send(baseUrl, via, c).then(
                  (reply) => ({ case: c, reply }),
                  (e: unknown) => ({ case: c, error: String(e) })
                )
            ),
          { concurrency: inFlight }
        )
        via.destroy()

        const statuses = new Map<number, number>()
        const perRoute = new Map<string, number>()
        // what is wrong → the cases it happened to
        const failures = new Map<string, Array<string>>()
        const fail = (kind: string, o: Outcome) => failures.set(kind, [...(failures.get(kind) ?? []), show(o)])
        for (const o of outcomes) {
          perRoute.set(o.case.route, (perRoute.get(o.case.route) ?? 0) + 1)
          if ("error" in o) {
            fail("client error", o)
            continue
          }
          const { status } = o.reply
          statuses.set(status, (statuses.get(status) ?? 0) + 1)
          const problem =
            status >= 500
              ? `${status} on ${o.case.route}`
              : envelopeProblem({ status, text: o.reply.text, contentType: o.reply.headers["content-type"] })
          if (problem !== undefined) fail(status >= 500 ? problem : `${status}: ${problem}`, o)
        }
        const summary = [...statuses]
          .sort(([x], [y]) => x - y)
          .map(([s, n]) => `${s}×${n}`)
          .join(" ")
        console.log(`fuzz: ${outcomes.length} requests, statuses ${summary}`)
        const report = [...failures].map(
          ([kind, all]) => `${kind} (${all.length}×), e.g.\n    ${all.slice(0, 3).join("\n    ")}`
        )
        assert.deepStrictEqual(report, [], `bad answers:\n  ${report.join("\n  ")}`)
        assert.isAtLeast(outcomes.length, 2_000)
        // a generous budget: every request reached authentication and validation
        assert.isFalse(statuses.has(429), "rate limited")
        // the requests reached validation: most are refused there, field by field
        assert.isAtLeast(statuses.get(422) ?? 0, outcomes.length * 0.4, summary)
        for (const [route, n] of perRoute) assert.isAtLeast(n, 50, route)
        assert.strictEqual(perRoute.size, 12)

        const health = yield* request(baseUrl, "GET", "/health")
        assert.deepStrictEqual([health.status, health.json], [200, { status: "ok" }])
        const ready = yield* request(baseUrl, "GET", "/ready")
        assert.deepStrictEqual([ready.status, ready.json], [200, { status: "ready", database: "ok" }])
        const valid = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", { key: a.sandbox, body: yield* quoteBody() })
        assert.deepStrictEqual([valid.status, valid.json.status], [201, "created"])
        const me = yield* request(baseUrl, "GET", "/api/v1/partners/me", { key: a.sandbox })
        assert.deepStrictEqual([me.status, me.json.partner_id], [200, a.id])
      }),
    // thousands of requests: seconds alone, longer on a busy 2-core machine
    120_000
  )
  // what the fuzzing found, as fixed cases: they pass or fail whatever the generated sample holds
  describe("found by fuzzing", () => {
    const refusedCleanly = (reply: RawReply, what: string) => {
      assert.isBelow(reply.status, 500, `${what}: ${reply.status} ${reply.text}`)
      assert.isUndefined(
        envelopeProblem({ status: reply.status, text: reply.text, contentType: reply.headers["content-type"] }),
        what
      )
    }

    it.effect("a NUL character in a text the store keeps or searches is refused, not a 500", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const via = agent(1)
        const headers = { ...credentialHeaders(a.sandbox), "Content-Type": "application/json" }
        const cases: ReadonlyArray<readonly [string, RawRequest]> = [
          [
            "customer_name with NUL",
            {
              method: "POST",
              path: "/api/v1/fx/quotes",
              headers,
              body: JSON.stringify(yield* quoteBody({ customer_name: "Ana\u0000Souza" }))
            }
          ],
          [
            "customer_reference_id query with NUL",
            { method: "GET", path: "/api/v1/fx/quotes?customer_reference_id=cust%00", headers }
          ],
          ["customer path segment with NUL", { method: "GET", path: "/api/v1/fx/customers/cust%00/locks", headers }]
        ]
        for (const [what, req] of cases) refusedCleanly(yield* Effect.promise(() => send(baseUrl, via, req)), what)
        via.destroy()
      })
    )

    it.effect("redeliver with an Idempotency-Key and a body that is not JSON is refused, not a 500", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const via = agent(1)
        const reply = yield* Effect.promise(() =>
          send(baseUrl, via, {
            method: "POST",
            path: "/api/v1/fx/webhook-events/01a20000-0000-7000-8000-00000000beef/redeliver",
            headers: {
              ...credentialHeaders(a.sandbox),
              "Content-Type": "application/json",
              "Idempotency-Key": newKey()
            },
            body: "{"
          })
        )
        via.destroy()
        refusedCleanly(reply, "redeliver with body {")
      })
    )

    it.effect("415 unsupported_media_type is served as application/json", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const reply = yield* request(baseUrl, "POST", "/api/v1/fx/contracts", {
          key: a.sandbox,
          headers: { "content-type": "text/plain" },
          body: "{}"
        })
        assert.deepStrictEqual([reply.status, reply.json.error.code], [415, "unsupported_media_type"])
        assert.match(reply.headers.get("content-type") ?? "", /^application\/json/)
      })
    )
  })
})
