import * as GatewayContract from "./GatewayContract.ts"
import * as SimulatedTestChain from "./support/simulatedTestChain.ts"

GatewayContract.suite("ChainGateway contract: simulated chain", SimulatedTestChain.layer)
