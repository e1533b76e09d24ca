/**
 * OpenAPI transform: a request body whose schema admits `null` may be left out. The server reads
 * an empty body as `null` for such a schema (e.g. the sandbox's fund helper, whose body is
 * optional), but the generated document always marks a request body as required.
 */
type Operation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> } }

const admitsNull = (schema: unknown): boolean =>
  typeof schema === "object" &&
  schema !== null &&
  "anyOf" in schema &&
  Array.isArray(schema.anyOf) &&
  schema.anyOf.some((s: unknown) => typeof s === "object" && s !== null && "type" in s && s.type === "null")

export const optionalBodies = (spec: Record<string, unknown>): Record<string, unknown> => {
  const paths = (spec.paths ?? {}) as Record<string, Record<string, Operation>>
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const body = operation.requestBody
      if (body !== undefined && Object.values(body.content ?? {}).some((media) => admitsNull(media.schema))) {
        body.required = false
      }
    }
  }
  return spec
}
