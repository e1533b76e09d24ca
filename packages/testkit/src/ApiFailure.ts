/**
 * An API answer that was not a success, as the scenario helpers report it: the status, the
 * envelope's `code` and `message` (api-decisions.md, "Errors"), and the 422 `detail` items.
 */
import { Data } from "effect"

export interface DetailItem {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly type: string
}

export class ApiFailure extends Data.TaggedError("ApiFailure")<{
  readonly method: string
  readonly path: string
  readonly status: number
  /** `error.code` of the envelope, e.g. `outside_window`, `validation_error`. */
  readonly code: string
  readonly message: string
  /** The 422 `detail` items; empty for other statuses. */
  readonly detail: ReadonlyArray<DetailItem>
}> {}
