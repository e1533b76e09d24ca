/**
 * `pnpm ratelock <command>`: the operator CLI (see `OperatorCli.ts`, its groups in `cli/`, and the README).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import * as OperatorCli from "./OperatorCli.ts"

OperatorCli.run.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
