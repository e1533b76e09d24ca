/**
 * `ratelock partner …`: a partner is created with its keys (and webhook URLs) in one step; its
 * refund addresses are set one environment and chain at a time, each checked by that chain's
 * gateway as a payout's destination is.
 */
import { type Partner, Partners, Rail } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as HostConfig from "../HostConfig.ts"
import * as Format from "../internal/operatorFormat.ts"
import { onChains, onStore } from "./OnStore.ts"
import { forOperator } from "./OperatorMessage.ts"
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
).pipe(Command.withDescription("List partners with their API keys, webhook URLs and refund addresses"))

type RailSettings = Pick<HostConfig.Settings, "productionChains" | "sandbox">

/** Why the rail has no gateway in this deployment, naming the setting that would give it one. */
const notEnabled = (settings: RailSettings, environment: Partner.Environment, chain: Rail.Chain): string => {
  if (environment === "sandbox") {
    return "the sandbox is off (RATELOCK_SANDBOX=false): no sandbox chain can check a sandbox refund address"
  }
  const now = settings.productionChains.length === 0 ? "empty" : `"${settings.productionChains.join(",")}"`
  return (
    `${chain} is not enabled for production (RATELOCK_PRODUCTION_CHAINS is ${now}): add ${chain} to ` +
    "RATELOCK_PRODUCTION_CHAINS, with its RPC and tokens, to set a production refund address on it"
  )
}

/**
 * Whether the deployment has a gateway for the rail: the routed gateway's `unsupported_rail`,
 * answered before the chains are started. It must be asked first: without production chains the
 * one gateway is the simulated chain, whose form check is not a production chain's payout rule.
 */
const railEnabled = (settings: RailSettings, environment: Partner.Environment, chain: Rail.Chain): boolean =>
  environment === "sandbox" ? settings.sandbox : settings.productionChains.includes(chain)

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
    Effect.flatMap(forOperator(HostConfig.settings), (settings) => {
      const refused = () =>
        new Partners.OperatorError({
          reason: "chain_not_enabled",
          message: notEnabled(settings, input.environment, input.chain)
        })
      return railEnabled(settings, input.environment, input.chain)
        ? onChains(
            Partners.setRefundAddress(input.partnerId, input.environment, input.chain, input.address).pipe(
              // the router's own refusal, worded as the check above words it
              Effect.mapError((e) => (e._tag === "OperatorError" && e.reason === "chain_not_enabled" ? refused() : e)),
              Effect.flatMap((set) => print(input.json, set, Format.refundAddressSet))
            )
          )
        : forOperator(Effect.fail(refused()))
    })
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
