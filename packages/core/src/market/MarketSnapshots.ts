/**
 * The operator's market-data programs: import a snapshot document (validated whole, stored once by
 * its hash) and read the snapshot in force with its age.
 */
import { Clock, DateTime, Duration, Effect, Option, Result } from "effect"
import { ValidationError } from "../kernel/ApiError.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as MarketSnapshot from "./MarketSnapshot.ts"
import * as MarketSnapshotRepo from "./MarketSnapshotRepo.ts"

/**
 * Validates `input` as a snapshot document (every failure in the `ValidationError`'s detail, with
 * its path; nothing stored) and stores it; the same document again is the snapshot already stored.
 */
export const importDocument = Effect.fn("MarketSnapshots.importDocument")(function* (input: unknown) {
  return yield* store(yield* MarketSnapshot.decode(input))
})

/** `importDocument` of JSON text (a file, a feed's body); text that is not JSON is refused like a bad document. */
export const importJson = Effect.fn("MarketSnapshots.importJson")(function* (text: string) {
  const checked = MarketSnapshot.validateJson(text, { now: yield* Clock.currentTimeMillis })
  if (Result.isFailure(checked)) return yield* ValidationError.fromIssues(checked.failure)
  return yield* store(checked.success)
})

const store = Effect.fnUntraced(function* (document: MarketSnapshot.MarketSnapshot) {
  const record = yield* MarketSnapshotRepo.record(document, {
    id: yield* (yield* IdGenerator).uuid,
    importedAt: yield* DateTime.now
  })
  return yield* (yield* MarketSnapshotRepo.MarketSnapshotRepo).insert(record)
})

/** The latest stored snapshot and how old its `as_of` is now; none before the first import. */
export const inForce = Effect.fn("MarketSnapshots.inForce")(function* () {
  const latest = yield* (yield* MarketSnapshotRepo.MarketSnapshotRepo).latest()
  const now = yield* DateTime.now
  return Option.map(latest, (snapshot) => ({
    snapshot,
    age: Duration.max(Duration.zero, DateTime.distance(snapshot.asOf, now))
  }))
})
