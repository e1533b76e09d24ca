import { Predicate } from "effect"

/**
 * Incoming HTTP headers: a Fetch `Headers`-like object, or a plain record such
 * as Node's `IncomingHttpHeaders` (array values use their first element).
 */
export type HeaderSource =
  | { readonly get: (name: string) => string | null }
  | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const hasGet = (source: HeaderSource): source is { readonly get: (name: string) => string | null } =>
  Predicate.hasProperty(source, "get") && Predicate.isFunction(source.get)

/** Case-insensitive header lookup; absent and empty values are `undefined`. */
export const getHeader = (source: HeaderSource, name: string): string | undefined => {
  const lower = name.toLowerCase()
  if (hasGet(source)) return source.get(lower) || undefined
  for (const key of Object.keys(source)) {
    if (key.toLowerCase() !== lower) continue
    const value = source[key]
    const first = typeof value === "string" ? value : value?.[0]
    if (first) return first
  }
  return undefined
}
