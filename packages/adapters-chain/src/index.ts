/**
 * @ratelock/adapters-chain: core's `ChainGateway` port on chains. For now the simulated chain
 * behind the sandbox and the tests; EVM (viem) and Solana adapters come with their issues.
 */
export * as SimulatedChain from "./SimulatedChain.ts"
export * as SqlSimulatedChain from "./SqlSimulatedChain.ts"
