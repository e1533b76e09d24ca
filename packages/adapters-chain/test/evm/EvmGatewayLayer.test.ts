import { assert, describe, it, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import { Effect, Layer, Redacted } from "effect"
import { HDKey } from "@scure/bip32"
import { mnemonicToSeedSync } from "@scure/bip39"
import { mnemonicToAccount } from "viem/accounts"
import * as EvmGateway from "../../src/EvmGateway.ts"
import * as Hd from "../../src/internal/evm/hd.ts"
import { Anvil, testMnemonic } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { EvmFixture, fixture, gateway } from "../support/evmTestChain.ts"

const sandbox: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }
const production: ChainGateway.Rail = { ...sandbox, environment: "production" }
const abandonMnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

const accountXpub = (mnemonic: string, account: number) =>
  HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(`m/44'/60'/${account}'`).publicExtendedKey

/** The reason the layer refuses to build with these options. */
const buildFailure = (options: EvmGateway.Options) =>
  Layer.build(EvmGateway.layer(options)).pipe(
    Effect.scoped,
    Effect.flip,
    Effect.map((e) => e.reason)
  )

const addresses = (rail: ChainGateway.Rail, indexes: ReadonlyArray<number>) =>
  Effect.flatMap(ChainGateway.ChainGateway, (g) => Effect.forEach(indexes, (i) => g.fundingAddress(rail, i)))

describe("EVM HD derivation", () => {
  it("matches known BIP-44 vectors at m/44'/60'/0'/0/i", () => {
    const production = Hd.externalChain({ _tag: "Mnemonic", mnemonic: testMnemonic }, "production")
    assert.notStrictEqual(typeof production, "string")
    const node = production as HDKey
    assert.strictEqual(Hd.address(node, 0), "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
    assert.strictEqual(Hd.address(node, 1), "0x70997970c51812dc3a010c7d01b50e0d17dc79c8")
    assert.strictEqual(Hd.address(node, 2), "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc")
    const abandon = Hd.externalChain({ _tag: "Mnemonic", mnemonic: abandonMnemonic }, "production") as HDKey
    assert.strictEqual(Hd.address(abandon, 0), "0x9858effd232b4033e47d90003d41ec34ecaeda94")
  })

  it("sandbox uses account 1', as viem derives it", () => {
    const node = Hd.externalChain({ _tag: "Mnemonic", mnemonic: testMnemonic }, "sandbox") as HDKey
    for (const i of [0, 1, 77]) {
      assert.strictEqual(
        Hd.address(node, i),
        mnemonicToAccount(testMnemonic, { accountIndex: 1, addressIndex: i }).address.toLowerCase()
      )
    }
  })

  it("refuses a bad mnemonic and an xpub of the wrong level or account", () => {
    assert.isString(Hd.externalChain({ _tag: "Mnemonic", mnemonic: "test test test" }, "sandbox"))
    assert.isString(Hd.externalChain({ _tag: "Xpub", xpub: accountXpub(testMnemonic, 0) }, "sandbox"))
    assert.isString(Hd.externalChain({ _tag: "Xpub", xpub: "xpub-nonsense" }, "sandbox"))
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(testMnemonic)).publicExtendedKey
    assert.isString(Hd.externalChain({ _tag: "Xpub", xpub: root }, "production"))
  })
})

layer(fixture, { excludeTestServices: true })("EvmGateway layer (anvil)", (it) => {
  it.effect("funding addresses: lowercase, per environment, xpub-derived equal seed-derived", () =>
    Effect.gen(function* () {
      const f = yield* EvmFixture
      const indexes = [0, 1, 2, 1000, Hd.maxIndex]
      const fromSeed = yield* addresses(sandbox, indexes).pipe(Effect.provide(gateway()))
      for (const address of fromSeed) assert.match(address, /^0x[0-9a-f]{40}$/)
      assert.strictEqual(new Set(fromSeed).size, indexes.length)
      const fromXpub = yield* addresses(sandbox, indexes).pipe(
        Effect.provide(EvmGateway.layer(f.options({ funding: { _tag: "Xpub", xpub: accountXpub(testMnemonic, 1) } })))
      )
      assert.deepStrictEqual(fromXpub, fromSeed)

      const prod = yield* addresses(production, [0, 1]).pipe(Effect.provide(gateway({ environment: "production" })))
      assert.deepStrictEqual(prod, [
        "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
        "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
      ])
      const prodXpub = yield* addresses(production, [0, 1]).pipe(
        Effect.provide(
          EvmGateway.layer(
            f.options({ environment: "production", funding: { _tag: "Xpub", xpub: accountXpub(testMnemonic, 0) } })
          )
        )
      )
      assert.deepStrictEqual(prodXpub, prod)
    })
  )

  it.effect("refuses bad indexes and rails it does not serve", () =>
    Effect.gen(function* () {
      const g = yield* ChainGateway.ChainGateway
      const reason = (rail: ChainGateway.Rail, index: number) =>
        Effect.map(Effect.flip(g.fundingAddress(rail, index)), (e) => e.reason)
      assert.strictEqual(yield* reason(sandbox, -1), "invalid_index")
      assert.strictEqual(yield* reason(sandbox, 1.5), "invalid_index")
      assert.strictEqual(yield* reason(sandbox, 2 ** 31), "invalid_index")
      assert.strictEqual(yield* reason(sandbox, Number.MAX_SAFE_INTEGER + 1), "invalid_index")
      assert.strictEqual(yield* reason(production, 0), "unsupported_rail")
      assert.strictEqual(yield* reason({ ...sandbox, chain: "polygon" }, 0), "unsupported_rail")
      assert.strictEqual(yield* reason({ ...sandbox, token: "BRLA" }, 0), "unsupported_token")
    }).pipe(Effect.provide(gateway()))
  )

  it.effect("checkAddress: a payout's destination rule, lowercase; no other chain or environment", () =>
    Effect.gen(function* () {
      const g = yield* ChainGateway.ChainGateway
      const rail = { chain: "ethereum", environment: "sandbox" } as const
      const refused = (address: string, on: Omit<ChainGateway.Rail, "token"> = rail) =>
        Effect.flip(g.checkAddress(on, address))
      // EIP-55's own example, checksummed, all lowercase and all uppercase: one address, stored lowercase
      const checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
      for (const spelling of [checksummed, checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`]) {
        assert.strictEqual(yield* g.checkAddress(rail, spelling), "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
      }
      // one letter's case flipped: the checksum catches the typo
      const typo = yield* refused("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD")
      assert.strictEqual(typo.reason, "invalid_address")
      assert.include(typo.message, "EIP-55 checksum")
      for (const address of [
        "0x0000000000000000000000000000000000000000",
        "0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea",
        "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
        "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg",
        "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
        ""
      ]) {
        assert.strictEqual((yield* refused(address)).reason, "invalid_address", address)
      }
      assert.include((yield* refused("0x0000000000000000000000000000000000000000")).message, "not the zero address")
      // the rule of another chain or environment is another gateway's to apply
      assert.strictEqual((yield* refused(checksummed, { ...rail, chain: "polygon" })).reason, "unsupported_rail")
      assert.strictEqual(
        (yield* refused(checksummed, { ...rail, environment: "production" })).reason,
        "unsupported_rail"
      )
    }).pipe(Effect.provide(gateway()))
  )

  it.effect("refuses to start when a token's decimals differ or it does not answer", () =>
    Effect.gen(function* () {
      const f = yield* EvmFixture
      const anvil = yield* Anvil
      const eighteen = yield* Erc20.deploy(anvil.client, anvil.account(0), "standard", 18)
      assert.strictEqual(yield* buildFailure(f.options({ tokens: { USDC: { address: eighteen } } })), "token_mismatch")
      assert.strictEqual(
        yield* buildFailure(f.options({ tokens: { USDC: { address: f.usdc, decimals: 18 } } })),
        "token_mismatch"
      )
      // an account without code answers nothing
      const eoa = anvil.account(5).address
      assert.strictEqual(yield* buildFailure(f.options({ tokens: { USDT: { address: eoa } } })), "token_mismatch")
      // 18 is accepted when configured so
      yield* Layer.build(EvmGateway.layer(f.options({ tokens: { USDC: { address: eighteen, decimals: 18 } } }))).pipe(
        Effect.scoped
      )
    })
  )

  it.effect("replacement pace and fee cap: defaults per chain, fractional gwei taken exactly", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(EvmGateway.defaultReplaceAfterSeconds, { ethereum: 120, polygon: 60 })
      assert.deepStrictEqual(EvmGateway.defaultMaxFeeGwei, { ethereum: 200, polygon: 2_000 })
      const f = yield* EvmFixture
      const rail: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }
      const destination = "0x00000000000000000000000000000000000000aa"
      /** The cap a gateway built with these options reports, and the max fee of a payout it signs. */
      const capOf = (options: EvmGateway.Options) =>
        Effect.flatMap(ChainGateway.ChainGateway, (g) =>
          Effect.gen(function* () {
            const prepared = yield* g.preparePayout({
              payoutId: "cap",
              rail,
              destination,
              amount: Money.unsafe("1"),
              committed: Money.zero
            })
            const inspection = yield* g.inspectPayout(rail, prepared)
            return [inspection.chainAsks.cap_gwei, inspection.versions[0]!.fees.max_fee_per_gas_gwei]
          })
        ).pipe(Effect.provide(EvmGateway.layer(options)))
      assert.strictEqual((yield* capOf(f.options()))[0], "200")
      // a cap below what anvil asks (2 × base + 1 gwei tip): signed at the cap, to the wei
      assert.deepStrictEqual(yield* capOf(f.options({ maxFeeGwei: 0.5 })), ["0.5", "0.5"])
      assert.deepStrictEqual(yield* capOf(f.options({ maxFeeGwei: 0.123456789 })), ["0.123456789", "0.123456789"])
      // as the environment gives it: a decimal string, to the wei
      assert.deepStrictEqual(yield* capOf(f.options({ maxFeeGwei: "0.987654321" })), ["0.987654321", "0.987654321"])
    })
  )

  it.effect("refuses to start on a bad RPC, chain id, key or token", () =>
    Effect.gen(function* () {
      const f = yield* EvmFixture
      assert.strictEqual(yield* buildFailure(f.options({ rpcUrl: "http://127.0.0.1:1" })), "rpc_unavailable")
      assert.strictEqual(yield* buildFailure(f.options({ chainId: 1 })), "chain_mismatch")
      yield* Layer.build(EvmGateway.layer(f.options({ chainId: 31337 }))).pipe(Effect.scoped)
      assert.strictEqual(
        yield* buildFailure(f.options({ chain: "polygon", tokens: { EURC: { address: f.usdc } } })),
        "unsupported_token"
      )
      const bad = [
        f.options({ funding: { _tag: "Mnemonic", mnemonic: Redacted.make("not a mnemonic") } }),
        f.options({ funding: { _tag: "Xpub", xpub: accountXpub(testMnemonic, 0) } }),
        f.options({ hotWalletKey: Redacted.make("0x1234") }),
        f.options({ confirmations: 0 }),
        f.options({ tokens: { USDC: { address: "0x1234" } } }),
        f.options({ replaceAfterSeconds: -1 }),
        f.options({ replaceAfterSeconds: Number.NaN }),
        f.options({ maxFeeGwei: 0 }),
        f.options({ maxFeeGwei: Number.POSITIVE_INFINITY }),
        f.options({ maxFeeGwei: "0.1234567891" }),
        f.options({ maxFeeGwei: "-1" }),
        f.options({ maxFeeGwei: "two hundred" })
      ]
      for (const options of bad) assert.strictEqual(yield* buildFailure(options), "invalid_config")
    })
  )
})
