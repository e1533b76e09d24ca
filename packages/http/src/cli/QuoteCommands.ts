/**
 * `ratelock quote …`: explaining a quote reprices it, so unlike `onStore`'s commands it also needs
 * the deployment's quote policy.
 */
import { QuoteExplain, QuotePolicy } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { Argument, Command } from "effect/cli"
import * as HostConfig from "../HostConfig.ts"
import * as Format from "../internal/operatorFormat.ts"
import * as Services from "../Services.ts"
import * as Store from "../Store.ts"
import { forOperator } from "./OperatorMessage.ts"
import { jsonFlag, print } from "./Output.ts"

const quoteExplain = Command.make(
  "explain",
  { quote: Argument.String("quote_id").pipe(Argument.withDescription("The quote's id")), json: jsonFlag },
  (input) =>
    forOperator(
      Effect.flatMap(HostConfig.settings, (settings) =>
        // repriced under the policy this deployment prices with (its margin, forward fee, deposits)
        Effect.flatMap(QuoteExplain.explain(input.quote), (explained) =>
          print(input.json, explained, Format.explainedQuote)
        ).pipe(
          Effect.provideService(QuotePolicy.QuotePolicy, HostConfig.quotePolicy(settings)),
          Effect.provide(Layer.merge(Store.layer(settings), Services.layer))
        )
      )
    )
).pipe(
  Command.withDescription("What priced a quote (its snapshot and model inputs) and whether they reproduce its premium")
)

export const quote = Command.make("quote").pipe(
  Command.withDescription("Quotes as the operator sees them"),
  Command.withSubcommands([quoteExplain])
)
