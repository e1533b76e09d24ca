import * as GatewayContract from "../GatewayContract.ts"
import * as EvmTestChain from "../support/evmTestChain.ts"

GatewayContract.suite("EVM gateway (anvil)", EvmTestChain.layer)
