/**
 * The Ratelock service, as `pnpm start` runs it (`main.ts`). Settings come from the environment
 * (see README, "Running it"); SIGINT / SIGTERM stop it gracefully and it then exits 0.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Layer, Runtime } from "effect"
import { flushCompileCache } from "node:module"
import * as Host from "./Host.ts"

NodeRuntime.runMain(
  // the compile cache is written once the service is up: a process killed later never writes it
  Layer.launch(Host.layerConfig.pipe(Layer.tap(() => Effect.sync(flushCompileCache)))),
  {
    // a signal interrupts the service: that is its normal end, not a failure
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
  }
)
