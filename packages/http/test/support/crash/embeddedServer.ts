/**
 * `pnpm start` on a fresh embedded data directory for the crash tests, as an operator runs it: a
 * partner created with the CLI whose sandbox webhook points at a receiver, then the server,
 * stopped with any signal and started again at once as often as the test likes. What the
 * database must hold before the first start (policies, tokens) is set up with the CLI in
 * `prepare`; what must be done while the server is down (the data directory takes one process at
 * a time) is given to `restart`.
 */
import { freePort } from "@ratelock/test-support/Processes"
import { type Receiver, start as startReceiver } from "@ratelock/test-support/WebhookReceiver"
import type { PartnerKey } from "./patientPartner.ts"
import { cliJson, type Service, start, tempDataDir } from "../process.ts"

export interface Options {
  /** `RATELOCK_SANDBOX_CONFIRM_MS`: how long a sandbox transfer takes to confirm. */
  readonly confirmMs: number
  /** More settings of the server. */
  readonly env?: Record<string, string>
  /** CLI commands on the data directory before the server first starts. */
  readonly prepare?: (dataDir: string) => Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves once `/ready` answers 200, or fails if the process ends first. */
const ready = async (service: Service, baseUrl: string) => {
  let ended = false
  void service.exited.then(() => (ended = true))
  for (;;) {
    if (ended) throw new Error(`the server exited while starting: ${service.stderr()}`)
    const ok = await fetch(`${baseUrl}/ready`).then(
      (r) => r.ok,
      () => false
    )
    if (ok) return
    await sleep(50)
  }
}

/** One server on an embedded data directory, restarted at once whenever it is stopped. */
export const embeddedServer = async (options: Options) => {
  const dataDir = tempDataDir()
  const receiver: Receiver = await startReceiver()
  const created = await cliJson(
    dataDir,
    "partner",
    "create",
    "--name",
    "Crash Pay",
    "--webhook-url-sandbox",
    receiver.url
  )
  const sandbox = created.environments.sandbox
  receiver.setSecret(sandbox.webhook_secret)
  await options.prepare?.(dataDir)
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const settings = {
    PORT: String(port),
    RATELOCK_LOG_LEVEL: "Warn",
    RATELOCK_DEMO_PARTNER: "false",
    RATELOCK_RATE_LIMIT_PER_SECOND: "100000",
    RATELOCK_RATE_LIMIT_BURST: "100000",
    RATELOCK_SANDBOX_CONFIRM_MS: String(options.confirmMs),
    ...options.env
  }
  let service = start(dataDir, settings)
  await ready(service, baseUrl)
  return {
    dataDir,
    receiver,
    baseUrl,
    key: { keyId: sandbox.api_key_id as string, secret: sandbox.api_key_secret as string } satisfies PartnerKey,
    /** What the running server printed since it last started. */
    output: () => service.stdout() + service.stderr(),
    /**
     * Stops the server with `signal`, runs `whileStopped` (if given) on the free data directory,
     * and starts it again; resolves once it is ready.
     */
    restart: async (signal: NodeJS.Signals, whileStopped?: () => Promise<void>) => {
      service.child.kill(signal)
      const code = await service.exited
      if (signal === "SIGTERM" && code !== 0) throw new Error(`SIGTERM: exited ${code}: ${service.stderr()}`)
      await whileStopped?.()
      service = start(dataDir, settings)
      await ready(service, baseUrl)
    },
    /** Stops the server gracefully (the data directory is then free to open) and closes the receiver. */
    stop: async () => {
      service.child.kill("SIGTERM")
      await service.exited
      await receiver.close()
    }
  }
}

export type EmbeddedServer = Awaited<ReturnType<typeof embeddedServer>>
