/**
 * What the operator's status says of this process that only the host knows: its role and name,
 * when it started, the kind of database, production's market-data age limit, and where its hedge
 * orders go. A reference with
 * defaults (a memory store, an API process); the host provides the real values.
 */
import { MarketFreshness } from "@ratelock/core"
import { Context, type Duration } from "effect"
import { hostname } from "node:os"

export interface OperatorInfoShape {
  /** `api`: `pnpm start` (the partner API, with or without workers); `worker`: `ratelock worker`. */
  readonly role: "api" | "worker"
  /** `host:pid`, as on the leases and heartbeats it writes. */
  readonly processName: string
  /** Epoch milliseconds. */
  readonly startedAt: number
  readonly database: "postgresql" | "embedded" | "memory"
  readonly marketMaxAge: Duration.Duration
  /** `RATELOCK_HEDGING`: where this deployment's hedge orders go. */
  readonly hedging: "off" | "manual" | "simulated"
}

/** This process's name on the work it claims, its heartbeats and its `api_replicas` row. */
export const processName = (): string => `${hostname()}:${process.pid}`

const startedAt = Date.now()

export const OperatorInfo = Context.Reference<OperatorInfoShape>("@ratelock/http/OperatorInfo", {
  defaultValue: () => ({
    role: "api",
    processName: processName(),
    startedAt,
    database: "memory",
    marketMaxAge: MarketFreshness.defaultMaxAge,
    hedging: "off"
  })
})
