/**
 * @ratelock/adapters-store: the repository ports of `@ratelock/core` on Postgres, embedded
 * Postgres (PGlite) and memory, with one behaviour (see README.md).
 */
export * as EmbeddedStore from "./EmbeddedStore.ts"
export * as MemoryStore from "./MemoryStore.ts"
export * as PgliteClient from "./PgliteClient.ts"
export * as PgMigrations from "./PgMigrations.ts"
export * as PgStore from "./PgStore.ts"
export * as SimulatedHedgeVenue from "./SimulatedHedgeVenue.ts"
