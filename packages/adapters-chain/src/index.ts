/**
 * @ratelock/adapters-chain: core's `ChainGateway` port on chains: EVM (viem) for ethereum and
 * polygon, Solana (@solana/web3.js), the simulated chain behind the sandbox and the tests, and
 * the router and configuration that put them behind one gateway.
 *
 * The real gateways are their own entry points (`@ratelock/adapters-chain/EvmGateway`,
 * `/SolanaGateway`), so importing this one loads no chain library.
 */
export * as ChainRouter from "./ChainRouter.ts"
export * as ProductionChains from "./ProductionChains.ts"
export * as SimulatedChain from "./SimulatedChain.ts"
export * as SqlSimulatedChain from "./SqlSimulatedChain.ts"
export * as TokenRegistry from "./TokenRegistry.ts"
