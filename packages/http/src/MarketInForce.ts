/**
 * The market data in force, as every process of the host reads it (the server, the workers, and the CLI's commands
 * on the database, such as a close of the book): the latest stored snapshot under the freshness rules, production's
 * only while it is at most `RATELOCK_MARKET_MAX_AGE_SECONDS` old. The latest is read again at most once a second, so
 * a snapshot imported by any process is in force in every process within a second, and a quote does not decode the
 * document each time.
 */
import { MarketData, MarketSnapshotRepo } from "@ratelock/core"
import { Duration, Effect, Layer, Option } from "effect"

export const layer = (options: { readonly maxAge: Duration.Duration }) =>
  Layer.effect(
    MarketData.MarketData,
    Effect.gen(function* () {
      const repo = yield* MarketSnapshotRepo.MarketSnapshotRepo
      const latest = yield* Effect.cachedWithTTL(
        Effect.map(
          repo.latest(),
          Option.map((stored) => ({ id: stored.id, snapshot: stored.document }))
        ),
        Duration.seconds(1)
      )
      return MarketData.fromLatest({ latest, maxAge: options.maxAge })
    })
  )
