/**
 * Walks a worker listing a batch at a time (`Lease.Worker.batch`), each page strictly after the
 * last row of the one before: a pass reaches every row, however many stay listed for long.
 */
import { Effect } from "effect"
import type { Position } from "../../kernel/Cursor.ts"
import { Worker } from "../../kernel/Lease.ts"

export const forEachPage = <A, E, R, E2, R2>(
  list: (limit: number, after?: Position) => Effect.Effect<ReadonlyArray<A>, E, R>,
  positionOf: (row: A) => Position,
  visit: (page: ReadonlyArray<A>) => Effect.Effect<void, E2, R2>
) =>
  Effect.gen(function* () {
    const { batch } = yield* Worker
    let after: Position | undefined
    for (;;) {
      const page = yield* list(batch, after)
      if (page.length > 0) yield* visit(page)
      const last = page.at(-1)
      if (page.length < batch || last === undefined) return
      after = positionOf(last)
    }
  })
