/**
 * The hot wallet watched, on a real chain: production on anvil (`RATELOCK_PRODUCTION_CHAINS=ethereum`)
 * with a solc-compiled 6-decimal USDC, the hot wallet one of anvil's accounts holding ETH and an odd
 * amount of USDC, and its thresholds set as an operator sets them. The workers' reading, as
 * `GET /operator/v1/treasury` and `ratelock treasury show --json` give it, is the chain's own
 * `getBalance` and `balanceOf` to the last unit; a USDC balance under its threshold turns
 * `GET /operator/v1/status` degraded with that reason, and the gauge says the same balance.
 *
 * Needs the EVM gateway's `hotWallet` (core's `ChainGateway.hotWallet`) and the store's
 * `PayoutRepo.list`.
 */
import { afterAll, assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { parseUnits } from "viem"
import { Anvil, layer as anvilLayer } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { request } from "./support/http.ts"
import { bearer } from "./support/operator.ts"
import { cliJson, operatorUrlOf, removeTempDirs, start, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

const fundingMnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

interface WalletRow {
  readonly environment: string
  readonly chain: string
  readonly asset: string
  readonly address: string | null
  readonly balance: string | null
  readonly min_balance: string | null
  readonly below_min: boolean | null
}

layer(anvilLayer, { excludeTestServices: true, timeout: "60 seconds" })("the hot wallet on an EVM chain", (it) => {
  it.effect(
    "the treasury's balances are the chain's getBalance and balanceOf; under its threshold the status is degraded",
    () =>
      Effect.gen(function* () {
        const anvil = yield* Anvil
        const [deployer, hotWallet] = [anvil.account(0), anvil.account(2)]
        const usdc = yield* Erc20.deploy(anvil.client, deployer, "standard", 6)
        // an amount whose every digit counts
        yield* Erc20.mint(anvil.client, deployer, usdc, hotWallet.address, parseUnits("1234.567891", 6))

        const dataDir = tempDataDir()
        // the embedded database takes one process at a time: the token before the service
        const { token } = yield* Effect.promise(() =>
          cliJson(dataDir, "operator", "token", "create", "--name", "ops", "--role", "admin")
        )
        const thresholds = {
          RATELOCK_ETHEREUM_HOT_WALLET_MIN_NATIVE: "1",
          RATELOCK_ETHEREUM_HOT_WALLET_MIN_USDC: "5000"
        }
        const service = start(dataDir, {
          RATELOCK_PRODUCTION_CHAINS: "ethereum",
          RATELOCK_ETHEREUM_RPC_URL: anvil.url,
          RATELOCK_ETHEREUM_CHAIN_ID: "31337",
          RATELOCK_EVM_FUNDING_MNEMONIC: fundingMnemonic,
          RATELOCK_ETHEREUM_HOT_WALLET_KEY: anvil.privateKey(2),
          RATELOCK_ETHEREUM_CONFIRMATIONS: "1",
          RATELOCK_ETHEREUM_USDC: usdc,
          RATELOCK_ETHEREUM_USDT: "none",
          RATELOCK_ETHEREUM_EURC: "none",
          RATELOCK_WORKER_POLL_MS: "100",
          RATELOCK_DEMO_PARTNER: "false",
          ...thresholds
        })
        yield* Effect.addFinalizer(() => Effect.sync(() => service.child.kill("SIGKILL")))
        const url = yield* Effect.promise(() => operatorUrlOf(service))
        const get = (path: string) => request(url, "GET", path, { headers: bearer(token) })

        // the hot-wallet pass runs as the workers start, then once a minute
        const rows = yield* waitUntil(
          Effect.map(
            get("/operator/v1/treasury?environment=production"),
            (reply): ReadonlyArray<WalletRow> => reply.json.wallets ?? []
          ),
          (wallets) => wallets.some((w) => w.chain === "ethereum" && w.asset === "USDC" && w.balance !== null),
          "the workers' first reading of the hot wallet"
        )
        const row = (asset: string) => rows.find((w) => w.chain === "ethereum" && w.asset === asset)!
        const native = yield* Effect.promise(() => anvil.client.getBalance({ address: hotWallet.address }))
        const tokens = yield* Erc20.balanceOf(anvil.client, usdc, hotWallet.address)
        assert.strictEqual(row("NATIVE").address?.toLowerCase(), hotWallet.address.toLowerCase())
        // to the last wei and the last micro-USDC
        assert.strictEqual(parseUnits(row("NATIVE").balance!, 18), native)
        assert.strictEqual(parseUnits(row("USDC").balance!, 6), tokens)
        assert.strictEqual(row("USDC").balance, "1234.567891")
        assert.deepInclude(row("NATIVE"), { min_balance: "1", below_min: false })
        assert.deepInclude(row("USDC"), { min_balance: "5000", below_min: true })

        // the status: degraded, saying which wallet, which asset and by how much
        const status = (yield* get("/operator/v1/status")).json
        assert.isTrue(status.degraded)
        // (the wallet's opening balances, recorded by nobody, are also the reconciliation's
        // differences once it ran: MoneyLoopOnChain.e2e records them and checks that alert)
        const walletAlerts = status.alerts.filter((a: { kind: string }) => a.kind !== "reconciliation_differences")
        assert.deepStrictEqual(walletAlerts, [
          {
            kind: "hot_wallet_low",
            environment: "production",
            chain: "ethereum",
            asset: "USDC",
            message:
              "The production ethereum hot wallet holds 1234.567891 USDC, under its minimum of 5000 (RATELOCK_ETHEREUM_HOT_WALLET_MIN_USDC): fund it."
          }
        ])
        // the gauge: the same balance, as a number
        const metrics = (yield* get("/metrics")).text
        assert.match(
          metrics,
          /ratelock_hot_wallet_balance\{[^}]*asset="USDC"[^}]*\} 1234\.567891/,
          "the USDC balance gauge"
        )

        // the CLI prints the same view (the service stopped: the embedded database is one process's)
        service.child.kill("SIGTERM")
        yield* Effect.promise(() => service.exited)
        const printed = yield* Effect.promise(() => cliJson(dataDir, "treasury", "show", "--environment", "production"))
        const shown = printed.wallets.find((w: WalletRow) => w.chain === "ethereum" && w.asset === "USDC")
        assert.strictEqual(parseUnits(shown.balance, 6), tokens)
      }),
    180_000
  )
})

/** Polls `read` until `done` holds, or dies after a minute saying what it waited for. */
const waitUntil = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean, what: string) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 60_000
    for (;;) {
      const value = yield* read
      if (done(value)) return value
      if (Date.now() > deadline) {
        return yield* Effect.die(new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`))
      }
      yield* Effect.sleep(250)
    }
  })
