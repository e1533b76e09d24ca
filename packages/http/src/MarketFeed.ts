/**
 * The market-data feed (`RATELOCK_MARKET_FEED_URL`): polled by the workers every
 * `RATELOCK_MARKET_FEED_INTERVAL_SECONDS` with a conditional GET (`If-None-Match` the last `ETag`),
 * each new document imported as `ratelock market import` does. A feed that fails or serves a
 * document that is refused is logged and counted (`ratelock_market_feed_failures_total`); the last
 * good snapshot stays in force until it is stale.
 */
import {
  type IdGenerator,
  IssueDetail,
  type MarketSnapshotRepo,
  MarketSnapshots,
  type StoreError
} from "@ratelock/core"
import type { Digest } from "effect/crypto"
import { Data, DateTime, Duration, Effect, Layer, Metric, Ref, Schedule } from "effect"
import * as Metrics from "./Metrics.ts"

export class FeedError extends Data.TaggedError("FeedError")<{ readonly message: string }> {}

/** Polls that failed: unreachable, an HTTP error, not JSON, or a document refused. */
export const failures = Metrics.marketFeedFailures

export interface Settings {
  readonly url: string
  readonly interval: Duration.Duration
}

/** What a poll runs on: the snapshot store, ids and hashing. */
export type Requirements = MarketSnapshotRepo.MarketSnapshotRepo | IdGenerator.IdGenerator | Digest.Digest

/** A feed that does not answer within this is a failed poll, not a loop stuck for good. */
export const requestTimeout = Duration.seconds(30)

/** One poll: `unchanged` (304 or a document already stored) or `imported`, with the new ETag kept. */
export const poll = Effect.fn("MarketFeed.poll")(function* (
  url: string,
  etag: Ref.Ref<string | undefined>
): Effect.fn.Return<"imported" | "unchanged", FeedError | StoreError.StoreError, Requirements> {
  const last = yield* Ref.get(etag)
  const response = yield* Effect.tryPromise({
    try: (signal) => fetch(url, { headers: last === undefined ? {} : { "if-none-match": last }, signal }),
    catch: (cause) => new FeedError({ message: `cannot reach ${url}: ${String(cause)}` })
  }).pipe(
    Effect.timeoutOrElse({
      duration: requestTimeout,
      orElse: () =>
        Effect.fail(new FeedError({ message: `${url} did not answer within ${Duration.format(requestTimeout)}` }))
    })
  )
  if (response.status === 304) return "unchanged"
  if (response.status !== 200) return yield* new FeedError({ message: `${url} answered HTTP ${response.status}` })
  const text = yield* Effect.tryPromise({
    try: () => response.text(),
    catch: (cause) => new FeedError({ message: `reading ${url}: ${String(cause)}` })
  }).pipe(
    Effect.timeoutOrElse({
      duration: requestTimeout,
      orElse: () =>
        Effect.fail(
          new FeedError({ message: `${url} did not send its body within ${Duration.format(requestTimeout)}` })
        )
    })
  )
  const imported = yield* MarketSnapshots.importJson(text).pipe(
    Effect.catchTag("ValidationError", (refused) =>
      Effect.fail(
        new FeedError({
          message: `${url} served a snapshot that is refused: ${refused.detail.map(IssueDetail.line).join("; ")}`
        })
      )
    )
  )
  yield* Ref.set(etag, response.headers.get("etag") ?? undefined)
  if (imported.created) {
    yield* Effect.logInfo(
      `market feed: snapshot ${imported.snapshot.id} (as_of ${DateTime.formatIso(imported.snapshot.asOf)}) imported`
    )
  }
  return imported.created ? "imported" : "unchanged"
})

/** The feed polled for the layer's lifetime; a failed poll is logged and counted, and the loop goes on. */
export const layer = (settings: Settings): Layer.Layer<never, never, Requirements> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const etag = yield* Ref.make<string | undefined>(undefined)
      yield* poll(settings.url, etag).pipe(
        Effect.catchTag("FeedError", (error) =>
          Effect.andThen(Metric.update(failures, 1), Effect.logWarning(`market feed: ${error.message}`))
        ),
        Effect.catchCause((cause) =>
          Effect.andThen(Metric.update(failures, 1), Effect.logError("market feed: poll failed", cause))
        ),
        Effect.repeat(Schedule.spaced(settings.interval)),
        Effect.forkScoped
      )
    })
  )
