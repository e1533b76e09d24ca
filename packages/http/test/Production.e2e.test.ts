/**
 * Production on a real chain, started as an operator starts it: `RATELOCK_PRODUCTION_CHAINS=ethereum`
 * with its settings, against anvil with a solc-compiled 6-decimal USDC, and a production partner
 * made with the CLI. Quote → contract (a BIP-44 funding address) → the customer's ERC-20 transfer →
 * active only at the configured depth → exercise → the payout arrives on chain, exactly once.
 * Rails the deployment does not settle on fail with `unsupported_settlement_rail`.
 */
import { afterAll, assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type Address, parseUnits } from "viem"
import { mnemonicToAccount } from "viem/accounts"
import { Anvil, layer as anvilLayer } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { newKey, quoteBody, request } from "./support/http.ts"
import { baseUrlOf, cliJson, removeTempDirs, start, tempDataDir } from "./support/process.ts"
import type { Key } from "./support/server.ts"

afterAll(removeTempDirs)

const exampleSnapshot = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../docs/market/example-snapshot.json"), "utf8")
)

/** Funding addresses come from their own seed: not anvil's accounts, not the hot wallet. */
const fundingMnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
const confirmations = 3

layer(anvilLayer, { excludeTestServices: true, timeout: "60 seconds" })("production on an EVM chain", (it) => {
  it.effect(
    "quote → contract → funded at depth → exercised → paid on chain once",
    () =>
      Effect.gen(function* () {
        const anvil = yield* Anvil
        const [deployer, customer, hotWallet] = [anvil.account(0), anvil.account(1), anvil.account(2)]
        const usdc = yield* Erc20.deploy(anvil.client, deployer, "standard", 6)
        yield* Erc20.mint(anvil.client, deployer, usdc, customer.address, parseUnits("1000000", 6))
        yield* Erc20.mint(anvil.client, deployer, usdc, hotWallet.address, parseUnits("1000000", 6))

        const dataDir = tempDataDir()
        // production prices only from fresh market data: the operator imports a snapshot observed now
        const snapshot = join(dataDir, "..", "snapshot.json")
        writeFileSync(snapshot, JSON.stringify({ ...exampleSnapshot, as_of: new Date().toISOString() }))
        yield* Effect.promise(() => cliJson(dataDir, "market", "import", snapshot))
        const partner = yield* Effect.promise(() => cliJson(dataDir, "partner", "create", "--name", "Prod Co"))
        const key: Key = {
          keyId: partner.environments.production.api_key_id,
          secret: partner.environments.production.api_key_secret,
          environment: "production"
        }
        const service = start(dataDir, {
          RATELOCK_PRODUCTION_CHAINS: "ethereum",
          RATELOCK_ETHEREUM_RPC_URL: anvil.url,
          RATELOCK_ETHEREUM_CHAIN_ID: "31337",
          RATELOCK_EVM_FUNDING_MNEMONIC: fundingMnemonic,
          RATELOCK_ETHEREUM_HOT_WALLET_KEY: anvil.privateKey(2),
          RATELOCK_ETHEREUM_CONFIRMATIONS: String(confirmations),
          RATELOCK_ETHEREUM_USDC: usdc,
          RATELOCK_ETHEREUM_USDT: "none",
          RATELOCK_ETHEREUM_EURC: "none",
          RATELOCK_WORKER_POLL_MS: "100",
          RATELOCK_DEMO_PARTNER: "false"
        })
        yield* Effect.addFinalizer(() => Effect.sync(() => service.child.kill("SIGKILL")))
        const baseUrl = yield* Effect.promise(() => baseUrlOf(service))
        const call = (method: "GET" | "POST", path: string, body?: unknown) =>
          request(baseUrl, method, path, {
            key,
            ...(body === undefined ? {} : { body }),
            ...(method === "POST" ? { headers: { "Idempotency-Key": newKey() } } : {})
          })

        // rails without a gateway or a configured token are refused at quote time
        for (const rail of [
          { chain: "ethereum", settlement_currency: "USDT" },
          { chain: "polygon", settlement_currency: "USDC" },
          { chain: "solana", settlement_currency: "USDC" }
        ]) {
          const refused = yield* call("POST", "/api/v1/fx/quotes", yield* quoteBody(rail))
          assert.strictEqual(refused.status, 201, refused.text)
          assert.strictEqual(refused.json.status, "failed")
          assert.strictEqual(refused.json.failure_reason.code, "unsupported_settlement_rail")
        }

        const customerRef = `cust-${newKey()}`
        const quote = yield* call(
          "POST",
          "/api/v1/fx/quotes",
          yield* quoteBody({ chain: "ethereum", settlement_currency: "USDC", customer_reference_id: customerRef })
        )
        assert.strictEqual(quote.json.status, "created", quote.text)
        const contract = (yield* call("POST", "/api/v1/fx/contracts", { quote_id: quote.json.id })).json
        const fundingAddress = contract.funding_wallet_address as string
        const derived = Array.from({ length: 20 }, (_, i) =>
          mnemonicToAccount(fundingMnemonic, { addressIndex: i }).address.toLowerCase()
        )
        assert.include(derived, fundingAddress, "the funding address is the seed's m/44'/60'/0'/0/<index>")

        const status = Effect.map(
          call("GET", `/api/v1/fx/customers/${customerRef}/locks`),
          (reply): string => reply.json.items[0].status
        )
        // the customer pays; one block is not the configured depth
        const units = parseUnits(contract.total_amount, 6)
        yield* Erc20.transfer(anvil.client, customer, usdc, fundingAddress as Address, units)
        yield* Effect.sleep("1 second")
        assert.strictEqual(yield* status, "quote_created", "activated before its depth")
        yield* anvil.mine(confirmations - 1)
        yield* waitUntil(status, (s) => s === "active", "the contract to become active")

        // exercised below the locked rate: the delta is paid from the hot wallet
        const destination = "0x00000000000000000000000000000000000000b1"
        const exercised = yield* call("POST", "/api/v1/fx/webhooks/inbound", {
          event_type: "contract_exercised",
          fx_contract_id: contract.id,
          executed_at: new Date().toISOString(),
          live_execution_rate: "5.0",
          payout_wallet_address: destination,
          chain: "ethereum"
        })
        assert.strictEqual(exercised.status, 200, exercised.text)
        yield* waitUntil(Effect.andThen(anvil.mine(1), status), (s) => s === "settled", "the payout to settle", {
          intervalMs: 300
        })

        const events = yield* call("GET", `/api/v1/fx/webhook-events?fx_contract_id=${contract.id}&direction=outgoing`)
        const settled = events.json.items.find((e: { event_type: string }) => e.event_type === "payout_settled")
        const payout = settled.payload.payout
        assert.strictEqual(payout.chain, "ethereum")
        assert.match(payout.transaction_hash, /^0x[0-9a-f]{64}$/)
        const receipt = yield* Effect.promise(() =>
          anvil.client.getTransactionReceipt({ hash: payout.transaction_hash })
        )
        assert.strictEqual(receipt.status, "success")
        assert.strictEqual(Number(receipt.blockNumber), payout.block_number)
        // exactly the payout, once
        assert.strictEqual(yield* Erc20.balanceOf(anvil.client, usdc, destination), parseUnits(payout.amount, 6))
        yield* anvil.mine(5)
        yield* Effect.sleep("1 second")
        assert.strictEqual(yield* Erc20.balanceOf(anvil.client, usdc, destination), parseUnits(payout.amount, 6))
        assert.strictEqual(
          yield* Effect.promise(() => anvil.client.getTransactionCount({ address: hotWallet.address })),
          1
        )
      }),
    180_000
  )
})

/** Polls `read` until `done` holds, or dies after a minute saying what it waited for. */
const waitUntil = <A, E, R>(
  read: Effect.Effect<A, E, R>,
  done: (a: A) => boolean,
  what: string,
  options: { readonly intervalMs?: number } = {}
) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 60_000
    for (;;) {
      const value = yield* read
      if (done(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what} (last: ${value})`))
      yield* Effect.sleep(options.intervalMs ?? 200)
    }
  })
