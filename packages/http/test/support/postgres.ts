/**
 * The e2e server of `server.ts` on a real PostgreSQL: `DATABASE_URL`'s server, in a fresh database
 * (`ratelock_http_test_<random>`) created for the layer and dropped with it, with a pool of 10, so
 * requests run in parallel transactions (PGlite serialises them on one connection). Everything else
 * is `server.ts`'s; without `DATABASE_URL` the suites using it are skipped (CI sets it).
 */
import { PgStore } from "@ratelock/adapters-store"
import * as Postgres from "@ratelock/test-support/Postgres"
import { Layer } from "effect"
import { Readiness } from "../../src/server/Readiness.ts"
import { type Provided, layer as serverLayer } from "./server.ts"

export const databaseUrl = Postgres.databaseUrl

/** `server.ts`'s `layer()` with its defaults, on PostgreSQL at `url`. */
export const layer = (url: string): Layer.Layer<Provided> =>
  serverLayer({
    store: Readiness.layerSql.pipe(
      Layer.provideMerge(
        PgStore.layer.pipe(Layer.provideMerge(Postgres.layerFresh(url, { prefix: "ratelock_http_test" })))
      ),
      Layer.orDie
    )
  })
