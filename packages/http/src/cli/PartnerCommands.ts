/**
 * `ratelock partner …`: a partner is created with its keys (and webhook URLs) in one step; its
 * refund addresses are set one environment and chain at a time, each checked by that chain's
 * gateway as a payout's destination is (a rail the deployment has no chain for is refused, in
 * words that name the setting: `Chains.enabledRails`). Each acts through the operator API when it
 * is configured (`OperatorCall.ts`), else on the database as an audited action.
 */
import { OperatorActions, type Partner, Partners, Rail } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { operatorCall, operatorCallOnChains } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag } from "./SharedFlags.ts"

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
  (input) => {
    const webhookUrls: Partial<Record<Partner.Environment, string>> = {
      ...Option.match(input.webhookUrlSandbox, { onNone: () => ({}), onSome: (sandbox) => ({ sandbox }) }),
      ...Option.match(input.webhookUrlProduction, { onNone: () => ({}), onSome: (production) => ({ production }) })
    }
    return operatorCall(OperatorActions.createPartner({ name: input.name, webhookUrls }), (api) =>
      api.partners.createPartner({ headers: {}, payload: { name: input.name, webhook_urls: webhookUrls } })
    ).pipe(Effect.flatMap((created) => print(input.json, created, Format.createdPartner)))
  }
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
  operatorCall(Partners.listPartners(), (api) => api.partners.partners()).pipe(
    Effect.flatMap((partners) => print(input.json, partners, Format.partnerList))
  )
).pipe(Command.withDescription("List partners with their API keys, webhook URLs and refund addresses"))

const refundAddressSet = Command.make(
  "set",
  {
    partnerId: Argument.String("partner-id").pipe(Argument.withDescription("The partner id")),
    environment: environmentFlag,
    chain: Flag.Literals("chain", Rail.Chain.literals).pipe(
      Flag.withDescription("The chain: solana, ethereum or polygon")
    ),
    address: Flag.String("address").pipe(
      Flag.withDescription("The address, as a payout's destination on that chain must be")
    ),
    json: jsonFlag
  },
  (input) =>
    operatorCallOnChains(
      OperatorActions.setRefundAddress(input.partnerId, input.environment, input.chain, input.address),
      (api) =>
        api.partners.setRefundAddress({
          params: { partner_id: input.partnerId, environment: input.environment, chain: input.chain },
          payload: { address: input.address }
        })
    ).pipe(Effect.flatMap((set) => print(input.json, set, Format.refundAddressSet)))
).pipe(
  Command.withDescription(
    "Set or replace where a partner's funds that are not a payout go back to, on one chain of an environment"
  ),
  Command.withExamples([
    {
      command:
        "ratelock partner refund-address set PARTNER_ID --environment production --chain polygon --address 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      description: "Checked as a polygon payout's destination is; stored lowercase"
    }
  ])
)

const refundAddress = Command.make("refund-address").pipe(
  Command.withDescription("A partner's refund address per environment and chain"),
  Command.withSubcommands([refundAddressSet])
)

export const partner = Command.make("partner").pipe(
  Command.withDescription("Create and list partners, and set their refund addresses"),
  Command.withSubcommands([partnerCreate, partnerList, refundAddress])
)
