/**
 * A production deployment on a local chain for the payout end-to-end tests, set up and torn down
 * whole, on either store: anvil with a solc-compiled 6-decimal USDC (the customer and the hot
 * wallet minted a million each), a fresh market snapshot and a partner made with the CLI, and
 * processes that all run `RATELOCK_PRODUCTION_CHAINS=ethereum` on that chain (its settings: `env`).
 * On PostgreSQL (`deploy`): a fresh database and a cluster, its API replica started (workers are
 * the test's to start). On the embedded store (`deployEmbedded`): a fresh data directory and the
 * one service process (API and workers), which the test starts, kills and starts again on it.
 * Contracts are sold and funded as the customer would fund them (an ERC-20 transfer to the funding
 * address, active at the configured depth), exercised below the locked rate, and what the chain
 * holds afterwards is read from anvil itself.
 */
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import { Anvil, type AnvilShape, layer as anvilLayer } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import type { PayoutDesk } from "@ratelock/core"
import { freePort, stop as stopProcess } from "@ratelock/test-support/Processes"
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Address, formatEther, type Hash, parseAbiItem, parseGwei, parseUnits } from "viem"
import { assert } from "vitest"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { runCliJson } from "./cliInProcess.ts"
import { untilAnswered } from "./crash/patientPartner.ts"
import { type Database, freshDatabase } from "./cluster/database.ts"
import { newKey, quoteBody, type Reply, request } from "./http.ts"
import { type Service, start as startService } from "./process.ts"
import { Cluster } from "./processes.ts"

/** Funding addresses come from their own seed: not anvil's accounts, not the hot wallet. */
const fundingMnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
/** Anvil's account 2 pays the customers. */
export const hotWalletIndex = 2

const exampleSnapshot = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../../docs/market/example-snapshot.json"), "utf8")
)

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A partner's call to a service that may be restarting (the embedded one is killed and started
 * again under the crash tests): tried again with the same body and Idempotency-Key while the
 * connection is refused or cut, or the key is held by a try the kill cut off, so it is done at most
 * once. Every other answer, a 5xx among them, is the call's: these tests see a 5xx as a failure.
 */
const patiently = (what: string, attempt: () => Promise<Reply>) =>
  untilAnswered(
    what,
    attempt,
    (reply) => (reply.json?.error?.code === "idempotency_key_in_use" ? "idempotency_key_in_use" : undefined),
    120_000
  )

/** Polls `read` until `done` holds; fails after `timeoutMs` saying what it waited for and what it last saw. */
export const waitFor = async <A>(
  read: () => Promise<A>,
  done: (a: A) => boolean,
  what: string,
  options: { readonly timeoutMs?: number; readonly everyMs?: number } = {}
): Promise<A> => {
  const deadline = Date.now() + (options.timeoutMs ?? 90_000)
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`)
    await sleep(options.everyMs ?? 200)
  }
}

/** A payout row as the store keeps it. */
export interface PayoutRow {
  readonly id: string
  readonly contract_id: string
  readonly amount: string
  readonly status: string
  readonly destination: string
  readonly transaction_hash: string | null
  readonly nonce: string | null
  readonly waiting: string | null
  readonly replacements: number
  readonly attempts: number
  readonly last_error: string | null
  readonly prepared: string | null
}

/** The signed bytes of each version a payout row holds, oldest first. */
export const versionsOf = (row: PayoutRow): ReadonlyArray<`0x${string}`> =>
  row.prepared === null ? [] : JSON.parse(row.prepared).versions.map((v: { serialized: `0x${string}` }) => v.serialized)

/** What to sell: an option (the default) or a forward, with a deposit. */
export interface ContractOptions {
  readonly contractType?: "option" | "forward"
}

export interface Contract {
  readonly id: string
  readonly funding_wallet_address: Address
  readonly total_amount: string
  /** A forward's deposit; null for an option. */
  readonly deposit_amount: string | null
}

/** What a deployment offers on either store. */
export interface Common {
  readonly anvil: AnvilShape
  readonly usdc: Address
  readonly hotWallet: Address
  /** What every process is started with. */
  readonly env: Record<string, string>
  readonly confirmations: number
  /**
   * `ratelock <args> --json` on the store, with the deployment's settings (the chain, for `payouts
   * show`). On the embedded store, only while the service is stopped: the data directory takes one
   * process at a time.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON is read field by field
  readonly ratelock: (...args: ReadonlyArray<string>) => Promise<any>
  /** The Partner API (PostgreSQL: the API replica, no workers; embedded: the service, while it runs). */
  readonly baseUrl: string
  /** The operator listener of the API (PostgreSQL: the replica's; embedded: the service's). */
  readonly operatorUrl: string
  /** A GET on an operator listener (the API's unless `url`), with an operator token. */
  readonly operator: (
    path: string,
    url?: string
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field
  ) => Promise<{ readonly status: number; readonly json: any; readonly text: string }>
  /** Quotes, contracts and customer transfers for `n` locks; their contracts once all are active. */
  readonly activeContracts: (n: number, options?: ContractOptions) => Promise<ReadonlyArray<Contract>>
  /** The partner the deployment sells as. */
  readonly partnerId: string
  /** The partner's exercise below the locked rate, to be paid to `destination`. */
  readonly exercise: (contractId: string, destination: Address) => Promise<void>
  /** A contract's status (PostgreSQL: its row; embedded: the partner's view of its lock, while the service runs). */
  readonly contractStatus: (contractId: string) => Promise<string | undefined>
  /** Mines `blocks` blocks by hand, each with this base fee (automine off). */
  readonly mineAt: (baseFeeGwei: string, blocks?: number) => Promise<void>
  /** The destination's USDC balance (base units) and the Transfer logs into it. */
  readonly received: (destination: Address) => Promise<{ readonly balance: bigint; readonly transfers: number }>
  readonly hotWalletNonce: () => Promise<number>
  /** The transaction anvil holds (pooled or mined), or null. */
  readonly transaction: (
    hash: string
  ) => Promise<{ readonly nonce: number; readonly blockNumber: bigint | null } | null>
  /** Stops every process, removes the store and the chain. */
  readonly stop: () => Promise<void>
}

/** On PostgreSQL: the database, read directly, and the cluster (its API replica running). */
export interface Deployment extends Common {
  readonly db: Database
  readonly cluster: Cluster
  readonly payout: (contractId: string) => Promise<PayoutRow | undefined>
}

/** One payout as the operator sees it (`ratelock payouts show`, `GET /operator/v1/payouts/{contract_id}`). */
export type PayoutDetail = PayoutDesk.PayoutDetail

/**
 * On the embedded store: one service process (API and workers) on a data directory, started by the
 * test, on the same ports every time.
 */
export interface EmbeddedDeployment extends Common {
  readonly dataDir: string
  /**
   * Starts the service (`pnpm start`'s command) on the data directory with `extra` settings beside
   * the deployment's; resolves once it is ready. Fails if one is running.
   */
  readonly start: (extra?: Record<string, string>) => Promise<Service>
  /** SIGKILL: the service ends at once, whatever it was doing; resolves once it is gone. */
  readonly kill: () => Promise<void>
  /** SIGTERM: the service stops gracefully (exit 0); resolves once it is gone and the data directory free. */
  readonly halt: () => Promise<void>
  /** The contract's payout through the operator API (while the service runs), or undefined if none yet. */
  readonly payout: (contractId: string) => Promise<PayoutDetail | undefined>
}

/**
 * One contract sold, funded and active (a worker must be running), then automine off and a block
 * at a 1 gwei base fee; exercised to a fresh wallet: resolves once its payout's first version
 * (3 gwei max fee: 2 × 1 gwei + 1 gwei tip) is signed, stored and in anvil's pool, not mined.
 */
export const payoutInPool = async <P extends { readonly transaction_hash: string | null }>(
  d: Common & { readonly payout: (contractId: string) => Promise<P | undefined> }
) => {
  const [contract] = await d.activeContracts(1)
  await d.anvil.client.setAutomine(false)
  await d.mineAt("1")
  const destination = freshDestination()
  await d.exercise(contract!.id, destination)
  const first = await waitFor(
    async () => {
      const row = await d.payout(contract!.id)
      const pooled = row?.transaction_hash == null ? null : await d.transaction(row.transaction_hash)
      return pooled === null ? undefined : row
    },
    (row) => row !== undefined,
    "the payout's first version in the pool"
  )
  return { contract: contract!, destination, first: first! }
}

/** A fresh wallet address nobody holds the key of. */
export const freshDestination = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address

/** The base units of a decimal USDC amount. */
export const usdcUnits = (amount: string) => parseUnits(amount, 6)

export interface DeployOptions {
  readonly prefix: string
  readonly confirmations?: number
  readonly env?: Record<string, string>
  /**
   * Whether the workers sweep funding addresses (off unless asked: a sweep's gas top-up is a hot
   * wallet transaction, and the payout tests count the hot wallet's transactions as payouts).
   */
  readonly sweeps?: boolean
}

/** Where the service answers: the Partner API and the operator API. */
interface Urls {
  readonly partner: string
  readonly operator: string
}

/** What a store brings to a deployment, set up once the chain is. */
interface StoreSide {
  /** What `ratelock` runs with on this store, beside `process.env` (undefined: removed). */
  readonly cliEnv: Record<string, string | undefined>
  /**
   * Starts what answers the Partner API, with the operator listener on `operatorPort`, once the
   * partner is made; resolves with where both answer now (a restarted service may have moved).
   */
  readonly api: (operatorPort: number) => Promise<() => Urls>
  /**
   * The status of a contract, by the store's reading: its row, or the partner's view of its lock
   * (`customer`: the customer reference it was sold for; `get`: a GET on the Partner API).
   */
  readonly contractStatus: (
    contractId: string,
    partner: { readonly customer: string | undefined; readonly get: (path: string) => Promise<Reply> }
  ) => Promise<string | undefined>
}

/**
 * The chain, the store (`store`, given the deployment's settings and a list of clean-ups to add
 * to), a fresh snapshot, a partner and an operator token made with the CLI, then the API
 * (`StoreSide.api`): what both stores share.
 */
const setUp = async <S extends StoreSide>(
  options: Omit<DeployOptions, "prefix">,
  store: (env: Record<string, string>, cleanups: Array<() => Promise<void>>) => Promise<S>
): Promise<{ readonly common: Common; readonly side: S }> => {
  const confirmations = options.confirmations ?? 2
  const runtime = ManagedRuntime.make(anvilLayer)
  const scratch = mkdtempSync(join(tmpdir(), "ratelock-onchain-"))
  const cleanups: Array<() => Promise<void>> = [
    async () => rmSync(scratch, { recursive: true, force: true }),
    () => runtime.dispose()
  ]
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined)
  }
  try {
    const anvil = await runtime.runPromise(
      Effect.gen(function* () {
        return yield* Anvil
      })
    )
    const [deployer, customer, hot] = [anvil.account(0), anvil.account(1), anvil.account(hotWalletIndex)]
    const usdc = await Effect.runPromise(Erc20.deploy(anvil.client, deployer, "standard", 6))
    await Effect.runPromise(Erc20.mint(anvil.client, deployer, usdc, customer.address, usdcUnits("1000000")))
    await Effect.runPromise(Erc20.mint(anvil.client, deployer, usdc, hot.address, usdcUnits("1000000")))

    const env: Record<string, string> = {
      RATELOCK_PRODUCTION_CHAINS: "ethereum",
      RATELOCK_ETHEREUM_RPC_URL: anvil.url,
      RATELOCK_ETHEREUM_CHAIN_ID: "31337",
      RATELOCK_EVM_FUNDING_MNEMONIC: fundingMnemonic,
      RATELOCK_ETHEREUM_HOT_WALLET_KEY: anvil.privateKey(hotWalletIndex),
      RATELOCK_ETHEREUM_CONFIRMATIONS: String(confirmations),
      RATELOCK_ETHEREUM_USDC: usdc,
      RATELOCK_ETHEREUM_USDT: "none",
      RATELOCK_ETHEREUM_EURC: "none",
      // sweeps off: no balance reaches this minimum
      ...(options.sweeps === true ? {} : { RATELOCK_ETHEREUM_SWEEP_MIN_USDC: "1000000000000" }),
      ...options.env
    }
    const side = await store(env, cleanups)

    const ratelock = (...args: ReadonlyArray<string>): Promise<unknown> =>
      runCliJson({ ...process.env, ...side.cliEnv, RATELOCK_LOG_LEVEL: "Warn", ...env, INIT_CWD: undefined }, args)

    // production prices only from fresh market data: the operator imports a snapshot observed now
    const snapshot = join(scratch, "snapshot.json")
    writeFileSync(snapshot, JSON.stringify({ ...exampleSnapshot, as_of: new Date().toISOString() }))
    // the first command migrates the fresh store; the others after it, one at a time (an embedded
    // data directory takes one process at a time)
    await ratelock("market", "import", snapshot)
    // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON
    const partner = (await ratelock("partner", "create", "--name", "Chain Pay")) as any
    const tokenArgs = ["operator", "token", "create", "--name", "payouts-e2e", "--role", "admin"]
    // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON
    const operatorToken = (await ratelock(...tokenArgs)) as any
    const key = {
      keyId: partner.environments.production.api_key_id as string,
      secret: partner.environments.production.api_key_secret as string,
      environment: "production"
    }

    const urls = await side.api(await freePort())

    const post = async (path: string, body: unknown) => {
      const headers = { "Idempotency-Key": newKey() }
      const reply = await patiently(`POST ${path}`, () =>
        Effect.runPromise(request(urls().partner, "POST", path, { key, body, headers }))
      )
      if (reply.status >= 300) throw new Error(`POST ${path}: ${reply.status} ${reply.text}`)
      return reply.json
    }

    // the partner's reference of each contract's customer (one customer a contract)
    const customers = new Map<string, string>()
    const get = (path: string) =>
      patiently(`GET ${path}`, () => Effect.runPromise(request(urls().partner, "GET", path, { key })))
    const contractStatus = (contractId: string) =>
      side.contractStatus(contractId, { customer: customers.get(contractId), get })

    const activeContracts = async (n: number, options: ContractOptions = {}) => {
      const contracts: Array<Contract> = []
      for (let i = 0; i < n; i++) {
        const customerReference = `cust-${newKey()}`
        const quote = await post(
          "/api/v1/fx/quotes",
          await Effect.runPromise(
            quoteBody({
              chain: "ethereum",
              settlement_currency: "USDC",
              notional_amount: "1000",
              customer_reference_id: customerReference,
              contract_type: options.contractType ?? "option"
            })
          )
        )
        if (quote.status !== "created") throw new Error(`quote not created: ${JSON.stringify(quote)}`)
        const contract: Contract = await post("/api/v1/fx/contracts", { quote_id: quote.id })
        customers.set(contract.id, customerReference)
        contracts.push(contract)
      }
      for (const contract of contracts) {
        await Effect.runPromise(
          Erc20.transfer(
            anvil.client,
            customer,
            usdc,
            contract.funding_wallet_address,
            usdcUnits(contract.total_amount)
          )
        )
      }
      await anvil.client.mine({ blocks: confirmations })
      await waitFor(
        () => Promise.all(contracts.map((c) => contractStatus(c.id))),
        (statuses) => statuses.length === n && statuses.every((s) => s === "active"),
        `${n} contracts to become active`
      )
      return contracts
    }

    const common: Common = {
      anvil,
      usdc,
      hotWallet: hot.address.toLowerCase() as Address,
      env,
      confirmations,
      ratelock,
      get baseUrl() {
        return urls().partner
      },
      get operatorUrl() {
        return urls().operator
      },
      operator: (path, url = urls().operator) =>
        Effect.runPromise(request(url, "GET", path, { headers: { authorization: `Bearer ${operatorToken.token}` } })),
      activeContracts,
      partnerId: partner.partner_id as string,
      exercise: async (contractId, destination) => {
        await post("/api/v1/fx/webhooks/inbound", {
          event_type: "contract_exercised",
          fx_contract_id: contractId,
          executed_at: new Date().toISOString(),
          live_execution_rate: "5.0",
          payout_wallet_address: destination,
          chain: "ethereum"
        })
      },
      contractStatus,
      mineAt: async (baseFeeGwei, blocks = 1) => {
        for (let i = 0; i < blocks; i++) {
          await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei(baseFeeGwei) })
          await anvil.client.mine({ blocks: 1 })
        }
      },
      received: async (destination) => {
        const [logs, balance] = await Promise.all([
          anvil.client.getLogs({ address: usdc, event: transferEvent, args: { to: destination }, fromBlock: 0n }),
          Effect.runPromise(Erc20.balanceOf(anvil.client, usdc, destination))
        ])
        return { balance, transfers: logs.length }
      },
      hotWalletNonce: () => anvil.client.getTransactionCount({ address: hot.address }),
      transaction: (hash) =>
        anvil.client.getTransaction({ hash: hash as Hash }).then(
          (tx) => ({ nonce: tx.nonce, blockNumber: tx.blockNumber }),
          () => null
        ),
      stop
    }
    return { common, side }
  } catch (error) {
    await stop()
    throw error
  }
}

/** A deployment on a fresh PostgreSQL database of `serverUrl`, its API replica started. */
export const deploy = async (serverUrl: string, options: DeployOptions): Promise<Deployment> => {
  const { common, side } = await setUp(options, async (env, cleanups) => {
    const db = await freshDatabase(serverUrl, options.prefix)
    cleanups.push(() => db.drop())
    const cluster = new Cluster(db.url, env)
    cleanups.push(() => cluster.stop())
    return {
      db,
      cluster,
      cliEnv: { DATABASE_URL: db.url },
      api: async (operatorPort: number) => {
        const { baseUrl } = await cluster.startApi("api", { RATELOCK_OPERATOR_PORT: String(operatorPort) })
        return () => ({ partner: baseUrl, operator: `http://127.0.0.1:${operatorPort}` })
      },
      contractStatus: async (contractId: string) =>
        (
          await db.query<{ readonly status: string }>(
            (sql) => sql`SELECT status FROM contracts WHERE id = ${contractId}`
          )
        )[0]?.status
    }
  })
  const { db, cluster } = side
  return {
    ...common,
    db,
    cluster,
    payout: async (contractId) =>
      (
        await db.query<PayoutRow>(
          (sql) => sql`SELECT id::text, contract_id::text, amount::text, status, destination, transaction_hash,
              nonce::text, waiting, replacements, attempts, last_error, prepared
            FROM payouts WHERE contract_id = ${contractId}`
        )
      )[0]
  }
}

/** Resolves once the service answers `/ready`; fails at once if it ends first, or after `timeoutMs`. */
const ready = async (service: Service, baseUrl: string, timeoutMs = 120_000) => {
  const deadline = Date.now() + timeoutMs
  let ended = false
  void service.exited.then(() => (ended = true))
  for (;;) {
    if (ended) throw new Error(`the service exited while starting: ${service.output()}`)
    const ok = await fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(10_000) }).then(
      (r) => r.ok,
      () => false
    )
    if (ok) return
    if (Date.now() > deadline) throw new Error(`the service not ready after ${timeoutMs} ms: ${service.output()}`)
    await sleep(100)
  }
}

/**
 * A deployment on a fresh embedded data directory (never `DATABASE_URL`): the store made and the
 * partner created with the CLI; the service is the test's to start (`start`), which it may then
 * kill and start again at once on the same data directory and ports.
 */
export const deployEmbedded = async (options: Omit<DeployOptions, "prefix">): Promise<EmbeddedDeployment> => {
  let running: Service | undefined
  const { common, side } = await setUp(options, async (env, cleanups) => {
    const parent = mkdtempSync(join(tmpdir(), "ratelock-onchain-embedded-"))
    cleanups.push(async () => rmSync(parent, { recursive: true, force: true }))
    const dataDir = join(parent, "data")
    PgliteTemplate.seedDataDir(dataDir)
    let port = await freePort()
    let operatorPort = 0
    const urls = (): Urls => ({
      partner: `http://127.0.0.1:${port}`,
      operator: `http://127.0.0.1:${operatorPort}`
    })
    // stopped before the data directory is removed (clean-ups run last first)
    cleanups.push(async () => {
      const service = running
      running = undefined
      if (service !== undefined) await stopProcess(service.child).then(() => service.exited)
    })
    const start = async (extra: Record<string, string> = {}): Promise<Service> => {
      if (running !== undefined && running.child.exitCode === null && running.child.signalCode === null)
        throw new Error("the service is running already")
      for (let attempt = 1; ; attempt++) {
        // as the cluster runs its processes: quiet logs, no demo partner, no rate limit, a short
        // worker poll and lease (a claim of a process that died is free again after 2 s)
        const service = startService(dataDir, {
          PORT: String(port),
          RATELOCK_OPERATOR_PORT: String(operatorPort),
          RATELOCK_LOG_LEVEL: "Warn",
          RATELOCK_DEMO_PARTNER: "false",
          RATELOCK_RATE_LIMIT_PER_SECOND: "100000",
          RATELOCK_RATE_LIMIT_BURST: "100000",
          RATELOCK_WORKER_POLL_MS: "100",
          RATELOCK_WORKER_LEASE_MS: "2000",
          ...env,
          ...extra
        })
        running = service
        try {
          await ready(service, urls().partner)
          return service
        } catch (error) {
          // a port the killed service had, taken by another test's process meanwhile: both anew
          if (attempt >= 3 || !String(error).includes("EADDRINUSE")) throw error
          port = await freePort()
          operatorPort = await freePort()
        }
      }
    }
    return {
      dataDir,
      start,
      cliEnv: { RATELOCK_DATA_DIR: dataDir, DATABASE_URL: undefined },
      api: async (operator: number) => {
        operatorPort = operator
        return urls
      },
      contractStatus: async (contractId: string, partner: Parameters<StoreSide["contractStatus"]>[1]) => {
        const { customer, get } = partner
        if (customer === undefined) throw new Error(`contract ${contractId} was not sold by this deployment`)
        const reply = await get(`/api/v1/fx/customers/${customer}/locks`)
        if (reply.status !== 200) throw new Error(`the locks of ${customer}: ${reply.status} ${reply.text}`)
        return (reply.json.items as ReadonlyArray<{ readonly id: string; readonly status: string }>).find(
          (lock) => lock.id === contractId
        )?.status
      }
    }
  })
  const { dataDir, start } = side
  return {
    ...common,
    dataDir,
    start,
    kill: async () => {
      const service = running
      running = undefined
      if (service !== undefined) {
        await stopProcess(service.child, "SIGKILL")
        await service.exited
      }
    },
    halt: async () => {
      const service = running
      running = undefined
      if (service === undefined) return
      await stopProcess(service.child, "SIGTERM")
      const code = await service.exited
      if (code !== 0) throw new Error(`the service exited ${code} on SIGTERM: ${service.output()}`)
    },
    payout: async (contractId) => {
      const reply = await common.operator(`/operator/v1/payouts/${contractId}`)
      if (reply.status === 404) return undefined
      if (reply.status !== 200) throw new Error(`the payout of ${contractId}: ${reply.status} ${reply.text}`)
      return reply.json as PayoutDetail
    }
  }
}

/** Deploys on PostgreSQL, runs `body`, and stops every process and drops the database whatever happened. */
export const withDeployment = async (
  serverUrl: string,
  options: DeployOptions,
  body: (d: Deployment) => Promise<void>
): Promise<void> => {
  const d = await deploy(serverUrl, options)
  try {
    await body(d)
  } finally {
    await d.stop()
  }
}

/** Deploys on a fresh embedded data directory, runs `body`, and stops the service and removes everything whatever happened. */
export const withEmbeddedDeployment = async (
  options: Omit<DeployOptions, "prefix">,
  body: (d: EmbeddedDeployment) => Promise<void>
): Promise<void> => {
  const d = await deployEmbedded(options)
  try {
    await body(d)
  } finally {
    await d.stop()
  }
}

/** Mines a block (at `baseFeeGwei` when given, by hand) every `everyMs` until `done`. */
export const mineUntil = async <A>(
  d: Common,
  read: () => Promise<A>,
  done: (a: A) => boolean,
  what: string,
  options: { readonly baseFeeGwei?: string; readonly everyMs?: number; readonly timeoutMs?: number } = {}
) =>
  waitFor(
    async () => {
      if (options.baseFeeGwei === undefined) await d.anvil.client.mine({ blocks: 1 })
      else await d.mineAt(options.baseFeeGwei)
      return read()
    },
    done,
    what,
    { everyMs: options.everyMs ?? 300, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }
  )

/** `ratelock treasury record-inflow` into the production ethereum hot wallet. */
export const recordInflow = (d: Common, currency: string, amount: string, as: "topup" | "unmatched") =>
  d.ratelock(
    "treasury",
    "record-inflow",
    "--environment",
    "production",
    "--chain",
    "ethereum",
    "--currency",
    currency,
    "--amount",
    amount,
    "--as",
    as
  )

/**
 * The hot wallet's opening balances (the USDC it was minted, its ether) recorded as the operator's
 * money, and the partner's refund address set: before anything moves, so the books start equal to
 * the chain.
 */
export const openTreasury = async (d: Common, refundAddress: Address) => {
  const eth = await d.anvil.client.getBalance({ address: d.hotWallet })
  await recordInflow(d, "USDC", "1000000", "topup")
  await recordInflow(d, "ETH", formatEther(eth), "topup")
  await d.ratelock(
    "partner",
    "refund-address",
    "set",
    d.partnerId,
    "--environment",
    "production",
    "--chain",
    "ethereum",
    "--address",
    refundAddress
  )
}

/** Paid exactly once: the destination holds the payout's amount, brought by one Transfer. */
export const paidOnce = async (d: Common, destination: Address, amount: string) => {
  const received = await d.received(destination)
  assert.strictEqual(received.balance, usdcUnits(amount), `the balance of ${destination}`)
  assert.strictEqual(received.transfers, 1, `Transfer logs to ${destination}`)
}
