/** `ratelock migrate`: the schema brought up to date without starting a server (which does it too). */
import { PgStore } from "@ratelock/adapters-store"
import { Console, Effect } from "effect"
import { Command } from "effect/cli"
import * as HostConfig from "../HostConfig.ts"
import * as Store from "../Store.ts"
import { forOperator } from "./OperatorMessage.ts"

// on a client alone: the store's layer would migrate as it opens, leaving nothing to report
export const migrate = Command.make("migrate", {}, () =>
  forOperator(
    Effect.gen(function* () {
      const settings = yield* HostConfig.settings
      const applied = yield* Effect.provide(PgStore.migrate, Store.clientLayer(settings))
      yield* Console.log(
        applied.length === 0
          ? `Schema up to date on ${HostConfig.describeStore(settings)}.`
          : `Applied ${applied.map(([id, name]) => `${id}_${name}`).join(", ")} on ${HostConfig.describeStore(settings)}.`
      )
    })
  )
).pipe(Command.withDescription("Apply pending database migrations (the server also does this when it starts)"))
