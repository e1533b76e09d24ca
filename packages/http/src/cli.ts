/**
 * `pnpm ratelock <command>`: the operator CLI (see `OperatorCli.ts` and the README).
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import * as OperatorCli from "./OperatorCli.ts"

OperatorCli.run.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
