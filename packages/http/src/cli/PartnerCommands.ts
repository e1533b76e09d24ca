/** `ratelock partner …`: a partner is created with its keys (and webhook URLs) in one step. */
import { Partners } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { onStore } from "./OnStore.ts"
import { jsonFlag, print } from "./Output.ts"

const partnerCreate = Command.make(
  "create",
  {
    name: Flag.String("name").pipe(Flag.withDescription("The partner's name")),
    webhookUrlSandbox: Flag.String("webhook-url-sandbox").pipe(
      Flag.withDescription("Sandbox webhook URL (http or https; loopback allowed)"),
      Flag.optional
    ),
    webhookUrlProduction: Flag.String("webhook-url-production").pipe(
      Flag.withDescription("Production webhook URL (https, public address)"),
      Flag.optional
    ),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(
        Partners.createPartner({
          name: input.name,
          webhookUrls: {
            ...Option.match(input.webhookUrlSandbox, { onNone: () => ({}), onSome: (sandbox) => ({ sandbox }) }),
            ...Option.match(input.webhookUrlProduction, {
              onNone: () => ({}),
              onSome: (production) => ({ production })
            })
          }
        }),
        (created) => print(input.json, created, Format.createdPartner)
      )
    )
).pipe(
  Command.withDescription("Create a partner with an API key per environment; secrets are shown once"),
  Command.withExamples([
    { command: 'ratelock partner create --name "Acme Pay"', description: "Keys for sandbox and production" },
    {
      command: 'ratelock partner create --name "Acme Pay" --webhook-url-sandbox http://localhost:9000/hooks --json',
      description: "With a sandbox webhook URL, as JSON"
    }
  ])
)

const partnerList = Command.make("list", { json: jsonFlag }, (input) =>
  onStore(Effect.flatMap(Partners.listPartners(), (partners) => print(input.json, partners, Format.partnerList)))
).pipe(Command.withDescription("List partners with their API keys and webhook URLs"))

export const partner = Command.make("partner").pipe(
  Command.withDescription("Create and list partners"),
  Command.withSubcommands([partnerCreate, partnerList])
)
