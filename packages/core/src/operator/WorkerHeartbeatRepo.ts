/**
 * Persistence port for worker heartbeats: per worker process (`owner`, as on the leases it takes)
 * and pass, when the pass last ran and whether it succeeded. The workers write them every few
 * seconds; the operator's status reads them to say which workers run and which have gone quiet.
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect } from "effect"
import type { StoreError } from "../kernel/StoreError.ts"

export const WorkerHeartbeat = Schema.Struct({
  /** The worker process, `host:pid`. */
  owner: Schema.String,
  /** The pass's name in `WorkerPasses` (`funding`, `payouts`, ...). */
  pass: Schema.String,
  /** When its last pass ended. */
  lastPassAt: Schema.DateTimeUtc,
  /** Whether that pass succeeded (a failed one is logged and the loop goes on). */
  ok: Schema.Boolean
}).annotate({ identifier: "WorkerHeartbeat" })
export type WorkerHeartbeat = typeof WorkerHeartbeat.Type

export interface WorkerHeartbeatRepoShape {
  /** Records these heartbeats, each replacing the one of its owner and pass, in one write. */
  readonly beat: (beats: ReadonlyArray<WorkerHeartbeat>) => Effect.Effect<void, StoreError>
  /** Heartbeats whose pass ended at `since` or later, by owner then pass. */
  readonly list: (since: DateTime.Utc) => Effect.Effect<ReadonlyArray<WorkerHeartbeat>, StoreError>
  /** Forgets heartbeats older than `before` (processes long gone); answers how many. */
  readonly prune: (before: DateTime.Utc) => Effect.Effect<number, StoreError>
}

export class WorkerHeartbeatRepo extends Context.Service<WorkerHeartbeatRepo, WorkerHeartbeatRepoShape>()(
  "@ratelock/core/WorkerHeartbeatRepo"
) {}
