/**
 * `ratelock partner refund-address set` in production, on a real chain: `RATELOCK_PRODUCTION_CHAINS=ethereum`
 * on anvil. The address is judged by the EVM gateway's payout rule (EIP-55 when mixed case, never
 * the zero address) and stored lowercase; polygon, not enabled, is refused naming the setting, and
 * nothing refused is written.
 */
import { afterAll, assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Anvil, layer as anvilLayer } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { cliJson, cliWith, removeTempDirs, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

const fundingMnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

layer(anvilLayer, { excludeTestServices: true, timeout: "120 seconds" })("refund addresses on an EVM chain", (it) => {
  it.effect(
    "production: the EVM gateway's payout rule decides, lowercase is stored, a chain not enabled is refused",
    () =>
      Effect.gen(function* () {
        const anvil = yield* Anvil
        const usdc = yield* Erc20.deploy(anvil.client, anvil.account(0), "standard", 6)
        const env = {
          RATELOCK_PRODUCTION_CHAINS: "ethereum",
          RATELOCK_ETHEREUM_RPC_URL: anvil.url,
          RATELOCK_ETHEREUM_CHAIN_ID: "31337",
          RATELOCK_EVM_FUNDING_MNEMONIC: fundingMnemonic,
          RATELOCK_ETHEREUM_USDC: usdc,
          RATELOCK_ETHEREUM_USDT: "none",
          RATELOCK_ETHEREUM_EURC: "none",
          RATELOCK_DEMO_PARTNER: "false"
        }
        const dataDir = tempDataDir()
        const run = (...args: ReadonlyArray<string>) => Effect.promise(() => cliWith(dataDir, env, ...args))
        const { partner_id: partnerId } = yield* Effect.promise(() =>
          cliJson(dataDir, "partner", "create", "--name", "Refund Co")
        )
        const set = (chain: string, address: string) =>
          run(
            "partner",
            "refund-address",
            "set",
            partnerId,
            "--environment",
            "production",
            "--chain",
            chain,
            "--address",
            address
          )
        const refunds = Effect.map(run("partner", "list", "--json"), (listed) => {
          assert.strictEqual(listed.code, 0, listed.stderr)
          return JSON.parse(listed.stdout).find((p: { partner_id: string }) => p.partner_id === partnerId)
            .refund_addresses
        })

        const ok = yield* set("ethereum", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
        assert.strictEqual(ok.code, 0, ok.stderr)
        assert.include(ok.stdout, "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")

        const refusals: ReadonlyArray<readonly [chain: string, address: string, message: string]> = [
          // one letter's case flipped: the checksum catches it
          ["ethereum", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", "a valid EIP-55 checksum when mixed case"],
          ["ethereum", "0x0000000000000000000000000000000000000000", "not the zero address"],
          ["ethereum", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea", "not a payable ethereum address"],
          [
            "polygon",
            "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
            'polygon is not enabled for production (RATELOCK_PRODUCTION_CHAINS is "ethereum")'
          ]
        ]
        for (const [chain, address, message] of refusals) {
          const refused = yield* set(chain, address)
          assert.strictEqual(refused.code, 1, `${chain} ${address}`)
          assert.include(refused.stderr, message)
        }
        assert.deepStrictEqual(yield* refunds, {
          production: { ethereum: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" }
        })
      }),
    // a dozen CLI processes, each starting the chain: well over vitest's default on a loaded machine
    120_000
  )
})
