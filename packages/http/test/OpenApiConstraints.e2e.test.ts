/**
 * The document's request constraints hold on the real server, driven by the document itself:
 * for every path, query and header parameter and every request body property, each `minLength`,
 * `maxLength`, `minimum`, `maximum`, `pattern`, `format`, `enum` (its own or in its `allOf`, and
 * the `type` of a body field or a number) is sent over HTTP a value just outside it (one the document's own schema refuses,
 * chosen with Ajv) on an otherwise valid request: the server answers 422 with a `detail` item
 * whose `loc` names that field. The same request with the field valid, and with the value at
 * each length and integer bound, is not refused for that field: the document's bounds are the
 * server's, neither looser nor tighter.
 */
import { assert, layer } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { DateTime, Effect } from "effect"
import { newKey, quoteBody, type Reply, request } from "./support/http.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

// biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
type Json = any

type Body = Record<string, unknown>

/** One field of one operation, with its schema and a valid request to vary it in. */
interface Site {
  readonly method: string
  readonly path: string
  readonly where: "path" | "query" | "header" | "body"
  readonly name: string
  readonly schema: Json
  readonly body: Body | undefined
}

const keywords = ["type", "minLength", "maxLength", "minimum", "maximum", "pattern", "format", "enum"] as const
type Keyword = (typeof keywords)[number]

const ajv = new Ajv2020({ strict: false })
addFormats.default(ajv)
const valid = (schema: Json, value: unknown) => ajv.validate(schema, value)

const uuid = "01a20000-0000-7000-8000-000000000000"

/** Values to try against a keyword; a value is used only if the keyword alone refuses it. */
const candidates = (keyword: Keyword, schema: Json): ReadonlyArray<unknown> => {
  switch (keyword) {
    case "type":
      return [5, "abc", 2.5]
    case "minLength":
      return ["k", "5"].map((c) => c.repeat(schema.minLength - 1))
    case "maxLength":
      return ["k", "5"].map((c) => c.repeat(schema.maxLength + 1))
    case "minimum":
      return [schema.minimum - 1]
    case "maximum":
      return [schema.maximum + 1]
    case "enum":
      return ["not-in-the-enum"]
    default:
      // the partner's examples, a calendar date that does not exist, signs, a NUL
      return ["5.4e0", "next tuesday", "2026-02-30T10:00:00Z", "not-a-uuid", "0", "-1", "nul\u0000-in-the-middle"]
  }
}

/** One constraint of a field: a keyword of its schema, or of a member of its `allOf`. */
interface Constraint {
  readonly keyword: Keyword
  readonly label: string
  /** The field's schema without this constraint. */
  readonly rest: Json
  readonly value: unknown
}

/** A site's constraints; `type` only where another type can be sent (not in a string parameter). */
const constraintsOf = (site: Site): Array<Constraint> => {
  const { allOf = [], ...own } = site.schema
  const withAllOf = (schema: Json, members: ReadonlyArray<Json>) =>
    members.length === 0 ? schema : { ...schema, allOf: members }
  return [
    ...keywords
      .filter((k) => (k === "type" ? site.where === "body" || own.type !== "string" : own[k] !== undefined))
      .map((keyword) => {
        const { [keyword]: _, ...rest } = own
        return { keyword, label: keyword, rest: keyword === "type" ? {} : withAllOf(rest, allOf), value: own[keyword] }
      }),
    ...allOf.flatMap((member: Json, i: number) =>
      keywords
        .filter((k) => member[k] !== undefined)
        .map((keyword) => ({
          keyword,
          label: `allOf/${i}/${keyword}`,
          rest: withAllOf(
            own,
            allOf.filter((_: Json, j: number) => j !== i)
          ),
          value: member[keyword]
        }))
    )
  ]
}

/** A value outside the constraint only (else outside it and more). */
const outside = (site: Site, constraint: Constraint): unknown => {
  const alone = { type: site.schema.type, [constraint.keyword]: constraint.value }
  const refused = candidates(constraint.keyword, { ...site.schema, [constraint.keyword]: constraint.value }).filter(
    (value) => !valid(alone, value)
  )
  return refused.find((value) => valid(constraint.rest, value)) ?? refused[0]
}

/** The values at each length and integer bound, inside: not to be refused for this field. */
const atBounds = (schema: Json): ReadonlyArray<unknown> =>
  [
    schema.minLength !== undefined && "k".repeat(schema.minLength),
    schema.maxLength !== undefined && "k".repeat(schema.maxLength),
    schema.minimum,
    schema.maximum
  ].filter((value) => value !== undefined && value !== false && valid(schema, value))

const resolve = (doc: Json, schema: Json): Json =>
  schema?.$ref === undefined ? schema : resolve(doc, doc.components.schemas[schema.$ref.split("/").pop()])

/** A nullable field's constraints are on its non-null member. */
const nonNull = (schema: Json): Json =>
  Array.isArray(schema.anyOf) ? (schema.anyOf.find((s: Json) => s.type !== "null") ?? schema) : schema

/** Valid bodies of the operations that take one, one per member of a body union. */
const validBodies = Effect.gen(function* () {
  return {
    "post /api/v1/fx/quotes": [yield* quoteBody()],
    "post /api/v1/fx/contracts": [{ quote_id: uuid, partner_transaction_reference: "ptx-1" }],
    "post /api/v1/fx/webhooks/inbound": [
      { event_type: "funds_in_route", fx_contract_id: uuid, amount: "1.5", transaction_hash: "0xabc" },
      {
        event_type: "contract_exercised",
        fx_contract_id: uuid,
        executed_at: DateTime.formatIso(yield* DateTime.now),
        live_execution_rate: "5.10",
        payout_wallet_address: "0x1111111111111111111111111111111111111111",
        chain: "polygon"
      }
    ],
    "post /api/v1/sandbox/contracts/{fx_contract_id}/fund": [{ amount: "1" }]
  } as Record<string, ReadonlyArray<Body>>
})

/** Every field of every operation of the document that states a constraint. */
const sitesOf = (doc: Json, bodies: Record<string, ReadonlyArray<Body>>): Array<Site> => {
  const sites: Array<Site> = []
  for (const [path, item] of Object.entries<Record<string, Json>>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      const ofOperation = bodies[`${method} ${path}`]
      for (const parameter of operation.parameters ?? []) {
        const site = { method, path, where: parameter.in, name: parameter.name, schema: parameter.schema }
        if (constraintsOf({ ...site, body: undefined }).length > 0) sites.push({ ...site, body: ofOperation?.[0] })
      }
      const body = operation.requestBody?.content?.["application/json"]?.schema
      if (body === undefined) continue
      const members = (resolve(doc, body).anyOf ?? [body])
        .map((member: Json) => resolve(doc, member))
        .filter((member: Json) => member.type === "object")
      for (const member of members) {
        const base = ofOperation?.find((candidate) => valid(member, candidate))
        assert.isDefined(base, `a valid body of ${method} ${path} for ${Object.keys(member.properties)}`)
        for (const [name, property] of Object.entries<Json>(member.properties)) {
          const schema = nonNull(property)
          assert.notStrictEqual(schema.type, "object", `${method} ${path} ${name}: nested bodies are not walked`)
          sites.push({ method, path, where: "body", name, schema, body: base })
        }
      }
    }
  }
  return sites
}

/** The request of `site`'s operation with its field set to `value` (valid, or left out, when undefined). */
const send = (doc: Json, site: Site, value: unknown) =>
  Effect.gen(function* () {
    const { baseUrl, a } = yield* TestServer
    let path = site.path
    const query = new URLSearchParams()
    const headers: Record<string, string> = {}
    for (const p of doc.paths[site.path][site.method].parameters ?? []) {
      const target = p.in === site.where && p.name === site.name
      const given = target && value !== undefined
      if (!given && !p.required) continue
      const text = given ? String(value) : p.in === "header" ? newKey() : p.schema.format === "uuid" ? uuid : "valid"
      if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(text))
      if (p.in === "query") query.set(p.name, text)
      if (p.in === "header") headers[p.name] = text
    }
    const body = site.where === "body" && value !== undefined ? { ...site.body, [site.name]: value } : site.body
    return yield* request(baseUrl, site.method.toUpperCase(), query.size > 0 ? `${path}?${query}` : path, {
      key: a.sandbox,
      headers,
      ...(body === undefined ? {} : { body })
    })
  })

const locOf = (site: Site) => `${site.where}.${site.name.toLowerCase()}`

/** The fields a 422 names (header names in lower case). */
const locs = (reply: Reply): Array<string> =>
  reply.status !== 422
    ? []
    : (reply.json.detail as Array<{ loc: Array<string | number> }>).map(({ loc }) => loc.join(".").toLowerCase())

/** What cannot be sent at all: a NUL in a header (HTTP refuses it), an empty path segment (another route). */
const unsendable = (site: Site, value: unknown) =>
  (site.where === "header" && String(value).includes("\u0000")) || (site.where === "path" && value === "")

layer(serverLayer(), { excludeTestServices: true, timeout: "300 seconds" })("OpenAPI constraints", (it) => {
  it.effect(
    "every documented request constraint, fed a value just outside it, gets the 422 the document predicts",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const doc = (yield* request(baseUrl, "GET", "/openapi.json")).json as Json
        const tried: Array<string> = []
        const skipped: Array<string> = []
        for (const site of sitesOf(doc, yield* validBodies)) {
          const what = `${site.method.toUpperCase()} ${site.path} ${locOf(site)}`
          const control = yield* send(doc, site, undefined)
          assert.notInclude(locs(control), locOf(site), `${what} valid: ${control.text}`)
          // an opaque cursor is checked beyond its length: only a next_cursor the server gave decodes
          for (const value of site.name === "cursor" ? [] : atBounds(site.schema)) {
            const reply = yield* send(doc, site, value)
            assert.notInclude(locs(reply), locOf(site), `${what} = ${JSON.stringify(value)}: ${reply.text}`)
          }
          for (const constraint of constraintsOf(site)) {
            const value = outside(site, constraint)
            assert.isFalse(valid(site.schema, value), `${what} ${constraint.label}: ${JSON.stringify(value)}`)
            if (unsendable(site, value)) {
              skipped.push(`${locOf(site)} ${constraint.label}`)
              continue
            }
            const reply = yield* send(doc, site, value)
            const about = `${what} ${constraint.label} ${JSON.stringify(value)}: ${reply.text}`
            assert.strictEqual(reply.status, 422, about)
            assert.include(locs(reply), locOf(site), about)
            tried.push(`${what} ${constraint.label}`)
          }
        }
        // the partner's findings are among them
        for (const finding of [
          "POST /api/v1/fx/quotes header.idempotency-key minLength",
          "GET /api/v1/fx/quotes query.limit minimum",
          "GET /api/v1/fx/quotes query.limit maximum",
          "GET /api/v1/fx/quotes query.limit type",
          "POST /api/v1/fx/quotes body.notional_amount pattern",
          "POST /api/v1/fx/quotes body.notional_amount allOf/0/pattern",
          "POST /api/v1/fx/quotes body.provider_extra_spread allOf/0/pattern",
          "POST /api/v1/fx/webhooks/inbound body.live_execution_rate allOf/0/pattern",
          "POST /api/v1/fx/quotes body.window_start format",
          "POST /api/v1/fx/contracts body.quote_id format",
          "GET /api/v1/fx/webhook-events query.fx_contract_id format"
        ]) {
          assert.include(tried, finding)
        }
        assert.isAtLeast(tried.length, 100)
        assert.deepStrictEqual([...new Set(skipped)].sort(), [
          "header.idempotency-key pattern",
          "path.customer_reference_id minLength"
        ])
      }),
    { timeout: 300_000 }
  )
})
