/**
 * Child processes for tests and benchmarks: spawned with their output collected, SIGKILLed if the
 * test process exits first (a failed test never leaves a server or a chain behind), stopped and
 * awaited; a free port to start them on; and polling until a condition holds.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"

/**
 * The children still running, one set per process: a test file that re-imports this module (its
 * worker shared with other files, on fresh copies of the workspace's modules) finds the same set
 * and adds no second exit hook.
 */
const registry = globalThis as { [key: symbol]: Set<ChildProcess> | undefined }
const liveKey = Symbol.for("@ratelock/test-support/Processes.live")
const live: Set<ChildProcess> = registry[liveKey] ?? new Set<ChildProcess>()
if (registry[liveKey] === undefined) {
  registry[liveKey] = live
  process.once("exit", () => {
    for (const child of live) child.kill("SIGKILL")
  })
}

/** A TCP port free on loopback right now (the system's pick for port 0). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))
      )
    })
  })

/** Waits until `test` returns a value, polling every `everyMs`; fails after `timeoutMs` naming `what`. */
export const eventually = async <A>(
  test: () => A | undefined,
  timeoutMs = 30_000,
  what: string | (() => string) = "condition",
  everyMs = 100
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = test()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

export interface Spawned {
  readonly child: ChildProcess
  /** Everything printed on stdout so far. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** The last 20,000 characters of stdout and stderr, interleaved as they arrived. */
  readonly output: () => string
  /** Resolves with the exit code once the process ends. */
  readonly exited: Promise<number | null>
}

export interface SpawnOptions {
  readonly cwd?: string
  readonly env?: Record<string, string | undefined>
}

/** Starts `command`, its output collected; it is SIGKILLed if still running when the test process exits. */
export const start = (command: string, args: ReadonlyArray<string>, options: SpawnOptions = {}): Spawned => {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] })
  live.add(child)
  let out = ""
  let err = ""
  let both = ""
  child.stdout?.on("data", (chunk) => {
    out += String(chunk)
    both = (both + String(chunk)).slice(-20_000)
  })
  child.stderr?.on("data", (chunk) => {
    err += String(chunk)
    both = (both + String(chunk)).slice(-20_000)
  })
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      live.delete(child)
      resolve(code)
    })
  )
  return { child, stdout: () => out, stderr: () => err, output: () => both, exited }
}

/** Sends `signal` (default SIGKILL: the process ends at once, whatever it was doing); resolves once it is gone. */
export const stop = (child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill(signal)
  })
