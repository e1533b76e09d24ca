/**
 * The host's commands as a user runs them, on a temporary embedded data directory (never
 * `DATABASE_URL`, which CI sets for the store suites): the service as `node --conditions=source
 * src/main.ts` in this package, `ratelock worker` as `src/cli.ts worker`; the other CLI commands
 * in the test's own process (`cliInProcess.ts`), `cliProcess` as a process of their own.
 */
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import { eventually, type Spawned, start as spawn } from "@ratelock/test-support/Processes"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type CliResult, runCli, runCliJson } from "./cliInProcess.ts"

export const packageDir = join(import.meta.dirname, "..", "..")

const created: Array<string> = []

/** A path for a data directory, not yet created, under a fresh temporary directory. */
export const emptyDataDir = () => {
  const parent = mkdtempSync(join(tmpdir(), "ratelock-host-"))
  created.push(parent)
  return join(parent, "data")
}

/**
 * A data directory under a fresh temporary directory, holding the embedded database as PGlite
 * initialises it (a copy of `PgliteTemplate`'s, not yet migrated): what the first command on an
 * empty directory would make, without its seconds of initdb. `emptyDataDir` for a test of that start.
 */
export const tempDataDir = () => {
  const dir = emptyDataDir()
  PgliteTemplate.seedDataDir(dir)
  return dir
}

/** Removes every directory `tempDataDir` made (call once the processes on them have ended). */
export const removeTempDirs = () => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true })
}

const environment = (dataDir: string, extra: Record<string, string> = {}) => {
  const env: Record<string, string | undefined> = {
    ...process.env,
    RATELOCK_DATA_DIR: dataDir,
    // the operator listener on a free port too: services of parallel tests never collide
    RATELOCK_OPERATOR_PORT: "0",
    ...extra
  }
  delete env.DATABASE_URL
  delete env.INIT_CWD
  return env
}

export type { CliResult }

/** Runs `ratelock <args>` to completion, in this process (`cliInProcess.ts`). */
export const cli = (dataDir: string, ...args: ReadonlyArray<string>): Promise<CliResult> =>
  cliWith(dataDir, {}, ...args)

/** Runs `ratelock <args>` to completion with `extra` environment variables (settings), in this process. */
export const cliWith = (
  dataDir: string,
  extra: Record<string, string>,
  ...args: ReadonlyArray<string>
): Promise<CliResult> => runCli(environment(dataDir, extra), args)

/** Runs `ratelock <args>` as a process of its own, as a user does: for the tests of the command line itself. */
export const cliProcess = (
  dataDir: string,
  extra: Record<string, string>,
  ...args: ReadonlyArray<string>
): Promise<CliResult> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=source", "src/cli.ts", ...args],
      { cwd: packageDir, env: environment(dataDir, extra) },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
    )
  })

/** Runs `ratelock <args> --json` in this process and parses what it printed. */
// biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON is inspected field by field in tests
export const cliJson = async (dataDir: string, ...args: ReadonlyArray<string>): Promise<any> =>
  runCliJson(environment(dataDir), args)

/** A started process, its output collected (SIGKILLed if the test process exits first). */
export type Service = Spawned

const serviceArgs = ["--conditions=source", "src/main.ts"]

/** Starts `pnpm start`'s command: the service on `dataDir`, port chosen by the system. */
export const start = (dataDir: string, extra: Record<string, string> = {}): Service =>
  spawn(process.execPath, serviceArgs, { cwd: packageDir, env: environment(dataDir, { PORT: "0", ...extra }) })

/** Starts `ratelock worker` on `dataDir`: the lifecycle workers alone, with their operator listener. */
export const startWorker = (dataDir: string, extra: Record<string, string> = {}): Service =>
  spawn(process.execPath, ["--conditions=source", "src/cli.ts", "worker"], {
    cwd: packageDir,
    env: environment(dataDir, extra)
  })

/**
 * `start` under a supervisor that never reaps it: `sh` runs the service in a process group of
 * its own (`setsid`), prints its pid, then becomes `sleep`, which never waits for children. Once
 * killed, the service stays a zombie that keeps its pid until the supervisor is killed (`child`).
 */
export const startUnreaped = (dataDir: string): Service & { readonly pid: Promise<number> } => {
  const script = 'setsid "$@" & echo "service pid $!"; exec sleep 600'
  const service = spawn("sh", ["-c", script, "sh", process.execPath, ...serviceArgs], {
    cwd: packageDir,
    env: environment(dataDir, { PORT: "0" })
  })
  const pid = eventually(() => /service pid (\d+)/.exec(service.stdout())?.[1], 30_000, "the service's pid")
  return { ...service, pid: pid.then(Number) }
}

/** The state letter of a process in `/proc` (`Z`: ended, not yet reaped), undefined once gone. */
export const processState = (pid: number): string | undefined => {
  try {
    return /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1]
  } catch {
    return undefined
  }
}

/** Polls until a value (test-support's, re-exported for the tests here). */
export { eventually }

/** The base URL the service printed once it was ready; fails at once if it ends before. */
export const baseUrlOf = (service: Service) =>
  Promise.race([
    eventually(
      () => /Ratelock ready on (http:\/\/[^\s]+)/.exec(service.stdout() + service.stderr())?.[1],
      60_000,
      "the service to start"
    ),
    service.exited.then((code) => {
      throw new Error(`the service exited ${code} (stdout: ${service.stdout()} stderr: ${service.stderr()})`)
    })
  ])

/** The operator listener's URL the process printed (`Operator API on …`); fails at once if it ends before. */
export const operatorUrlOf = (service: Service) =>
  Promise.race([
    eventually(
      () => /Operator API on (http:\/\/[^\s]+)/.exec(service.stdout() + service.stderr())?.[1],
      60_000,
      "the operator listener to start"
    ),
    service.exited.then((code) => {
      throw new Error(`the process exited ${code} (stdout: ${service.stdout()} stderr: ${service.stderr()})`)
    })
  ])
