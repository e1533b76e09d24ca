/**
 * The embedded store keeps its data in `dataDir`: what one process wrote, the next one reads,
 * and reopening an already migrated directory applies nothing twice; what the last process held
 * (a worker's lease) is free again once it reopens.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  DailyCloseRepo,
  HedgePolicyRepo,
  IdempotencyRepo,
  Money,
  PartnerRepo,
  RiskRevaluationRepo
} from "@ratelock/core"
import { DateTime, Duration, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as EmbeddedStore from "../src/EmbeddedStore.ts"
import * as PgMigrations from "../src/PgMigrations.ts"

const dataDir = mkdtempSync(join(tmpdir(), "ratelock-pglite-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const partner = {
  id: "7c1d2e3f-0000-4000-8000-000000000001",
  name: "Acme Pay",
  createdAt: DateTime.makeUnsafe("2026-03-02T10:00:00.123Z")
}
const scope = { partnerId: partner.id, environment: "sandbox" as const }
const now = DateTime.makeUnsafe("2026-03-02T10:00:00.000Z")
const tomorrow = DateTime.makeUnsafe("2026-03-03T10:00:00.000Z")

describe("EmbeddedStore", () => {
  it.live(
    "keeps its data across a restart on the same dataDir",
    () =>
      Effect.gen(function* () {
        yield* Effect.gen(function* () {
          yield* (yield* PartnerRepo.PartnerRepo).insertPartner(partner)
          const keys = yield* IdempotencyRepo.IdempotencyRepo
          assert.strictEqual((yield* keys.claim(scope, "restart-key", "fp", now, tomorrow))._tag, "Claimed")
          yield* keys.complete(scope, "restart-key", { status: 201, body: "{}" }, tomorrow)
        }).pipe(Effect.provide(EmbeddedStore.layer({ dataDir })))

        yield* Effect.gen(function* () {
          const found = yield* (yield* PartnerRepo.PartnerRepo).findPartner(partner.id)
          assert.deepStrictEqual(
            Option.map(found, (p) => [p.id, p.name, DateTime.formatIso(p.createdAt)]),
            Option.some([partner.id, partner.name, "2026-03-02T10:00:00.123Z"])
          )
          const replay = yield* (yield* IdempotencyRepo.IdempotencyRepo).claim(
            scope,
            "restart-key",
            "fp",
            now,
            tomorrow
          )
          assert.deepStrictEqual(replay, {
            _tag: "Completed",
            fingerprint: "fp",
            response: { status: 201, body: "{}" }
          })
          const sql = yield* SqlClient.SqlClient
          const migrations = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ratelock_migrations`
          assert.strictEqual(migrations[0]?.n, Object.keys(PgMigrations.migrations).length)
        }).pipe(Effect.provide(EmbeddedStore.layer({ dataDir })))
      }),
    60_000
  )

  it.live(
    "frees at reopening the leases the last process held",
    () =>
      Effect.gen(function* () {
        const leasedDir = join(dataDir, "leases")
        const claim = (owner: string) =>
          Effect.flatMap(HedgePolicyRepo.HedgePolicyRepo, (policies) =>
            Effect.flatMap(DateTime.now, (now) =>
              policies.claim({ now, limit: 10, owner, leaseFor: Duration.hours(1) })
            )
          )
        /** The one lease on revaluing the book, or on closing the day, for an hour. */
        const single =
          (repo: RiskRevaluationRepo.RiskRevaluationRepoShape | DailyCloseRepo.DailyCloseRepoShape) =>
          (owner: string) =>
            Effect.flatMap(DateTime.now, (now) =>
              repo.claim({ owner, until: DateTime.addDuration(now, Duration.hours(1)) }, now)
            )
        const revalue = (owner: string) =>
          Effect.flatMap(RiskRevaluationRepo.RiskRevaluationRepo, (r) => single(r)(owner))
        const close = (owner: string) => Effect.flatMap(DailyCloseRepo.DailyCloseRepo, (r) => single(r)(owner))
        // the process that dies holding the pair (the layer closes the database, not the lease)
        yield* Effect.gen(function* () {
          yield* (yield* HedgePolicyRepo.HedgePolicyRepo).upsert({
            environment: "sandbox",
            pair: "USD/BRL",
            targetRatio: Money.one,
            band: Money.unsafe("1000"),
            instrument: "spot",
            valueDays: null,
            updatedAt: now
          })
          assert.strictEqual((yield* claim("worker:1")).length, 1)
          assert.strictEqual((yield* claim("worker:1b")).length, 0, "held for an hour")
          assert.isTrue(yield* revalue("worker:1"))
          assert.isFalse(yield* revalue("worker:1b"), "the revaluation held for an hour")
          assert.isTrue(yield* close("worker:1"))
          assert.isFalse(yield* close("worker:1b"), "the close held for an hour")
        }).pipe(Effect.provide(EmbeddedStore.layer({ dataDir: leasedDir })))

        yield* Effect.gen(function* () {
          const claimed = yield* claim("worker:2")
          assert.deepStrictEqual(
            claimed.map((c) => [c.policy.pair, c.lease.owner]),
            [["USD/BRL", "worker:2"]]
          )
          assert.isTrue(yield* revalue("worker:2"))
          assert.isTrue(yield* close("worker:2"))
        }).pipe(Effect.provide(EmbeddedStore.layer({ dataDir: leasedDir })))
      }),
    60_000
  )
})
