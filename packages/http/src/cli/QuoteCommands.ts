/**
 * `ratelock quote …`: explaining a quote reprices it, so on the database it also needs the
 * deployment's quote policy; through the operator API (`OperatorCall.ts`) the server reprices it
 * under its own.
 */
import { QuoteExplain, QuotePolicy } from "@ratelock/core"
import { Effect } from "effect"
import { Argument, Command } from "effect/cli"
import * as HostConfig from "../HostConfig.ts"
import * as Format from "../internal/operatorFormat.ts"
import { operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"

const quoteExplain = Command.make(
  "explain",
  { quote: Argument.String("quote_id").pipe(Argument.withDescription("The quote's id")), json: jsonFlag },
  (input) =>
    operatorCall(
      Effect.flatMap(HostConfig.settings, (settings) =>
        // repriced under the policy this deployment prices with (its margin, forward fee, deposits)
        Effect.map(QuoteExplain.explain(input.quote), QuoteExplain.encode).pipe(
          Effect.provideService(QuotePolicy.QuotePolicy, HostConfig.quotePolicy(settings))
        )
      ),
      (api) => api.desk.explainQuote({ params: { quote_id: input.quote } })
    ).pipe(Effect.flatMap((explained) => print(input.json, explained, Format.explainedQuote)))
).pipe(
  Command.withDescription("What priced a quote (its snapshot and model inputs) and whether they reproduce its premium")
)

export const quote = Command.make("quote").pipe(
  Command.withDescription("Quotes as the operator sees them"),
  Command.withSubcommands([quoteExplain])
)
