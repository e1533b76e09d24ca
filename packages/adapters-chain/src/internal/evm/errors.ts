/**
 * What went wrong with a JSON-RPC call, read from viem's error chain, and the `ChainError` reasons
 * it becomes. Messages carry the node's words or the HTTP status, never the RPC URL (which often
 * embeds a provider API key).
 */
import type { ChainGateway } from "@ratelock/core"
import { Effect, Predicate } from "effect"
import { chainError } from "../checks.ts"

export type Failure =
  /** HTTP 429, JSON-RPC -32005 or a node's "rate limit" words. */
  | { readonly _tag: "RateLimited"; readonly message: string }
  /** No answer: connection refused, timeout, HTTP error status. */
  | { readonly _tag: "Unavailable"; readonly message: string }
  /** The node answered with a JSON-RPC error (e.g. a rejected transaction). */
  | { readonly _tag: "Node"; readonly code: number | undefined; readonly message: string }
  /** An `eth_call` reverted or found no contract code. */
  | { readonly _tag: "Contract"; readonly message: string }

const rateLimitWords = /rate limit|too many requests|exceeded .*(capacity|quota)/i

const field = (error: unknown, key: string): unknown =>
  Predicate.isObject(error) && key in error ? (error as Record<string, unknown>)[key] : undefined

const chainOf = (error: unknown): ReadonlyArray<unknown> => {
  const chain: Array<unknown> = []
  for (let e: unknown = error; e !== undefined && e !== null && chain.length < 10; e = field(e, "cause")) chain.push(e)
  return chain
}

const nameOf = (error: unknown) => field(error, "name")
const text = (error: unknown, key: string) => {
  const value = field(error, key)
  return Predicate.isString(value) ? value : undefined
}

const revertNames = new Set([
  "ContractFunctionRevertedError",
  "ContractFunctionZeroDataError",
  "ExecutionRevertedError"
])

export const classify = (error: unknown): Failure => {
  const chain = chainOf(error)
  const rpc = chain.find((e) => Predicate.isNumber(field(e, "code")) && text(e, "details") !== undefined)
  const code = rpc === undefined ? undefined : (field(rpc, "code") as number)
  const details = rpc === undefined ? undefined : text(rpc, "details")
  // HTTP 429 may come with a JSON-RPC body, and some providers put 429 in the JSON-RPC code
  const http429 = chain.some((e) => field(e, "status") === 429)
  if (http429 || code === -32005 || code === 429 || (details !== undefined && rateLimitWords.test(details))) {
    return { _tag: "RateLimited", message: details ?? (http429 ? "HTTP 429" : `JSON-RPC ${code}`) }
  }
  const http = chain.find((e) => nameOf(e) === "HttpRequestError")
  if (http !== undefined) {
    const status = field(http, "status")
    const cause = text(http, "details") ?? "connection failed"
    return { _tag: "Unavailable", message: Predicate.isNumber(status) ? `HTTP ${status}` : `no answer (${cause})` }
  }
  if (chain.some((e) => nameOf(e) === "TimeoutError")) return { _tag: "Unavailable", message: "the request timed out" }
  const reverted = chain.find((e) => revertNames.has(nameOf(e) as string))
  if (reverted !== undefined || code === 3 || (details !== undefined && /revert/i.test(details))) {
    return { _tag: "Contract", message: text(reverted, "shortMessage") ?? details ?? "the call reverted" }
  }
  if (rpc !== undefined) return { _tag: "Node", code, message: details ?? "JSON-RPC error" }
  // not `String(error)`: viem's full messages name the URL
  return {
    _tag: "Unavailable",
    message: text(error, "shortMessage") ?? (error instanceof Error ? error.name : "unknown failure")
  }
}

/**
 * What a node's refusal of `eth_sendRawTransaction` means, in the words geth, erigon, nethermind,
 * bor and anvil use: the same transaction again, no money for gas, its nonce mined by another
 * (`nonce_taken`) or held in the pool by another (`nonce_conflict`), fees too low (below the next
 * block's base fee, or below a pooled transaction at the nonce that it would replace).
 */
export type Rejection = "duplicate" | "insufficient_funds" | "nonce_taken" | "nonce_conflict" | "fee_too_low" | "other"

export const rejection = (message: string): Rejection => {
  if (/already known|already imported|known transaction|already in (the )?(mem)?pool/i.test(message)) return "duplicate"
  if (/insufficient funds/i.test(message)) return "insufficient_funds"
  if (/nonce too low|nonce has already been used|nonce.*already/i.test(message)) return "nonce_taken"
  // "replacement transaction underpriced" too: the pool holds a version (or another transaction) at the
  // nonce paying more, and only a higher fee gets in
  if (/underpriced|fee cap.*base fee|max fee per gas less than|fee too low/i.test(message)) return "fee_too_low"
  if (/already exists/i.test(message)) return "nonce_conflict"
  return "other"
}

/** The general mapping; callers that know better (broadcast, token checks) match `Failure` first. */
export const toChainError = (chain: string, what: string, failure: Failure): ChainGateway.ChainError => {
  switch (failure._tag) {
    case "RateLimited":
      return chainError(chain, "rate_limited", `${what}: rate limited by the RPC (${failure.message})`)
    case "Unavailable":
      return chainError(chain, "rpc_unavailable", `${what}: ${failure.message}`)
    case "Node":
      return chainError(chain, "rpc_error", `${what}: the node answered ${failure.code}: ${failure.message}`)
    case "Contract":
      return chainError(chain, "reverted", `${what}: ${failure.message}`)
  }
}

/** A viem call as an Effect failing with the classified `Failure`. */
export const attempt = <A>(f: () => Promise<A>): Effect.Effect<A, Failure> =>
  Effect.tryPromise({ try: f, catch: classify })

/** A viem call as an Effect failing with a `ChainError` by the general mapping. */
export const call = <A>(chain: string, what: string, f: () => Promise<A>): Effect.Effect<A, ChainGateway.ChainError> =>
  Effect.mapError(attempt(f), (failure) => toChainError(chain, what, failure))
