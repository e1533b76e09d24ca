/**
 * One process at a time on an embedded data directory. PGlite has no cross-process lock, and two
 * processes on one directory would corrupt it: the server and the operator CLI hold an exclusive
 * advisory lock on `<dataDir>/ratelock.lock` (an OFD `fcntl` lock on Linux, `flock` on macOS,
 * `LockFileEx` on Windows) from before the database opens until after it closes.
 *
 * The operating system drops the lock when its holder's process ends, however it ends (kill -9
 * included, before the process is even reaped), so nothing is ever stale and nothing is taken
 * over. The holder writes its pid into the file only to name itself in the refusal message; the
 * content decides nothing. The file is never deleted: a process that opened it just before could
 * then lock the deleted file while a third one locks a new file under the same name.
 */
import { Data, Effect } from "effect"
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

export const fileName = "ratelock.lock"

// a CommonJS package with a prebuilt addon for each platform inside it, and no type declarations
const { tryLock } = createRequire(import.meta.url)("fs-native-extensions") as {
  /** An exclusive lock on the open file, or false when another open file holds one. */
  readonly tryLock: (fd: number) => boolean
}

export class DataDirInUse extends Data.TaggedError("DataDirInUse")<{
  readonly dataDir: string
  /** The holder's pid, as it wrote it (unknown while it has not yet). */
  readonly pid: number | undefined
}> {
  override get message() {
    const holder = this.pid === undefined ? "" : ` (pid ${this.pid})`
    return (
      `The data directory ${this.dataDir} is in use by another Ratelock process${holder}, ` +
      `probably the server. Stop it first (the embedded database takes one process at a time), ` +
      `or point RATELOCK_DATA_DIR elsewhere.`
    )
  }
}

/** The pid the holder wrote, for the message; anything unreadable is unknown. */
const pidIn = (fd: number): number | undefined => {
  try {
    const pid = Number.parseInt(readFileSync(fd, "utf8").trim(), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Locks the file (kept open while held), or reads who holds it. */
const take = (dataDir: string): { readonly fd: number } | { readonly holder: number | undefined } => {
  mkdirSync(dataDir, { recursive: true })
  const fd = openSync(join(dataDir, fileName), constants.O_RDWR | constants.O_CREAT, 0o644)
  try {
    if (!tryLock(fd)) {
      const holder = pidIn(fd)
      closeSync(fd)
      return { holder }
    }
    ftruncateSync(fd, 0)
    writeSync(fd, `${process.pid}\n`, 0)
    return { fd }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** Closing the file is what releases the lock; the pid is cleared first, as the file stays. */
const release = (fd: number) =>
  Effect.sync(() => {
    try {
      ftruncateSync(fd, 0)
    } finally {
      closeSync(fd)
    }
  })

/** Holds the lock on `dataDir` for the current scope; fails with `DataDirInUse` when another process has it. */
export const acquire = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.flatMap(Effect.try({ try: () => take(dataDir), catch: (cause) => cause }).pipe(Effect.orDie), (result) =>
      "fd" in result ? Effect.succeed(result.fd) : Effect.fail(new DataDirInUse({ dataDir, pid: result.holder }))
    ),
    release
  ).pipe(Effect.asVoid)
