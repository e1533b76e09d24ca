/**
 * Calls to the Solana JSON-RPC node through web3.js's `Connection`, and the `ChainError` reasons
 * their failures become (and those of transactions that failed on chain). Messages carry the
 * node's words or the HTTP status, never the RPC URL (which often embeds a provider API key).
 */
import type { ChainGateway } from "@ratelock/core"
import { Effect, Predicate } from "effect"
import { chainError } from "../checks.ts"

/** web3.js has no per-request timeout; a node that never answers must not hold a worker forever. */
const timeout = "30 seconds"

/** JSON-RPC codes of a node that is behind or not ready yet: asking again later helps. */
const notReady = new Set([-32001, -32004, -32005, -32007, -32009, -32011, -32014, -32016])

const field = (error: unknown, key: string): unknown =>
  Predicate.isObject(error) && key in error ? (error as Record<string, unknown>)[key] : undefined

const messageOf = (error: unknown): string => {
  const message = field(error, "message")
  const text = Predicate.isString(message) ? message : String(error)
  // undici's "fetch failed" says why only in its cause (ECONNREFUSED, a DNS failure, …)
  const cause = field(field(error, "cause"), "code") ?? field(field(error, "cause"), "message")
  return Predicate.isString(cause) ? `${text} (${cause})` : text
}

/** What a failed call becomes: rate limits and unreachable nodes are told apart from node errors. */
export const toChainError = (what: string, error: unknown): ChainGateway.ChainError => {
  const message = messageOf(error)
  const code = field(error, "code")
  // web3.js reports an HTTP error status as "<status> <text>: <body>"
  if (code === 429 || /^429\b/.test(message) || /too many requests|rate limit/i.test(message)) {
    return chainError("solana", "rate_limited", `${what}: rate limited by the RPC (${message})`)
  }
  if (Predicate.isNumber(code) && !notReady.has(code)) {
    return chainError("solana", "rpc_error", `${what}: the node answered ${code}: ${message}`)
  }
  return chainError("solana", "rpc_unavailable", `${what}: ${message}`)
}

/** A web3.js call as an Effect, failing with the unclassified error (for callers that know better). */
export const attempt = <A>(f: () => Promise<A>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: f, catch: (error) => error }).pipe(
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () => Effect.fail(new Error(`no answer within ${timeout}`))
    })
  )

/** A web3.js call as an Effect failing with a `ChainError` by the general mapping. */
export const call = <A>(what: string, f: () => Promise<A>): Effect.Effect<A, ChainGateway.ChainError> =>
  Effect.mapError(attempt(f), (error) => toChainError(what, error))

/**
 * Why a transaction (a payout, a sweep) failed on chain or in a simulation. `Custom(1)` is the SPL
 * Token program's `InsufficientFunds` in the transfer, and the system program's in the account
 * creation; `AccountNotFound` is a fee payer that was never funded.
 */
export const failureReason = (error: unknown): ChainGateway.FailureReason => {
  if (
    error === "InsufficientFundsForFee" ||
    error === "AccountNotFound" ||
    (Predicate.isObject(error) && "InsufficientFundsForRent" in error)
  ) {
    return "insufficient_funds"
  }
  const instruction = Predicate.isObject(error) && "InstructionError" in error ? error.InstructionError : undefined
  const cause = Array.isArray(instruction) ? instruction[1] : undefined
  if (cause === "InsufficientFunds" || (Predicate.isObject(cause) && "Custom" in cause && cause.Custom === 1)) {
    return "insufficient_funds"
  }
  return "reverted"
}
