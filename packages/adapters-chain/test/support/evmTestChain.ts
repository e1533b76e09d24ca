/**
 * The EVM gateway on anvil, for the gateway contract suite and the EVM tests: one anvil with three
 * test tokens (USDC: a standard 6-decimal ERC-20; USDT: the USDT-style one whose `transfer`
 * returns nothing; OTHER: a token the gateway is not configured for), a funder account holding
 * plenty of each, and a hot wallet (anvil account 1) with ether and 1,000,000 of USDC and USDT.
 *
 * Funding addresses come from the standard test mnemonic's sandbox account `m/44'/60'/1'`, which
 * anvil does not pre-fund.
 *
 * Multicall3 is installed at its usual address, as ethereum and polygon have it (a bare anvil has
 * none): the gateways read balances through it unless told `multicallAddress: null`.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { type ChainGateway, Money } from "@ratelock/core"
import { BigDecimal, Context, Effect, Layer, Redacted } from "effect"
import { type Address, encodeFunctionData, type Hex, multicall3Abi, parseAbi, parseGwei } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as EvmGateway from "../../src/EvmGateway.ts"
import { multicall3Address } from "../../src/internal/evm/balances.ts"
import * as Anvil from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { TestChain } from "./TestChain.ts"

export const funderIndex = 0
export const hotWalletIndex = 1
export const depth = 3
export const plenty = 1_000_000_000_000n // 1,000,000 with 6 decimals

export interface EvmFixtureShape {
  readonly usdc: Address
  readonly usdt: Address
  readonly other: Address
  /** Gateway options on this anvil: ethereum sandbox, depth 3, USDC and USDT, the hot wallet. */
  readonly options: (overrides?: Partial<EvmGateway.Options>) => EvmGateway.Options
}

export class EvmFixture extends Context.Service<EvmFixture, EvmFixtureShape>()(
  "@ratelock/adapters-chain/test/EvmFixture"
) {}

/**
 * Multicall3's creation code as viem ships it (for its deployless multicall; not exported, so read
 * from the file): the contract deployed at its usual address on the chains.
 */
const multicall3Bytecode = (): Hex => {
  const require = createRequire(import.meta.url)
  const contracts = require(join(dirname(require.resolve("viem")), "constants", "contracts.js")) as {
    readonly multicall3Bytecode: Hex
  }
  return contracts.multicall3Bytecode
}

/** Deploys Multicall3 and moves its code to its usual address (where a presigned transaction put it on the chains). */
export const installMulticall3 = Effect.gen(function* () {
  const anvil = yield* Anvil.Anvil
  const client = anvil.client
  yield* Effect.promise(async () => {
    const hash = await client.sendTransaction({
      account: anvil.account(funderIndex),
      chain: null,
      data: multicall3Bytecode()
    })
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 5 })
    const code = await client.getCode({ address: receipt.contractAddress! })
    await client.setCode({ address: multicall3Address, bytecode: code! })
    await client.mine({ blocks: 1 })
  })
})

const mintAbi = parseAbi(["function mint(address to, uint256 value)"])

/**
 * Mints `units[i]` of a test token to each `owners[i]`, a few hundred per transaction through
 * Multicall3 (`installMulticall3` first): many funded addresses in a few blocks.
 */
export const mintMany = (token: Address, owners: ReadonlyArray<string>, units: (i: number) => bigint) =>
  Effect.gen(function* () {
    const anvil = yield* Anvil.Anvil
    const perTransaction = 200
    for (let start = 0; start < owners.length; start += perTransaction) {
      const calls = owners.slice(start, start + perTransaction).map((owner, i) => ({
        target: token,
        allowFailure: false,
        callData: encodeFunctionData({ abi: mintAbi, functionName: "mint", args: [owner as Address, units(start + i)] })
      }))
      yield* Effect.promise(async () => {
        const hash = await anvil.client.writeContract({
          account: anvil.account(funderIndex),
          chain: null,
          address: multicall3Address,
          abi: multicall3Abi,
          functionName: "aggregate3",
          args: [calls]
        })
        const receipt = await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 5 })
        if (receipt.status !== "success") throw new Error(`minting to ${calls.length} addresses reverted`)
      })
    }
  })

/** Mining by hand for the scope's duration; automine and a 1 gwei base fee come back afterwards. */
export const manualMining = Effect.flatMap(Anvil.Anvil, (anvil) =>
  Effect.acquireRelease(
    Effect.promise(() => anvil.client.setAutomine(false)),
    () =>
      Effect.promise(async () => {
        await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei("1") })
        await anvil.client.mine({ blocks: 1 })
        await anvil.client.setAutomine(true)
      })
  )
)

/** Anvil with the tokens deployed and funded, and Multicall3. */
export const fixture: Layer.Layer<EvmFixture | Anvil.Anvil> = Layer.effect(
  EvmFixture,
  Effect.gen(function* () {
    const anvil = yield* Anvil.Anvil
    const funder = anvil.account(funderIndex)
    const hot = anvil.account(hotWalletIndex).address
    const usdc = yield* Erc20.deploy(anvil.client, funder, "standard")
    const usdt = yield* Erc20.deploy(anvil.client, funder, "usdtStyle")
    const other = yield* Erc20.deploy(anvil.client, funder, "standard")
    for (const token of [usdc, usdt, other]) {
      yield* Erc20.mint(anvil.client, funder, token, funder.address, plenty * 1000n)
    }
    for (const token of [usdc, usdt]) yield* Erc20.mint(anvil.client, funder, token, hot, plenty)
    yield* installMulticall3
    const options = (overrides: Partial<EvmGateway.Options> = {}): EvmGateway.Options => ({
      chain: "ethereum",
      environment: "sandbox",
      rpcUrl: anvil.url,
      tokens: { USDC: { address: usdc }, USDT: { address: usdt } },
      funding: { _tag: "Mnemonic", mnemonic: Redacted.make(Anvil.testMnemonic) },
      hotWalletKey: Redacted.make(anvil.privateKey(hotWalletIndex)),
      confirmations: depth,
      ...overrides
    })
    return EvmFixture.of({ usdc, usdt, other, options })
  })
).pipe(Layer.provideMerge(Anvil.layer))

/** A gateway on the fixture's anvil, built from `options` (overrides on top of the fixture's). */
export const gateway = (overrides?: Partial<EvmGateway.Options>) =>
  Layer.unwrap(EvmFixture.useSync((f) => EvmGateway.layer(f.options(overrides))))

/** `TestChain` on the fixture's anvil, for the USDC rail. */
export const testChain: Layer.Layer<TestChain, never, EvmFixture | Anvil.Anvil> = Layer.effect(
  TestChain,
  Effect.gen(function* () {
    const anvil = yield* Anvil.Anvil
    const { usdc } = yield* EvmFixture
    const funder = anvil.account(funderIndex)
    const hot = anvil.account(hotWalletIndex).address
    const units = (amount: Money.Decimal) => Money.toBaseUnits(amount, 6)
    return TestChain.of({
      rail: { chain: "ethereum", environment: "sandbox", token: "USDC" },
      depth,
      fund: (address, amount) =>
        Effect.map(Erc20.transfer(anvil.client, funder, usdc, address as Address, units(amount)), (receipt) => ({
          transactionHash: receipt.transactionHash
        })),
      advance: anvil.mine,
      // normalised ("7.25", "0"), as the other chains' harnesses report it
      balanceOf: (address) =>
        Effect.map(Erc20.balanceOf(anvil.client, usdc, address), (balance) =>
          BigDecimal.normalize(Money.fromBaseUnits(balance, 6))
        ),
      freshDestination: Effect.sync(() => privateKeyToAccount(generatePrivateKey()).address.toLowerCase()),
      drainHotWallet: Effect.flatMap(Erc20.balanceOf(anvil.client, usdc, hot), (balance) =>
        balance === 0n ? Effect.void : Effect.asVoid(Erc20.burn(anvil.client, funder, usdc, hot, balance))
      ),
      refillHotWallet: Effect.asVoid(Erc20.mint(anvil.client, funder, usdc, hot, plenty))
    })
  })
)

/** Everything the gateway contract suite needs, on a fresh anvil. */
export const layer: Layer.Layer<
  ChainGateway.ChainGateway | TestChain | EvmFixture | Anvil.Anvil,
  ChainGateway.ChainError
> = Layer.mergeAll(gateway(), testChain).pipe(Layer.provideMerge(fixture))
