/**
 * What a sandbox partner does and sees in the lifecycle tests, over real HTTP against
 * `lifecycleServer.ts`: quotes and contracts, inbound events, the sandbox helpers, its locks and
 * webhook-event lists, and the deliveries its receiver accepted.
 */
import { DateTime, Effect } from "effect"
import { newKey, type Reply, request } from "./http.ts"
import { createContract, exercise } from "./lifecycle.ts"
import { Lifecycle } from "./lifecycleServer.ts"
import { type Attempt, Receiver } from "./webhookReceiver.ts"
import { waitFor } from "./wait.ts"

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field in tests
type Json = any

/** A call with the partner's sandbox key (or `production`). */
export const call = (
  method: "GET" | "POST",
  path: string,
  options: { readonly body?: unknown; readonly headers?: Record<string, string>; readonly production?: boolean } = {}
): Effect.Effect<Reply, never, Lifecycle> =>
  Effect.flatMap(Lifecycle, (server) =>
    request(server.baseUrl, method, path, {
      key: options.production === true ? server.production : server.sandbox,
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.headers === undefined ? {} : { headers: options.headers })
    })
  )

/** A new contract for a customer of its own (so its locks list shows only this contract). */
export const newContract = Effect.fnUntraced(function* (overrides: Record<string, unknown> = {}) {
  const server = yield* Lifecycle
  const customer = `cust-${newKey()}`
  const { contract } = yield* createContract(server.baseUrl, server.sandbox, {
    customer_reference_id: customer,
    ...overrides
  })
  return { contract: contract as Json, customer }
})

export const inbound = (body: Record<string, unknown>) =>
  call("POST", "/api/v1/fx/webhooks/inbound", { body, headers: { "Idempotency-Key": newKey() } })

/** The customer exercises now at `rate`, paid to an address on polygon. */
export const exerciseAt = (contractId: string, rate: string) =>
  Effect.flatMap(Lifecycle, (server) =>
    exercise(server.baseUrl, server.sandbox, contractId, { live_execution_rate: rate })
  )

/** `POST /api/v1/sandbox/contracts/{id}/{helper}`. */
export const sandbox = (
  contractId: string,
  helper: "fund" | "expire" | "fail-next-payout",
  options: { readonly body?: unknown; readonly production?: boolean } = {}
) => call("POST", `/api/v1/sandbox/contracts/${contractId}/${helper}`, options)

/** The contract's status, from its customer's locks. */
export const status = (customer: string) =>
  Effect.map(call("GET", `/api/v1/fx/customers/${customer}/locks`), (reply): string => reply.json.items[0].status)

/** Waits until the contract's lock has `expected` status. */
export const waitStatus = (customer: string, expected: string) =>
  waitFor(
    `status ${expected} of ${customer}`,
    Effect.map(status(customer), (s) => (s === expected ? s : undefined))
  )

/** Every attempt the receiver saw for the contract, in arrival order. */
export const attemptsOf = (contractId: string) =>
  Effect.flatMap(Receiver, (r) => Effect.map(r.attempts, (all) => all.filter((a) => a.contractId === contractId)))

/** The contract's deliveries the receiver accepted (2xx), in arrival order. */
export const deliveriesOf = (contractId: string) =>
  Effect.map(attemptsOf(contractId), (all) => all.filter((a) => a.answered < 300))

/** Waits for the receiver to accept the contract's `eventType` delivery, and returns its body. */
export const waitEvent = (contractId: string, eventType: string) =>
  waitFor(
    `${eventType} delivered for ${contractId}`,
    Effect.map(deliveriesOf(contractId), (all): Json => all.find((a: Attempt) => a.eventType === eventType)?.json)
  )

/** The contract's outgoing webhook-event records, newest first. */
export const outgoingRecords = (contractId: string) =>
  Effect.map(
    call("GET", `/api/v1/fx/webhook-events?fx_contract_id=${contractId}&direction=outgoing`),
    (reply): Array<Json> => reply.json.items
  )

/** Now as an ISO string, for `since`. */
export const nowIso = Effect.map(DateTime.now, DateTime.formatIso)
