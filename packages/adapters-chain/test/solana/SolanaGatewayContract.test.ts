import * as GatewayContract from "../GatewayContract.ts"
import * as SolanaTestChain from "../support/solanaTestChain.ts"

GatewayContract.suite("ChainGateway contract: solana on litesvm", SolanaTestChain.layer)
