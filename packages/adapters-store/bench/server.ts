/**
 * The Postgres server side of the store benchmark (`bench/store.ts`): a fresh database, and the
 * real `pgbench` with an insert-only script against it.
 */
import * as Postgres from "@ratelock/test-support/Postgres"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

/** Creates `ratelock_bench_<random>` on the server of `url`; it is dropped when the scope closes. */
export const freshDatabase = (url: string) => Postgres.fresh(url, { prefix: "ratelock_bench", report: true })

/** The reference statement; `bench_insert` is created by the benchmark in each database. */
export const insertStatement =
  "INSERT INTO bench_insert (id, created_at, payload) VALUES (gen_random_uuid(), now(), 'x')"

/**
 * Runs `pgbench -n -f <insert script> -c writers -j (1 or 2) -T seconds` against `url` and returns
 * its tps (without initial connection time). The script lives in a temporary directory of the scope.
 */
export const pgbench = (url: string, seconds: number) =>
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.promise(() => mkdtemp(join(tmpdir(), "ratelock-bench-"))),
      (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
    )
    const script = join(dir, "insert.sql")
    yield* Effect.promise(() => writeFile(script, `${insertStatement};\n`))
    return (writers: number): Effect.Effect<number, Error> =>
      Effect.tryPromise({
        try: () =>
          promisify(execFile)("pgbench", [
            ...["-n", "-c", `${writers}`, "-j", writers === 1 ? "1" : "2", "-T", `${seconds}`, "-f", script, url]
          ]),
        catch: (e) => new Error(`pgbench failed: ${String(e)}`)
      }).pipe(
        Effect.flatMap(({ stdout }) => {
          const tps = /^tps = ([\d.]+)/m.exec(stdout)?.[1]
          return tps === undefined ? Effect.fail(new Error(`no tps line in:\n${stdout}`)) : Effect.succeed(Number(tps))
        })
      )
  })
