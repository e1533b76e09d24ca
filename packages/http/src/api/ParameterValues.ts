/**
 * OpenAPI transform: a path, query or header parameter whose decoded value is a number (or a
 * boolean) is documented as that value. The wire carries it as text, so Effect documents the
 * string it decodes from (`limit` as `type: string`); OpenAPI describes a parameter by its value
 * and serialises it as text itself, so the value's schema (integer, bounds, default) is the
 * exact one, and what typed clients need to send `limit: 25`.
 */
import { Schema, SchemaAST } from "effect"
import { HttpApi, type HttpApiGroup } from "effect/http-api"

type Parameter = { readonly name: string; readonly in: string; schema?: unknown }
type Operation = { readonly operationId?: string; readonly parameters?: ReadonlyArray<Parameter> }

/** The JSON Schema of each property's decoded value, for the properties decoded to a number or boolean. */
const numericValues = (schema: Schema.Top | undefined): Map<string, Record<string, unknown>> => {
  const values = new Map<string, Record<string, unknown>>()
  const decoded = schema === undefined ? undefined : SchemaAST.toType(schema.ast)
  if (decoded === undefined || !SchemaAST.isObjects(decoded)) return values
  for (const property of decoded.propertySignatures) {
    // a datetime decodes to a `DateTime`, which has no JSON Schema: only plain values are looked at
    if (!["Number", "Boolean"].includes(property.type._tag)) continue
    values.set(String(property.name), Schema.toJsonSchemaDocument(Schema.make(property.type)).schema)
  }
  return values
}

/** Operation id → `in:name` → the decoded value's schema, for every endpoint of `api`. */
const valuesOf = <Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<string, Groups>) => {
  const byOperation = new Map<string, Map<string, Record<string, unknown>>>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      const values = new Map<string, Record<string, unknown>>()
      const parts = [
        ["path", endpoint.params],
        ["query", endpoint.query],
        ["header", endpoint.headers]
      ] as const
      for (const [where, schema] of parts) {
        for (const [name, value] of numericValues(schema)) values.set(`${where}:${name}`, value)
      }
      // the operation ids Effect gives
      const id = group.topLevel ? endpoint.identifier : `${group.identifier}.${endpoint.identifier}`
      if (values.size > 0) byOperation.set(id, values)
    }
  })
  return byOperation
}

export const parameterValues =
  <Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<string, Groups>) =>
  (spec: Record<string, unknown>): Record<string, unknown> => {
    const byOperation = valuesOf(api)
    const paths = (spec.paths ?? {}) as Record<string, Record<string, Operation>>
    for (const item of Object.values(paths)) {
      for (const operation of Object.values(item)) {
        const values = byOperation.get(operation.operationId ?? "")
        for (const parameter of operation.parameters ?? []) {
          const value = values?.get(`${parameter.in}:${parameter.name}`)
          if (value !== undefined) parameter.schema = value
        }
      }
    }
    return spec
  }
