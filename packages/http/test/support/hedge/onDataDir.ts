import { EmbeddedStore } from "@ratelock/adapters-store"
import { HedgeOrderRepo, IdGenerator } from "@ratelock/core"
import { Effect, Layer, References } from "effect"
import { SecureRandom } from "effect/crypto"
import { manualHedgingPass } from "./manualPass.ts"

/**
 * One hedging pass as the workers run it with RATELOCK_HEDGING=manual, on the embedded database in `dir` (opened
 * here, closed before the next command), with the book's USD/BRL delta in `environment` given: the orders it moved,
 * and the ledger entries of every order.
 */
export const hedgingPass = (dir: string, environment: "sandbox" | "production", delta: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const moved = yield* manualHedgingPass(environment, "USD/BRL", delta)
      const orders = yield* HedgeOrderRepo.HedgeOrderRepo
      const entries = (yield* Effect.forEach(yield* orders.list({ limit: 100 }), (o) =>
        orders.ledgerEntries(o.id)
      )).flat()
      return { moved, entries }
    }).pipe(
      Effect.provide(
        IdGenerator.IdGenerator.layer.pipe(
          Layer.provide(SecureRandom.layerWebCrypto),
          Layer.provideMerge(EmbeddedStore.layer({ dataDir: dir }))
        )
      ),
      // its orders are the test's to read, not lines in the suite's output
      Effect.provideService(References.MinimumLogLevel, "Warn")
    )
  )
