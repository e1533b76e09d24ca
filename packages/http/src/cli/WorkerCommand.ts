/**
 * `ratelock worker`: the lifecycle workers in a process of their own, for a deployment that runs
 * them apart from the API servers.
 */
import { Console, Effect, Layer } from "effect"
import { Command } from "effect/cli"
import * as Host from "../Host.ts"
import * as HostConfig from "../HostConfig.ts"
import { forOperator } from "./OperatorMessage.ts"

export const worker = Command.make("worker", {}, () =>
  forOperator(
    Effect.flatMap(HostConfig.settings, (settings) =>
      Effect.andThen(
        Console.log(`Running the lifecycle workers (${HostConfig.describeStore(settings)}); Ctrl-C stops them.`),
        Layer.launch(Host.workersOnly(settings))
      )
    )
  )
).pipe(Command.withDescription("Run the lifecycle workers alone (funding, payouts, expiry, webhook delivery)"))
