/**
 * A delivery checked against the OpenAPI document's `webhooks`: its body against the event's
 * request body schema and its headers against the documented header parameters (Ajv, draft
 * 2020-12 with formats, `$ref`s resolved into the document's components).
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { OpenApi } from "effect/http-api"
import { Api } from "../../src/api/Api.ts"

// biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
type Json = any

const doc: Json = OpenApi.fromApi(Api)
const id = "https://ratelock.test/webhooks.json"
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats.default(ajv)
ajv.addSchema({ ...doc, $id: id })

const pointer = (...parts: ReadonlyArray<string>) =>
  parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")

/** What the document says is wrong with a delivery of `body` with `headers`, or undefined. */
export const deliveryProblem = (headers: (name: string) => string | undefined, body: Json): string | undefined => {
  const operation = doc.webhooks?.[body?.event_type]?.post
  if (operation === undefined) return `no webhook in the document for ${body?.event_type}`
  const at = pointer("webhooks", body.event_type, "post", "requestBody", "content", "application/json", "schema")
  const validate = ajv.getSchema(`${id}#/${at}`)!
  if (!validate(body)) return `${body.event_type} body: ${ajv.errorsText(validate.errors)}`
  for (const parameter of operation.parameters as Array<Json>) {
    const value = headers(parameter.name)
    if (value === undefined && parameter.required !== true) continue
    if (value === undefined) return `missing header ${parameter.name}`
    if (!ajv.validate(parameter.schema, value)) return `header ${parameter.name}: ${ajv.errorsText()}`
  }
  return undefined
}
