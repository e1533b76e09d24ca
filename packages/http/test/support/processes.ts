/**
 * Several Ratelock processes on one PostgreSQL, as a deployment runs them: API replicas
 * (`src/main.ts` with `RATELOCK_WORKERS=false`) and worker processes (`src/cli.ts worker`), each
 * a child process of the test on a fresh database. Every child is tracked and killed by
 * `Cluster.stop` (call it in `finally`/`afterAll`), and by the test process's own exit.
 */
import { eventually, freePort, type Spawned, start, stop } from "@ratelock/test-support/Processes"
import { join } from "node:path"
import { runCliJson } from "./cliInProcess.ts"

export const packageDir = join(import.meta.dirname, "..", "..")

export interface Child extends Spawned {
  readonly name: string
}

/**
 * The environment of every process: this database, quiet logs, no demo partner, no rate limit, the
 * simulated chain confirming at once.
 */
const environment = (databaseUrl: string, extra: Record<string, string>) => {
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: "10",
    RATELOCK_LOG_LEVEL: "Warn",
    RATELOCK_DEMO_PARTNER: "false",
    RATELOCK_RATE_LIMIT_PER_SECOND: "100000",
    RATELOCK_RATE_LIMIT_BURST: "100000",
    RATELOCK_SANDBOX_CONFIRM_MS: "0",
    // every process (API or worker) runs an operator listener: each on a free port
    RATELOCK_OPERATOR_PORT: "0",
    ...extra
  }
  delete env.INIT_CWD
  return env
}

const healthy = (baseUrl: string) =>
  fetch(`${baseUrl}/health`).then(
    (r) => r.ok,
    () => false
  )

/** Runs `ratelock <args> --json` on the database, in this process, and parses what it printed. */
// biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON is read field by field
export const cliJson = (databaseUrl: string, ...args: ReadonlyArray<string>): Promise<any> =>
  runCliJson(environment(databaseUrl, {}), args)

export interface PartnerCredentials {
  readonly partnerId: string
  readonly keyId: string
  readonly secret: string
  readonly webhookSecret: string
}

/** `ratelock partner create` with a sandbox webhook URL: the sandbox key and webhook secret. */
export const createPartner = async (databaseUrl: string, webhookUrl: string): Promise<PartnerCredentials> => {
  const created = await cliJson(
    databaseUrl,
    "partner",
    "create",
    "--name",
    "Load Pay",
    "--webhook-url-sandbox",
    webhookUrl
  )
  const sandbox = created.environments.sandbox
  return {
    partnerId: created.partner_id,
    keyId: sandbox.api_key_id,
    secret: sandbox.api_key_secret,
    webhookSecret: sandbox.webhook_secret
  }
}

export interface WorkerOptions {
  readonly pollMs?: number
  readonly leaseMs?: number
  /** Settings of this worker alone (its `RATELOCK_HEDGING`, its operator port). */
  readonly env?: Record<string, string>
}

/** The processes of one test, on one database. */
export class Cluster {
  readonly databaseUrl: string
  /** Settings for every process of the cluster. */
  private readonly env: Record<string, string>
  private readonly children = new Set<Child>()
  constructor(databaseUrl: string, env: Record<string, string> = {}) {
    this.databaseUrl = databaseUrl
    this.env = env
  }

  private spawn(name: string, args: ReadonlyArray<string>, extra: Record<string, string>): Child {
    const handle: Child = {
      name,
      ...start(process.execPath, ["--conditions=source", ...args], {
        cwd: packageDir,
        env: environment(this.databaseUrl, { ...this.env, ...extra })
      })
    }
    this.children.add(handle)
    void handle.exited.then(() => this.children.delete(handle))
    return handle
  }

  /** An API replica without workers, on a free port: its base URL once `/health` answers. */
  async startApi(
    name: string,
    extra: Record<string, string> = {}
  ): Promise<{ readonly api: Child; readonly baseUrl: string }> {
    // a port found free can be taken by another test's process before this one listens on it:
    // the service then exits saying so, and starts again on another
    for (let attempt = 1; ; attempt++) {
      const port = await freePort()
      const api = this.spawn(name, ["src/main.ts"], { PORT: String(port), RATELOCK_WORKERS: "false", ...extra })
      const baseUrl = `http://127.0.0.1:${port}`
      const deadline = Date.now() + 60_000
      while (!(await healthy(baseUrl))) {
        if (api.child.exitCode !== null && attempt < 3 && api.output().includes("EADDRINUSE")) break
        if (api.child.exitCode !== null || Date.now() > deadline)
          throw new Error(`${name} did not start: ${api.output()}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      if (api.child.exitCode === null) return { api, baseUrl }
    }
  }

  /** `ratelock worker`, with a short poll and lease; resolves once it announced itself. */
  async startWorker(name: string, options: WorkerOptions = {}): Promise<Child> {
    const worker = this.spawn(name, ["src/cli.ts", "worker"], {
      RATELOCK_WORKER_POLL_MS: String(options.pollMs ?? 100),
      RATELOCK_WORKER_LEASE_MS: String(options.leaseMs ?? 2_000),
      ...options.env
    })
    await eventually(
      () => worker.output().includes("Running the lifecycle workers") || worker.child.exitCode !== null || undefined,
      60_000,
      () => `${name} to start: ${worker.output()}`,
      50
    )
    if (worker.child.exitCode !== null) throw new Error(`${name} exited at start: ${worker.output()}`)
    return worker
  }

  /** SIGKILL: the process ends at once, whatever it was doing; resolves once it is gone. */
  async kill(child: Child): Promise<void> {
    await stop(child.child)
    await child.exited
  }

  /** Kills every process this cluster started. */
  async stop(): Promise<void> {
    await Promise.all([...this.children].map((c) => this.kill(c)))
  }
}
