/**
 * The gateway's HTTP transport to its node, counting what it sends: providers bill and rate-limit
 * by JSON-RPC call (each call of a batch counts), and a reconciliation reading thousands of
 * balances must be seen to cost a few calls. Two counters, exported with the host's metrics:
 * HTTP requests by chain and environment (a batch is one), JSON-RPC calls by chain, environment
 * and method. No retries inside viem: core's workers retry on their own schedule.
 */
import type { Partner } from "@ratelock/core"
import { type Context, Metric } from "effect"
import { http } from "viem"

export const requests = Metric.counter("ratelock_evm_rpc_requests_total", {
  description:
    "HTTP requests the EVM gateways sent to their RPC node, by chain and environment (a JSON-RPC batch is one)",
  incremental: true
})

export const calls = Metric.counter("ratelock_evm_rpc_calls_total", {
  description:
    "JSON-RPC calls the EVM gateways sent to their RPC node, by chain, environment and method (each call of a batch counts)",
  incremental: true
})

const methodsOf = (body: unknown): ReadonlyArray<string> => {
  if (typeof body !== "string") return []
  try {
    const parsed = JSON.parse(body) as unknown
    return (Array.isArray(parsed) ? parsed : [parsed]).map((c) =>
      typeof c === "object" && c !== null && "method" in c ? String(c.method) : "unknown"
    )
  } catch {
    return ["unknown"]
  }
}

/**
 * An HTTP transport whose requests are counted in `context`'s metric registry (captured when the
 * layer is built: viem's hook runs outside any fiber). `batchSize`: JSON-RPC batching of the calls
 * made in one tick, at most that many per request.
 */
export const transport = (
  url: string,
  labels: { readonly chain: string; readonly environment: Partner.Environment },
  context: Context.Context<never>,
  batchSize?: number
) =>
  http(url, {
    retryCount: 0,
    ...(batchSize === undefined ? {} : { batch: { batchSize } }),
    onFetchRequest: (_request, init) => {
      Metric.withAttributes(requests, labels).updateUnsafe(1, context)
      const byMethod = new Map<string, number>()
      for (const method of methodsOf(init.body)) byMethod.set(method, (byMethod.get(method) ?? 0) + 1)
      for (const [method, n] of byMethod) Metric.withAttributes(calls, { ...labels, method }).updateUnsafe(n, context)
    }
  })
