/**
 * The host: its settings, the data-directory lock, and `pnpm start` as a new user runs it (a
 * child process on an empty data directory: demo credentials printed once, the API answering
 * them, SIGTERM finishing the request in flight, then exit 0 with the directory reusable).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Money, QuotePolicy, Requests } from "@ratelock/core"
import { ConfigProvider, DateTime, Duration, Effect, Exit, Option } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { networkInterfaces } from "node:os"
import { join } from "node:path"
import * as HostConfig from "../src/HostConfig.ts"
import * as DataDirLock from "../src/DataDirLock.ts"
import {
  baseUrlOf,
  cliProcess,
  cliJson,
  emptyDataDir,
  eventually,
  operatorUrlOf,
  processState,
  removeTempDirs,
  type Service,
  start,
  startUnreaped,
  startWorker,
  tempDataDir
} from "./support/process.ts"

afterAll(removeTempDirs)

const parse = (env: Record<string, string>) => HostConfig.settings.parse(ConfigProvider.fromEnv({ env }))

describe("settings", () => {
  it.effect("defaults", () =>
    Effect.gen(function* () {
      const s = yield* parse({})
      assert.strictEqual(s.port, 8080)
      // no interface named: Node's default, every interface
      assert.isTrue(Option.isNone(s.host))
      assert.strictEqual(s.operatorPort, 8081)
      assert.strictEqual(s.operatorHost, "127.0.0.1")
      assert.isTrue(s.dataDir.endsWith("/.data"))
      assert.isTrue(Option.isNone(s.databaseUrl))
      assert.strictEqual(Duration.toSeconds(s.quoteTtl), 90)
      assert.strictEqual(Duration.toSeconds(s.maxRateAge), 300)
      assert.strictEqual(Duration.toSeconds(s.fundingWindow), 3600)
      assert.strictEqual(s.maxBodyBytes, 1_048_576)
      assert.isTrue(s.sandbox)
      assert.strictEqual(Duration.toMillis(s.sandboxConfirmDelay), 2000)
      assert.deepStrictEqual(s.productionChains, [])
      assert.isTrue(s.demoPartner)
      assert.strictEqual(s.logLevel, "Info")
      assert.strictEqual(Duration.toMillis(s.workerPoll), 250)
      assert.strictEqual(s.workerConcurrency, 16)
      assert.strictEqual(s.hedging, "off")
      assert.strictEqual(Money.format(s.hedgeSpreadBps), "5")
      assert.strictEqual(Duration.toSeconds(s.riskInterval), 30)
      assert.strictEqual(s.dailyClose, "21:00")
      assert.deepStrictEqual(s.hotWalletMinimums, {})
    })
  )

  it.effect(
    "a relative data directory is taken from where the command was typed (INIT_CWD), else the working directory",
    () =>
      Effect.gen(function* () {
        const typed = yield* parse({ RATELOCK_DATA_DIR: "state/db", INIT_CWD: "/home/op/ratelock" })
        assert.strictEqual(typed.dataDir, "/home/op/ratelock/state/db")
        const here = yield* parse({ RATELOCK_DATA_DIR: "state/db" })
        assert.strictEqual(here.dataDir, join(process.cwd(), "state/db"))
      })
  )

  it.effect("overrides, and the quote policy made from them", () =>
    Effect.gen(function* () {
      const s = yield* parse({
        PORT: "0",
        RATELOCK_HOST: "127.0.0.1",
        RATELOCK_OPERATOR_PORT: "0",
        RATELOCK_OPERATOR_HOST: "0.0.0.0",
        RATELOCK_DATA_DIR: "/srv/ratelock",
        DATABASE_URL: "postgres://u:secret@db/ratelock",
        RATELOCK_QUOTE_TTL_SECONDS: "30",
        RATELOCK_MAX_RATE_AGE_SECONDS: "60",
        RATELOCK_FUNDING_WINDOW_SECONDS: "600",
        RATELOCK_PRODUCTION_CHAINS: " solana, polygon ,",
        RATELOCK_SANDBOX: "false",
        RATELOCK_SANDBOX_CONFIRM_MS: "0",
        RATELOCK_WORKER_CONCURRENCY: "4",
        RATELOCK_HEDGING: "simulated",
        RATELOCK_HEDGE_SPREAD_BPS: "2.5",
        RATELOCK_RISK_INTERVAL_SECONDS: "5",
        RATELOCK_DAILY_CLOSE: "00:30",
        RATELOCK_POLYGON_HOT_WALLET_MIN_NATIVE: "5",
        RATELOCK_POLYGON_HOT_WALLET_MIN_USDC: "10000.50",
        RATELOCK_SOLANA_HOT_WALLET_MIN_NATIVE: "0.000000001",
        RATELOCK_LOG_LEVEL: "debug",
        LOG_LEVEL: "error"
      })
      assert.strictEqual(s.port, 0)
      assert.deepStrictEqual(s.host, Option.some("127.0.0.1"))
      assert.strictEqual(s.operatorPort, 0)
      assert.strictEqual(s.operatorHost, "0.0.0.0")
      assert.strictEqual(s.dataDir, "/srv/ratelock")
      assert.isTrue(Option.isSome(s.databaseUrl))
      assert.notInclude(String(s.databaseUrl), "secret")
      assert.notInclude(HostConfig.describeStore(s), "secret")
      assert.deepStrictEqual(s.productionChains, ["solana", "polygon"])
      assert.isFalse(s.sandbox)
      assert.strictEqual(Duration.toMillis(s.sandboxConfirmDelay), 0)
      assert.strictEqual(s.logLevel, "Debug")
      assert.strictEqual(s.workerConcurrency, 4)
      assert.deepStrictEqual([s.hedging, Money.format(s.hedgeSpreadBps)], ["simulated", "2.5"])
      assert.strictEqual(Duration.toSeconds(s.riskInterval), 5)
      assert.strictEqual(s.dailyClose, "00:30")
      // the thresholds exactly as written, per chain and asset
      assert.deepStrictEqual(
        Object.entries(s.hotWalletMinimums).map(([chain, assets]) => [
          chain,
          Object.entries(assets ?? {}).map(([asset, minimum]) => `${asset} ${Money.format(minimum!)}`)
        ]),
        [
          ["solana", ["NATIVE 0.000000001"]],
          ["polygon", ["NATIVE 5", "USDC 10000.50"]]
        ]
      )
      const policy = HostConfig.quotePolicy(s)
      assert.strictEqual(Duration.toSeconds(policy.quoteTtl), 30)
      assert.strictEqual(Duration.toSeconds(policy.maxRateAge), 60)
      assert.strictEqual(Duration.toSeconds(policy.fundingWindow), 600)
      assert.strictEqual(policy.optionMargin, QuotePolicy.defaults.optionMargin)
    })
  )

  it.effect("refuses malformed values instead of falling back to defaults", () =>
    Effect.gen(function* () {
      for (const env of [
        { PORT: "http" },
        { PORT: "70000" },
        { RATELOCK_OPERATOR_PORT: "metrics" },
        { RATELOCK_OPERATOR_PORT: "-1" },
        { RATELOCK_QUOTE_TTL_SECONDS: "0" },
        { RATELOCK_PRODUCTION_CHAINS: "bitcoin" },
        { RATELOCK_SANDBOX: "maybe" },
        { RATELOCK_SANDBOX_CONFIRM_MS: "-1" },
        { RATELOCK_SANDBOX_CONFIRM_MS: "1.5" },
        { RATELOCK_WORKER_CONCURRENCY: "0" },
        { RATELOCK_HEDGING: "on" },
        { RATELOCK_HEDGE_SPREAD_BPS: "-1" },
        { RATELOCK_HEDGE_SPREAD_BPS: "1e3" },
        { RATELOCK_DAILY_CLOSE: "24:00" },
        { RATELOCK_DAILY_CLOSE: "9:00" },
        { RATELOCK_DAILY_CLOSE: "21:00:00" },
        { RATELOCK_POLYGON_HOT_WALLET_MIN_USDC: "-1" },
        { RATELOCK_ETHEREUM_HOT_WALLET_MIN_NATIVE: "five" },
        { RATELOCK_LOG_LEVEL: "loud" },
        { RATELOCK_LOG_LEVEL: "loud", LOG_LEVEL: "warn" },
        { LOG_LEVEL: "loud" }
      ]) {
        assert.isTrue(Exit.isFailure(yield* Effect.exit(parse(env))), JSON.stringify(env))
      }
    })
  )
})

describe("DataDirLock", () => {
  it.effect("one holder at a time, released with its scope; the pid it wrote decides nothing", () =>
    Effect.gen(function* () {
      const dir = emptyDataDir()
      const file = join(dir, DataDirLock.fileName)
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* DataDirLock.acquire(dir)
          assert.strictEqual(readFileSync(file, "utf8"), `${process.pid}\n`)
          // each acquisition opens the file anew, and the lock belongs to the open file
          const second = yield* Effect.flip(Effect.scoped(DataDirLock.acquire(dir)))
          assert.strictEqual(second.pid, process.pid)
          assert.include(second.message, `is in use by another Ratelock process (pid ${process.pid})`)
        })
      )
      assert.strictEqual(readFileSync(file, "utf8"), "", "the file stays, without a holder")
      // a pid left in the file, even a live one, is no lock
      writeFileSync(file, `${process.pid}\n`)
      yield* Effect.scoped(DataDirLock.acquire(dir))
    })
  )
})

const quoteBody = () =>
  JSON.stringify(Requests.quoteAt(DateTime.nowUnsafe(), { customer_reference_id: "cust-1", chain: "solana" }))

/**
 * Sends a request's head with `Expect: 100-continue` and holds the body back: `continued` resolves
 * once the server is handling the request (it asked for the body), `finish` sends the body, `done`
 * resolves with the raw response.
 */
const heldRequest = (port: number, head: string, body: string) => {
  const socket = connect(port, "127.0.0.1")
  let response = ""
  let onContinue = () => {}
  const continued = new Promise<void>((resolve) => (onContinue = resolve))
  socket.on("data", (chunk) => {
    response += String(chunk)
    if (response.startsWith("HTTP/1.1 100")) onContinue()
  })
  const done = new Promise<string>((resolve, reject) => {
    socket.on("end", () => resolve(response))
    socket.on("error", reject)
  })
  socket.write(`${head}Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`)
  return { continued, finish: () => socket.write(body), done }
}

const refusesConnections = (baseUrl: string) =>
  fetch(`${baseUrl}/health`).then(
    () => undefined,
    () => true
  )

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const stop = async (service: Service) => {
  service.child.kill("SIGTERM")
  return await service.exited
}

describe("pnpm start", { timeout: 180_000 }, () => {
  const dataDir = emptyDataDir()

  it("starts on an empty directory, prints demo credentials that work, and stops gracefully on SIGTERM", async () => {
    const service = start(dataDir)
    try {
      const baseUrl = await baseUrlOf(service)
      // every interface, without RATELOCK_HOST: printed as localhost
      assert.match(baseUrl, /^http:\/\/localhost:\d+$/)
      const port = Number(new URL(baseUrl).port)
      assert.strictEqual((await fetch(`${baseUrl}/health`)).status, 200)
      const ready = await fetch(`${baseUrl}/ready`)
      assert.deepStrictEqual([ready.status, await ready.json()], [200, { status: "ready", database: "ok" }])

      const out = await eventually(() => (service.stdout().includes("api_key_secret") ? service.stdout() : undefined))
      const keyId = /api_key_id\s+(\S+)/.exec(out)?.[1]
      const secret = /api_key_secret\s+(rlk_\S+)/.exec(out)?.[1]
      assert.isDefined(keyId)
      assert.isDefined(secret)
      const headers = {
        "X-Partner-Key-Id": keyId!,
        "X-Partner-Key-Secret": secret!,
        "X-Partner-Environment": "sandbox"
      }
      const me = await fetch(`${baseUrl}/api/v1/partners/me`, { headers })
      assert.strictEqual(me.status, 200)
      // the operator listener: its URL and the demo operator token, printed once in the same banner
      const operatorUrl = await operatorUrlOf(service)
      assert.match(operatorUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.include(out, `operator_url    ${operatorUrl}`)
      // where to read the API and where to watch the service: each served on its own listener
      assert.include(out, `docs            ${baseUrl}/docs`)
      assert.include(out, `console         ${operatorUrl}/console`)
      for (const page of [`${baseUrl}/docs`, `${operatorUrl}/console`]) {
        const reply = await fetch(page)
        assert.strictEqual(reply.status, 200, page)
        assert.match(reply.headers.get("content-type") ?? "", /^text\/html/, page)
      }
      const operatorToken = /operator_token\s+(rlop_\S+)/.exec(out)?.[1]
      assert.isDefined(operatorToken)
      const bearer = { Authorization: `Bearer ${operatorToken}` }
      const status = await fetch(`${operatorUrl}/operator/v1/status`, { headers: bearer })
      assert.strictEqual(status.status, 200)
      assert.deepInclude(((await status.json()) as { database: object }).database, { kind: "embedded" })
      assert.strictEqual((await fetch(`${operatorUrl}/metrics`, { headers: bearer })).status, 200)
      assert.strictEqual((await fetch(`${operatorUrl}/metrics`)).status, 401)
      // each listener serves its own routes only
      assert.strictEqual((await fetch(`${baseUrl}/metrics`, { headers: bearer })).status, 404)
      assert.strictEqual((await fetch(`${baseUrl}/operator/v1/status`, { headers: bearer })).status, 404)
      assert.strictEqual((await fetch(`${operatorUrl}/api/v1/partners/me`, { headers })).status, 404)
      assert.deepInclude(await me.json(), { partner_name: "Demo partner", api_key_id: keyId, environment: "sandbox" })
      // production has no chain on this deployment
      const production = await fetch(`${baseUrl}/api/v1/partners/me`, {
        headers: { ...headers, "X-Partner-Environment": "production" }
      })
      assert.strictEqual(production.status, 403)
      // requests are logged at Debug: none at the default level
      const mentions = (service.stdout() + service.stderr()).split("\n").filter((l) => l.includes("partners/me"))
      assert.deepStrictEqual(
        mentions.filter((l) => !l.includes("curl")),
        []
      )

      // a request in flight when SIGTERM arrives is finished; new connections are refused
      const head =
        `POST /api/v1/fx/quotes HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join("")
      const inFlight = heldRequest(port, head, quoteBody())
      await inFlight.continued
      service.child.kill("SIGTERM")
      let refused: boolean | undefined
      for (let i = 0; i < 100 && refused === undefined; i++) {
        refused = await refusesConnections(baseUrl)
        if (refused === undefined) await sleep(100)
      }
      assert.isTrue(refused, "new connections are refused after SIGTERM")
      assert.isUndefined(await Promise.race([service.exited, sleep(300)]), "it waits for the request in flight")
      inFlight.finish()
      const response = await inFlight.done
      assert.match(response, /HTTP\/1\.1 201 /)
      assert.include(response, '"status":"created"')

      assert.strictEqual(await service.exited, 0)
      assert.strictEqual(readFileSync(join(dataDir, DataDirLock.fileName), "utf8"), "", "no holder left named")
    } finally {
      service.child.kill("SIGKILL")
    }
  })

  it("reopens the same directory: the CLI sees the demo partner, a second start prints no credentials", async () => {
    // the command line itself, as a process of its own: `src/cli.ts` under `NodeRuntime.runMain`
    const listed = await cliProcess(dataDir, {}, "partner", "list", "--json")
    assert.strictEqual(listed.code, 0, listed.stderr)
    const partners: ReadonlyArray<{ partner_id: string; name: string }> = JSON.parse(listed.stdout)
    assert.deepStrictEqual(
      partners.map((p) => p.name),
      ["Demo partner"]
    )

    const again = start(dataDir, { RATELOCK_LOG_LEVEL: "debug" })
    try {
      const baseUrl = await baseUrlOf(again)
      assert.notInclude(again.stdout(), "api_key_secret")
      assert.notInclude(again.stdout(), "rlop_")
      // the credentials were shown once: it says how to get a new key for the demo partner
      assert.include(
        again.stdout() + again.stderr(),
        `lost its sandbox credentials? Stop the server, then pnpm ratelock key create --partner ${partners[0]!.partner_id} --environment sandbox`,
        again.stdout() + again.stderr()
      )
      // at Debug, each request is one line: method, path without its query, status, time
      await fetch(`${baseUrl}/health?probe=1`)
      const logged = await eventually(() => {
        const lines = (again.stdout() + again.stderr()).split("\n").filter((l) => l.includes("/health"))
        return lines.length > 0 ? lines : undefined
      })
      assert.lengthOf(logged, 1)
      assert.match(logged[0]!, /DEBUG.*GET \/health 200 \d+ ms/)
      assert.notInclude(logged[0]!, "probe")
      // while it runs, the CLI refuses the directory
      const refused = await cliProcess(dataDir, {}, "partner", "list")
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stderr, `is in use by another Ratelock process (pid ${again.child.pid})`)
      assert.strictEqual(await stop(again), 0)
    } finally {
      again.child.kill("SIGKILL")
    }
  })

  it("RATELOCK_HOST binds the partner API to that interface only, and the start-up line names it", async () => {
    const service = start(tempDataDir(), { RATELOCK_HOST: "127.0.0.1", RATELOCK_DEMO_PARTNER: "false" })
    try {
      const baseUrl = await baseUrlOf(service)
      assert.match(baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.strictEqual((await fetch(`${baseUrl}/health`)).status, 200)
      // the other interfaces of this machine refuse (by default every one answers)
      const port = new URL(baseUrl).port
      const elsewhere = [
        "[::1]",
        ...Object.values(networkInterfaces())
          .flat()
          .flatMap((a) => (a?.family === "IPv4" && !a.internal ? [a.address] : []))
      ]
      for (const host of elsewhere) {
        assert.isTrue(await refusesConnections(`http://${host}:${port}`), `${host} answered`)
      }
      assert.strictEqual(await stop(service), 0)
    } finally {
      service.child.kill("SIGKILL")
    }
  })

  it("refuses to start with a production chain it has no settings for", async () => {
    const production = start(emptyDataDir(), { RATELOCK_PRODUCTION_CHAINS: "solana" })
    assert.strictEqual(await production.exited, 1)
    assert.include(production.stdout() + production.stderr(), "cannot start the production chains")
    assert.include(production.stdout() + production.stderr(), "RATELOCK_SOLANA_RPC_URL")
  })

  it("refuses to start on a daily cut that is no time of day, naming the variable", async () => {
    const service = start(emptyDataDir(), { RATELOCK_DAILY_CLOSE: "25:00" })
    assert.strictEqual(await service.exited, 1)
    const said = service.stdout() + service.stderr()
    assert.include(said, "Expected a UTC time of day such as 21:00")
    assert.include(said, "RATELOCK_DAILY_CLOSE")
  })

  it("an operator port in use stops the start with a message naming RATELOCK_OPERATOR_PORT", async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as AddressInfo).port
    try {
      const service = start(tempDataDir(), { RATELOCK_OPERATOR_PORT: String(port) })
      assert.strictEqual(await service.exited, 1)
      assert.include(
        service.stdout() + service.stderr(),
        `cannot listen on port ${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port} (set RATELOCK_OPERATOR_PORT to another port)`
      )
    } finally {
      taken.close()
    }
  })
})

describe("ratelock worker", { timeout: 180_000 }, () => {
  it("serves the operator API on its own listener: its metrics and status, with an operator token", async () => {
    const dataDir = tempDataDir()
    // the embedded database takes one process at a time: the token first, then the worker
    const { token } = await cliJson(dataDir, "operator", "token", "create", "--name", "prometheus", "--role", "admin")
    const worker = startWorker(dataDir)
    try {
      const operatorUrl = await operatorUrlOf(worker)
      const bearer = { Authorization: `Bearer ${token}` }
      const metrics = await fetch(`${operatorUrl}/metrics`, { headers: bearer })
      assert.strictEqual(metrics.status, 200)
      assert.include(await metrics.text(), "# TYPE ratelock_outbox_undelivered_events gauge")
      assert.strictEqual((await fetch(`${operatorUrl}/metrics`)).status, 401)
      // its heartbeats are written every few seconds
      // biome-ignore lint/suspicious/noExplicitAny: the status JSON is read field by field
      let status: any = await (await fetch(`${operatorUrl}/operator/v1/status`, { headers: bearer })).json()
      for (let i = 0; i < 300 && status.workers.length === 0; i++) {
        await sleep(100)
        status = await (await fetch(`${operatorUrl}/operator/v1/status`, { headers: bearer })).json()
      }
      assert.strictEqual(status.process.role, "worker")
      assert.strictEqual(status.workers[0].owner, status.process.name)
    } finally {
      worker.child.kill("SIGKILL")
    }
  })
})

const isReady = async (baseUrl: string) => (await fetch(`${baseUrl}/ready`)).status === 200

describe("the data-directory lock across processes", { timeout: 180_000 }, () => {
  it("a restart right after a kill -9 of the service's process group serves at its first attempt", async () => {
    const dataDir = tempDataDir()
    const killed = startUnreaped(dataDir)
    let restarted: Service | undefined
    try {
      assert.isTrue(await isReady(await baseUrlOf(killed)))
      const pid = await killed.pid
      process.kill(-pid, "SIGKILL")
      await eventually(() => (processState(pid) === "Z" ? true : undefined), 30_000, "the service to die")

      restarted = start(dataDir)
      assert.isTrue(await isReady(await baseUrlOf(restarted)), restarted.stderr())
      // the dead service still has its pid, which a pid file would have taken for a live holder
      assert.strictEqual(processState(pid), "Z")
      assert.strictEqual(await stop(restarted), 0)
    } finally {
      restarted?.child.kill("SIGKILL")
      killed.child.kill("SIGKILL")
      await killed.pid.then(
        (pid) => processState(pid) !== undefined && process.kill(-pid, "SIGKILL"),
        () => undefined
      )
    }
  })

  it("a lock file naming a live process that holds no lock blocks nothing", async () => {
    const dataDir = tempDataDir()
    const first = start(dataDir)
    await baseUrlOf(first)
    assert.strictEqual(await stop(first), 0)

    // pid reuse: the pid a service wrote now belongs to another process (here: this one, then pid 1)
    for (const pid of [process.pid, 1]) {
      writeFileSync(join(dataDir, DataDirLock.fileName), `${pid}\n`)
      const service = start(dataDir)
      try {
        assert.isTrue(await isReady(await baseUrlOf(service)), service.stderr())
        assert.strictEqual(await stop(service), 0)
      } finally {
        service.child.kill("SIGKILL")
      }
    }
  })

  it("two services racing to start on one directory: one serves, the other is refused", async () => {
    const dataDir = emptyDataDir()
    const both = [start(dataDir), start(dataDir)] as const
    try {
      const loser = await Promise.race(both.map((service) => service.exited.then(() => service)))
      const winner = both[0] === loser ? both[1] : both[0]
      assert.strictEqual(await loser.exited, 1)
      // the winner's pid, unless the loser read the file before the winner wrote it
      assert.match(
        loser.stdout() + loser.stderr(),
        new RegExp(`is in use by another Ratelock process( \\(pid ${winner.child.pid}\\))?, probably the server`)
      )
      assert.isTrue(await isReady(await baseUrlOf(winner)), winner.stderr())
      assert.strictEqual(await stop(winner), 0)
    } finally {
      for (const service of both) service.child.kill("SIGKILL")
    }
  })
})
