/**
 * One process at a time on an embedded data directory. PGlite has no cross-process lock, and two
 * processes on one directory would corrupt it: the server and the operator CLI take
 * `<dataDir>/ratelock.lock` (holding the owner's pid) before opening the database, and remove it
 * after closing it. A lock whose pid is no longer running is stale and taken over.
 */
import { Data, Effect } from "effect"
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export const fileName = "ratelock.lock"

export class DataDirInUse extends Data.TaggedError("DataDirInUse")<{
  readonly dataDir: string
  readonly pid: number
}> {
  override get message() {
    return (
      `The data directory ${this.dataDir} is in use by another Ratelock process (pid ${this.pid}), ` +
      `probably the server. Stop it first (the embedded database takes one process at a time), ` +
      `or point RATELOCK_DATA_DIR elsewhere.`
    )
  }
}

const holderOf = (file: string): number | undefined => {
  try {
    const pid = Number.parseInt(readFileSync(file, "utf8").trim(), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Creates the lock file, or names the live process holding it. The file is written under a
 * private name and hard-linked into place, so it never appears half-written.
 */
const take = (dataDir: string): { readonly taken: true } | { readonly holder: number } => {
  mkdirSync(dataDir, { recursive: true })
  const file = join(dataDir, fileName)
  const draft = `${file}.${process.pid}`
  writeFileSync(draft, `${process.pid}\n`)
  try {
    for (;;) {
      try {
        linkSync(draft, file)
        return { taken: true }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
      const holder = holderOf(file)
      if (holder !== undefined && isRunning(holder)) return { holder }
      // stale: its process is gone
      rmSync(file, { force: true })
    }
  } finally {
    rmSync(draft, { force: true })
  }
}

const release = (dataDir: string) =>
  Effect.sync(() => {
    const file = join(dataDir, fileName)
    if (holderOf(file) === process.pid) rmSync(file, { force: true })
  })

/** Holds the lock on `dataDir` for the current scope; fails with `DataDirInUse` when another process has it. */
export const acquire = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.flatMap(Effect.try({ try: () => take(dataDir), catch: (cause) => cause }).pipe(Effect.orDie), (result) =>
      "holder" in result ? Effect.fail(new DataDirInUse({ dataDir, pid: result.holder })) : Effect.void
    ),
    () => release(dataDir)
  )
