/**
 * Every repository port of `@ratelock/core` on Postgres, with the schema migrated when the layer
 * is built. `layer` runs on any `PgClient` (a server, or PGlite through `EmbeddedStore`);
 * `layerConfig` connects to `DATABASE_URL`.
 */
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Config, Effect, Layer } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import type { Repos } from "./internal/repos.ts"
import * as Migrations from "./migrations/index.ts"
import * as PgAuditRepo from "./PgAuditRepo.ts"
import * as PgBacklogRepo from "./PgBacklogRepo.ts"
import * as PgContractRepo from "./PgContractRepo.ts"
import * as PgCorridorLimitRepo from "./PgCorridorLimitRepo.ts"
import * as PgDailyCloseRepo from "./PgDailyCloseRepo.ts"
import * as PgEventRepo from "./PgEventRepo.ts"
import * as PgHedgeOrderRepo from "./PgHedgeOrderRepo.ts"
import * as PgHedgePolicyRepo from "./PgHedgePolicyRepo.ts"
import * as PgHotWalletRepo from "./PgHotWalletRepo.ts"
import * as PgIdempotencyRepo from "./PgIdempotencyRepo.ts"
import * as PgMarketSnapshotRepo from "./PgMarketSnapshotRepo.ts"
import * as PgMovementRepo from "./PgMovementRepo.ts"
import * as PgOperatorTokenRepo from "./PgOperatorTokenRepo.ts"
import * as PgPartnerRepo from "./PgPartnerRepo.ts"
import * as PgPayoutRepo from "./PgPayoutRepo.ts"
import * as PgQuoteRepo from "./PgQuoteRepo.ts"
import * as PgReconciliationRepo from "./PgReconciliationRepo.ts"
import * as PgRiskRepos from "./PgRiskRepos.ts"
import * as PgStoreTransaction from "./PgStoreTransaction.ts"
import * as PgWebhookInboxRepo from "./PgWebhookInboxRepo.ts"
import * as PgWorkerHeartbeatRepo from "./PgWorkerHeartbeatRepo.ts"

/** The services every store provides. */
export type { Repos }

/** The migrations table; concurrent starts wait on its lock, and only one applies a migration. */
export const migrationsTable = "ratelock_migrations"

/**
 * Applies pending migrations. The migrator without a schema dump needs nothing but the client
 * (`PgMigrator.run` would also ask for `pg_dump`'s process and file-system services).
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  PgMigrator.MigrationError | SqlError.SqlError,
  PgClient.PgClient | SqlClient.SqlClient
> = Effect.flatMap(PgClient.PgClient, () => PgMigrator.make({})({ loader: Migrations.loader, table: migrationsTable }))

/** Every repository over a `PgClient`, after migrating its database. */
export const layer: Layer.Layer<
  Repos,
  PgMigrator.MigrationError | SqlError.SqlError,
  PgClient.PgClient | SqlClient.SqlClient
> = Layer.mergeAll(
  PgQuoteRepo.layer,
  PgContractRepo.layer,
  PgEventRepo.layer,
  PgIdempotencyRepo.layer,
  PgPayoutRepo.layer,
  PgMovementRepo.layer,
  PgReconciliationRepo.layer,
  PgPartnerRepo.layer,
  PgWebhookInboxRepo.layer,
  PgMarketSnapshotRepo.layer,
  PgCorridorLimitRepo.layer,
  PgHedgePolicyRepo.layer,
  PgHedgeOrderRepo.layer,
  PgOperatorTokenRepo.layer,
  PgWorkerHeartbeatRepo.layer,
  PgBacklogRepo.layer,
  PgRiskRepos.layerScenarios,
  PgRiskRepos.layerRevaluations,
  PgHotWalletRepo.layer,
  PgAuditRepo.layer,
  PgDailyCloseRepo.layer,
  PgStoreTransaction.layer
).pipe(Layer.provide(Layer.effectDiscard(migrate)))

/**
 * The store on the server named by `DATABASE_URL` (pool size `DATABASE_POOL_SIZE`, default 10).
 * The client is exposed too, for readiness checks.
 */
export const layerConfig: Layer.Layer<
  Repos | PgClient.PgClient | SqlClient.SqlClient,
  PgMigrator.MigrationError | SqlError.SqlError | Config.ConfigError
> = layer.pipe(
  Layer.provideMerge(
    PgClient.layerConfig({
      url: Config.Redacted("DATABASE_URL"),
      maxConnections: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(10))
    })
  )
)
