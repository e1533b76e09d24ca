/**
 * A worker thread of `pnpm bench:risk`: makes the revaluation's plan from the snapshot document, the instant
 * and the scenario documents it is sent (the same plan as every other thread's), revalues the slice of open
 * locks it receives and answers their sums (`Risk.sumLocks`), a few hundred numbers whatever the slice's size.
 */
import { parentPort } from "node:worker_threads"
import { DateTime, Schema } from "effect"
import * as MarketSnapshot from "../src/market/MarketSnapshot.ts"
import * as Risk from "../src/risk/Risk.ts"
import * as RiskScenario from "../src/risk/RiskScenario.ts"
import * as LocksCodec from "./riskLocksCodec.ts"

export interface Job {
  readonly snapshot: MarketSnapshot.MarketSnapshotEncoded
  readonly now: number
  readonly scenarios: ReadonlyArray<RiskScenario.ScenarioEncoded>
  /** The slice of open locks, in columns (`riskLocksCodec.ts`). */
  readonly locks: LocksCodec.EncodedLocks
}

const decodeSnapshot = Schema.decodeUnknownSync(MarketSnapshot.MarketSnapshot)
const decodeScenario = Schema.decodeUnknownSync(RiskScenario.Scenario)

parentPort!.on("message", (job: Job) => {
  const plan = Risk.plan({
    snapshot: decodeSnapshot(job.snapshot),
    now: DateTime.makeUnsafe(job.now),
    greeks: true,
    scenarios: job.scenarios.map((s) => decodeScenario(s))
  })
  parentPort!.postMessage(Risk.sumLocks(plan, LocksCodec.decode(job.locks)))
})
