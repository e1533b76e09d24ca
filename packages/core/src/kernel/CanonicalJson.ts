import { Predicate, Result } from "effect"

/** Where and why a value has no faithful JSON form. */
export interface NonJson {
  readonly path: string
  readonly message: string
}

const MAX_DEPTH = 256

/** Orders strings by Unicode code point (not UTF-16 code unit, which differs above U+FFFF). */
export const compareCodePoints = (a: string, b: string): number => {
  let i = 0
  while (i < a.length && i < b.length) {
    const ca = a.codePointAt(i) as number
    const cb = b.codePointAt(i) as number
    if (ca !== cb) return ca - cb
    i += ca > 0xffff ? 2 : 1
  }
  return a.length - b.length
}

const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Canonical JSON text: object keys sorted by code point, no whitespace, numbers and strings as `JSON.stringify`
 * prints them. Undefined object members are omitted; anything `JSON.stringify` would silently change or drop
 * elsewhere (undefined/NaN/±Infinity, functions, symbols, bigints, cycles, Maps and other non-plain objects
 * without `toJSON`) is rejected.
 */
export const canonicalize = (root: unknown): Result.Result<string, NonJson> => {
  const ancestors = new Set<object>()
  const fail = (path: string, message: string) => Result.fail({ path, message })
  const go = (input: unknown, key: string, path: string): Result.Result<string, NonJson> => {
    let value = input
    if (Predicate.isObjectOrArray(value) && Predicate.hasProperty(value, "toJSON")) {
      if (!Predicate.isFunction(value.toJSON)) return fail(path, "toJSON is not a function")
      value = value.toJSON(key)
    }
    if (value === null || typeof value === "boolean" || typeof value === "string") {
      return Result.succeed(JSON.stringify(value))
    }
    if (typeof value === "number") {
      return Number.isFinite(value) ? Result.succeed(JSON.stringify(value)) : fail(path, `${value} is not JSON`)
    }
    if (!Predicate.isObjectOrArray(value)) return fail(path, `${typeof value} is not JSON`)
    if (ancestors.has(value)) return fail(path, "circular reference")
    if (ancestors.size >= MAX_DEPTH) return fail(path, `nested deeper than ${MAX_DEPTH}`)
    if (!Array.isArray(value) && !isPlain(value)) return fail(path, "not a plain object or array")
    ancestors.add(value)
    const parts: Array<string> = []
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = go(value[i], String(i), `${path}[${i}]`)
        if (Result.isFailure(item)) return item
        parts.push(item.success)
      }
    } else {
      const record = value as Record<string, unknown>
      for (const name of Object.keys(record).sort(compareCodePoints)) {
        if (record[name] === undefined) continue
        const member = go(record[name], name, `${path}.${name}`)
        if (Result.isFailure(member)) return member
        parts.push(`${JSON.stringify(name)}:${member.success}`)
      }
    }
    ancestors.delete(value)
    return Result.succeed(Array.isArray(value) ? `[${parts.join(",")}]` : `{${parts.join(",")}}`)
  }
  return go(root, "", "$")
}
