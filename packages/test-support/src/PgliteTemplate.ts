/**
 * Embedded databases for tests, started from one PGlite has initialised once. Opening an empty data
 * directory or a new in-memory database runs PGlite's initdb: about 4 s of CPU, hundreds of times a
 * suite. A copy of a cluster initialised earlier opens in a fraction of that and is the same
 * database: PGlite's own empty cluster, before any migration, so a store opened on it migrates and
 * behaves as on a directory PGlite has just initialised.
 *
 * The template is made on first use, by a process of its own so that callers stay synchronous, and kept
 * under `node_modules/.cache`, one per PGlite build: a data directory (copied for the processes the
 * tests start) and its dump (loaded by in-memory stores). Test files running side by side may each
 * make one; the first to finish is kept.
 */
import { PGlite } from "@electric-sql/pglite"
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"

const repositoryRoot = join(import.meta.dirname, "..", "..", "..")

/** The cache folder of this PGlite build: named by its installed package's version. */
const pglite = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "node_modules", "@electric-sql", "pglite", "package.json"), "utf8")
) as { readonly version: string }
const home = join(repositoryRoot, "node_modules", ".cache", "ratelock-pglite-template", pglite.version)
const dataDir = join(home, "data")
const dumpFile = join(home, "dump.tar")

/** Initialises the template and dumps it: run as a process of its own (below), so callers stay synchronous. */
const make = async () => {
  mkdirSync(dirname(home), { recursive: true })
  const staging = mkdtempSync(`${home}-making-`)
  const db = await PGlite.create({ dataDir: join(staging, "data") })
  const dump = await db.dumpDataDir("none")
  await db.close()
  writeFileSync(join(staging, "dump.tar"), new Uint8Array(await dump.arrayBuffer()))
  try {
    renameSync(staging, home)
  } catch {
    // another test file made it first: keep that one
    rmSync(staging, { recursive: true, force: true })
  }
}

if (import.meta.main) await make()

const ensure = () => {
  if (existsSync(dumpFile)) return
  const made = spawnSync(process.execPath, [import.meta.filename], { stdio: "inherit" })
  if (made.status !== 0) throw new Error(`making the PGlite template exited ${made.status ?? made.signal}`)
}

/** Fills `target` (a data directory not yet created) with a copy of the template's. */
export const seedDataDir = (target: string): void => {
  ensure()
  cpSync(dataDir, target, { recursive: true })
}

let dumped: Uint8Array<ArrayBuffer> | undefined

/** The template's dump, for `PgliteClient.layer({ loadDataDir })`: a new in-memory database without initdb. */
export const dump = (): Blob => {
  if (dumped === undefined) {
    ensure()
    dumped = new Uint8Array(readFileSync(dumpFile))
  }
  return new Blob([dumped])
}
