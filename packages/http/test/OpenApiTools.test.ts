/**
 * The live `GET /openapi.json` through the third-party tools a partner uses: openapi-typescript
 * generates a client that TypeScript (the workspace's native `tsc`) type-checks with
 * openapi-fetch, a typed `limit: 25` among its calls; Redocly's recommended rules and
 * swagger-parser's validation find no error. Each check is shown to bite on a broken input.
 */
import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, layer } from "@effect/vitest"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import openapiTS, { astToString } from "openapi-typescript"
import { request } from "./support/http.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

// biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
type Json = any

const fetchDocument = Effect.gen(function* () {
  const { baseUrl } = yield* TestServer
  const reply = yield* request(baseUrl, "GET", "/openapi.json")
  assert.strictEqual(reply.status, 200)
  return reply.json as Json
})

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc")

/** The calls a partner's code makes with the generated types; `@ts-expect-error` marks what must not compile. */
const clientSource = `import createClient from "openapi-fetch"
import type { paths, webhooks } from "./schema.ts"

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8080" })
const credentials = { "X-Partner-Key-Id": "id", "X-Partner-Key-Secret": "secret", "X-Partner-Environment": "sandbox" }

export const firstPage = () =>
  client.GET("/api/v1/fx/quotes", { params: { query: { limit: 25, status: "created" } }, headers: credentials })

export const locks = (customer: string, cursor: string) =>
  client.GET("/api/v1/fx/customers/{customer_reference_id}/locks", {
    params: { path: { customer_reference_id: customer }, query: { limit: 100, cursor } },
    headers: credentials
  })

// a page size is a number, not its text
// @ts-expect-error
export const textLimit = () => client.GET("/api/v1/fx/webhook-events", { params: { query: { limit: "25" } } })

export const inbound = (id: string) =>
  client.POST("/api/v1/fx/webhooks/inbound", {
    params: { header: { "idempotency-key": "exercise-0001" } },
    body: { event_type: "funds_in_route", fx_contract_id: id, amount: "1.5" },
    headers: credentials
  })

// the Idempotency-Key of the inbound webhook is required
// @ts-expect-error
export const keyless = (id: string) => client.POST("/api/v1/fx/webhooks/inbound", { body: { event_type: "funds_in_route", fx_contract_id: id } })

export const total = async (quote: string) => {
  const { data } = await client.POST("/api/v1/fx/contracts", { body: { quote_id: quote }, headers: credentials })
  const amount: string | undefined = data?.total_amount
  return amount
}

type Delivery<E extends keyof webhooks> = NonNullable<webhooks[E]["post"]>["requestBody"]["content"]["application/json"]
export const received = (event: Delivery<"funds_received">): string => event.funds.amount
export const signature = (headers: NonNullable<webhooks["payout_settled"]["post"]>["parameters"]["header"]) =>
  headers["x-partner-signature"]
`

/** `tsc --noEmit` on the generated schema and the client calls; its report (empty when they compile). */
const typeCheck = (schema: string) =>
  Effect.acquireUseRelease(
    Effect.promise(async () => {
      // inside the package, so `openapi-fetch` resolves from its node_modules
      const cache = path.join(packageDir, "node_modules", ".cache")
      await mkdir(cache, { recursive: true })
      return mkdtemp(path.join(cache, "openapi-client-"))
    }),
    (dir) =>
      Effect.promise(async () => {
        await writeFile(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
        await writeFile(
          path.join(dir, "tsconfig.json"),
          JSON.stringify({
            compilerOptions: {
              target: "ES2023",
              lib: ["ES2023", "DOM"],
              module: "NodeNext",
              moduleResolution: "NodeNext",
              strict: true,
              exactOptionalPropertyTypes: true,
              noUncheckedIndexedAccess: true,
              allowImportingTsExtensions: true,
              noEmit: true,
              types: []
            },
            files: ["schema.ts", "client.ts"]
          })
        )
        await writeFile(path.join(dir, "schema.ts"), schema)
        await writeFile(path.join(dir, "client.ts"), clientSource)
        return new Promise<string>((resolve) =>
          execFile(process.execPath, [tsc, "-p", dir, "--pretty", "false"], (_error, stdout, stderr) =>
            resolve(`${stdout}${stderr}`.trim())
          )
        )
      }),
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )

const generate = (doc: Json) => Effect.promise(async () => astToString(await openapiTS(structuredClone(doc))))

const lint = (doc: Json) =>
  Effect.promise(async () => {
    const config = await createConfig({ extends: ["recommended"] })
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config })
    const of = (severity: string) =>
      problems.filter((p) => p.severity === severity).map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ""}`)
    return { errors: of("error"), warnings: of("warn") }
  })

const validate = (doc: Json) =>
  Effect.promise(() =>
    SwaggerParser.validate(structuredClone(doc)).then(
      () => "",
      (error: unknown) => String(error)
    )
  )

layer(serverLayer(), { excludeTestServices: true, timeout: "120 seconds" })(
  "OpenAPI document in third-party tools",
  (it) => {
    it.effect(
      "openapi-typescript generates a client that type-checks with openapi-fetch, limit: 25 and all",
      () =>
        Effect.gen(function* () {
          const doc = yield* fetchDocument
          const schema = yield* generate(doc)
          assert.include(schema, "limit?: number;")
          assert.deepStrictEqual(yield* typeCheck(schema), "")
          // the check bites: with limit a string again, as before, `limit: 25` no longer compiles
          const loose = structuredClone(doc)
          for (const parameter of loose.paths["/api/v1/fx/quotes"].get.parameters) {
            if (parameter.name === "limit") parameter.schema = { type: "string" }
          }
          assert.match(yield* typeCheck(yield* generate(loose)), /client\.ts\(\d+,\d+\): error TS2322/)
        }),
      { timeout: 120_000 }
    )

    it.effect("Redocly's recommended rules: no error", () =>
      Effect.gen(function* () {
        const doc = yield* fetchDocument
        const { errors, warnings } = yield* lint(doc)
        assert.deepStrictEqual(errors, [])
        // the one warning left: the document names no license for the API
        assert.deepStrictEqual(warnings, ["info-license #/info"])
        // the check bites: without servers, Redocly reports an error
        const { servers: _, ...serverless } = doc
        assert.include((yield* lint(serverless)).errors, "no-empty-servers #/openapi")
      })
    )

    it.effect("swagger-parser validates the document", () =>
      Effect.gen(function* () {
        const doc = yield* fetchDocument
        assert.strictEqual(yield* validate(doc), "")
        const broken = structuredClone(doc)
        broken.webhooks.funds_received.post.requestBody.content["application/json"].schema = {
          $ref: "#/components/schemas/Missing"
        }
        assert.match(yield* validate(broken), /Missing/)
      })
    )
  }
)
