/**
 * How every partner request is decoded: all failures reported together, unknown properties
 * rejected. The HTTP host passes the same options to its API definition.
 */
import { Schema } from "effect"

export const parseOptions = { errors: "all", onExcessProperty: "error" } as const

/** Decodes an untrusted request body with the request rules above. */
export const decodeRequest = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown) => decode(input, parseOptions)
}
