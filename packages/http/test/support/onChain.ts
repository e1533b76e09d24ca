/**
 * A production deployment on a local chain for the payout end-to-end tests, set up and torn down
 * whole: anvil with a solc-compiled 6-decimal USDC (the customer and the hot wallet minted a
 * million each), a fresh PostgreSQL database, a fresh market snapshot and a partner made with the
 * CLI, and a cluster whose every process runs `RATELOCK_PRODUCTION_CHAINS=ethereum` on that chain
 * (its settings: `env`). Contracts are sold and funded as the customer would fund them (an ERC-20
 * transfer to the funding address, active at the configured depth), exercised below the locked
 * rate, and what the chain holds afterwards is read from anvil itself.
 */
import { Anvil, type AnvilShape, layer as anvilLayer } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { freePort } from "@ratelock/test-support/Processes"
import { Effect, ManagedRuntime } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Address, type Hash, parseAbiItem, parseGwei, parseUnits } from "viem"
import { assert } from "vitest"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { type Database, freshDatabase } from "./cluster/database.ts"
import { newKey, quoteBody, request } from "./http.ts"
import { Cluster, packageDir } from "./processes.ts"

/** Funding addresses come from their own seed: not anvil's accounts, not the hot wallet. */
const fundingMnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
/** Anvil's account 2 pays the customers. */
export const hotWalletIndex = 2

const exampleSnapshot = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../../docs/market/example-snapshot.json"), "utf8")
)

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

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

export interface Contract {
  readonly id: string
  readonly funding_wallet_address: Address
  readonly total_amount: string
}

export interface Deployment {
  readonly anvil: AnvilShape
  readonly usdc: Address
  readonly hotWallet: Address
  readonly db: Database
  readonly cluster: Cluster
  /** What every process of the cluster is started with. */
  readonly env: Record<string, string>
  readonly confirmations: number
  /** `ratelock <args> --json` on the database, with the cluster's settings (the chain, for `payouts show`). */
  // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON is read field by field
  readonly ratelock: (...args: ReadonlyArray<string>) => Promise<any>
  /** The API process (no workers). */
  readonly baseUrl: string
  /** A GET on an operator listener (the API process's unless `url`), with an operator token. */
  readonly operator: (
    path: string,
    url?: string
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field
  ) => Promise<{ readonly status: number; readonly json: any; readonly text: string }>
  /** Quotes, contracts and customer transfers for `n` locks; their contracts once all are active. */
  readonly activeContracts: (n: number) => Promise<ReadonlyArray<Contract>>
  /** The partner's exercise below the locked rate, to be paid to `destination`. */
  readonly exercise: (contractId: string, destination: Address) => Promise<void>
  readonly payout: (contractId: string) => Promise<PayoutRow | undefined>
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
  readonly stop: () => Promise<void>
}

/**
 * One contract sold, funded and active (a worker must be running), then automine off and a block
 * at a 1 gwei base fee; exercised to a fresh wallet: resolves once its payout's first version
 * (3 gwei max fee: 2 × 1 gwei + 1 gwei tip) is signed, stored and in anvil's pool, not mined.
 */
export const payoutInPool = async (d: Deployment) => {
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

export const deploy = async (
  serverUrl: string,
  options: { readonly prefix: string; readonly confirmations?: number; readonly env?: Record<string, string> }
): Promise<Deployment> => {
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

    const db = await freshDatabase(serverUrl, options.prefix)
    cleanups.push(() => db.drop())
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
      ...options.env
    }
    const cluster = new Cluster(db.url, env)
    cleanups.push(() => cluster.stop())

    const ratelock = (...args: ReadonlyArray<string>) =>
      new Promise<unknown>((resolve, reject) => {
        const childEnv: Record<string, string | undefined> = {
          ...process.env,
          DATABASE_URL: db.url,
          RATELOCK_LOG_LEVEL: "Warn",
          ...env
        }
        delete childEnv.INIT_CWD
        execFile(
          process.execPath,
          ["--conditions=source", "src/cli.ts", ...args, "--json"],
          { cwd: packageDir, env: childEnv },
          (error, stdout, stderr) =>
            error === null
              ? resolve(JSON.parse(stdout))
              : reject(new Error(`ratelock ${args.join(" ")}: ${stderr || error.message}`))
        )
      })

    // production prices only from fresh market data: the operator imports a snapshot observed now
    const snapshot = join(scratch, "snapshot.json")
    writeFileSync(snapshot, JSON.stringify({ ...exampleSnapshot, as_of: new Date().toISOString() }))
    // the first command migrates the fresh database; the others after it
    await ratelock("market", "import", snapshot)
    const [partner, operatorToken] = await Promise.all([
      // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON
      ratelock("partner", "create", "--name", "Chain Pay") as Promise<any>,
      // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON
      ratelock("operator", "token", "create", "--name", "payouts-e2e") as Promise<any>
    ])
    const key = {
      keyId: partner.environments.production.api_key_id as string,
      secret: partner.environments.production.api_key_secret as string,
      environment: "production"
    }

    const operatorPort = await freePort()
    const { baseUrl } = await cluster.startApi("api", { RATELOCK_OPERATOR_PORT: String(operatorPort) })
    const operatorUrl = `http://127.0.0.1:${operatorPort}`

    const post = async (path: string, body: unknown) => {
      const reply = await Effect.runPromise(
        request(baseUrl, "POST", path, { key, body, headers: { "Idempotency-Key": newKey() } })
      )
      if (reply.status >= 300) throw new Error(`POST ${path}: ${reply.status} ${reply.text}`)
      return reply.json
    }

    const contractStatus = async (contractId: string) =>
      (
        await db.query<{ readonly status: string }>((sql) => sql`SELECT status FROM contracts WHERE id = ${contractId}`)
      )[0]?.status

    const activeContracts = async (n: number) => {
      const contracts: Array<Contract> = []
      for (let i = 0; i < n; i++) {
        const quote = await post(
          "/api/v1/fx/quotes",
          await Effect.runPromise(
            quoteBody({
              chain: "ethereum",
              settlement_currency: "USDC",
              notional_amount: "1000",
              customer_reference_id: `cust-${newKey()}`
            })
          )
        )
        if (quote.status !== "created") throw new Error(`quote not created: ${JSON.stringify(quote)}`)
        contracts.push(await post("/api/v1/fx/contracts", { quote_id: quote.id }))
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
      const ids = contracts.map((c) => c.id)
      await waitFor(
        async () => {
          const rows = await db.query<{ readonly status: string }>(
            (sql) => sql`SELECT status FROM contracts WHERE id::text IN ${sql.in(ids)}`
          )
          return rows.map((r) => r.status)
        },
        (statuses) => statuses.length === n && statuses.every((s) => s === "active"),
        `${n} contracts to become active`
      )
      return contracts
    }

    return {
      anvil,
      usdc,
      hotWallet: hot.address.toLowerCase() as Address,
      db,
      cluster,
      env,
      confirmations,
      ratelock,
      baseUrl,
      operator: (path, url = operatorUrl) =>
        Effect.runPromise(request(url, "GET", path, { headers: { authorization: `Bearer ${operatorToken.token}` } })),
      activeContracts,
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
      payout: async (contractId) =>
        (
          await db.query<PayoutRow>(
            (sql) => sql`SELECT id::text, contract_id::text, amount::text, status, destination, transaction_hash,
                nonce::text, waiting, replacements, attempts, last_error, prepared
              FROM payouts WHERE contract_id = ${contractId}`
          )
        )[0],
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
  } catch (error) {
    await stop()
    throw error
  }
}

/** Deploys, runs `body`, and stops every process and drops the database whatever happened. */
export const withDeployment = async (
  serverUrl: string,
  options: Parameters<typeof deploy>[1],
  body: (d: Deployment) => Promise<void>
): Promise<void> => {
  const d = await deploy(serverUrl, options)
  try {
    await body(d)
  } finally {
    await d.stop()
  }
}

/** Mines a block (at `baseFeeGwei` when given, by hand) every `everyMs` until `done`. */
export const mineUntil = async <A>(
  d: Deployment,
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

/** Paid exactly once: the destination holds the payout's amount, brought by one Transfer. */
export const paidOnce = async (d: Deployment, destination: Address, amount: string) => {
  const received = await d.received(destination)
  assert.strictEqual(received.balance, usdcUnits(amount), `the balance of ${destination}`)
  assert.strictEqual(received.transfers, 1, `Transfer logs to ${destination}`)
}
