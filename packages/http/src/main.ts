/**
 * `pnpm start`: the Ratelock service. Settings come from the environment (see README, "Running
 * it"); SIGINT / SIGTERM stop it gracefully and it then exits 0.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Exit, Layer, Runtime } from "effect"
import * as Host from "./Host.ts"

NodeRuntime.runMain(Layer.launch(Host.layerConfig), {
  // a signal interrupts the service: that is its normal end, not a failure
  teardown: (exit, onExit) =>
    Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
})
