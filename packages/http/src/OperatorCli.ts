/**
 * The operator CLI (`pnpm ratelock <command>`): migrations, partners, API keys and webhook URLs,
 * on the same database the server uses (`DATABASE_URL`, else the embedded one in
 * `RATELOCK_DATA_DIR`, which must not be open in a running server).
 */
import { MarketSnapshots, Partners, QuoteExplain, QuotePolicy } from "@ratelock/core"
import { PgStore } from "@ratelock/adapters-store"
import type { StoreError } from "@ratelock/core"
import { Console, Effect, Layer, Option, References } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import { readFile } from "node:fs/promises"
import { text as readAll } from "node:stream/consumers"
import * as HostConfig from "./HostConfig.ts"
import * as Host from "./Host.ts"
import * as Format from "./internal/operatorFormat.ts"
import * as Services from "./Services.ts"
import * as Store from "./Store.ts"
import * as UnmatchedFunds from "./UnmatchedFunds.ts"
import { version } from "./Version.ts"

/** This release (`--version`). */
export { version }

/** Anything a command can fail with, as one message for the operator (no stack, no SQL). */
const userMessage = (error: unknown): string => {
  const tagged = error as { readonly _tag?: string; readonly message?: string }
  switch (tagged._tag) {
    case "ConfigError":
      return `Invalid configuration: ${String(error)}`
    case "SqlError":
    case "StoreError":
    case "MigrationError":
      return `Database error: ${tagged.message ?? String(error)}`
    default:
      return tagged.message ?? String(error)
  }
}

const forOperator = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.mapError((error) => new CliError.UserError({ cause: error, userMessage: userMessage(error) })))

/** Runs `program` on the configured store, which is closed (and its lock released) afterwards. */
const onStore = <A, E, R extends Layer.Success<ReturnType<typeof Store.layer>> | Layer.Success<typeof Services.layer>>(
  program: Effect.Effect<A, E | StoreError.StoreError, R>
) =>
  forOperator(
    Effect.flatMap(HostConfig.settings, (settings) =>
      Effect.provide(program, Layer.merge(Store.layer(settings), Services.layer))
    )
  )

const print = (json: boolean, value: unknown, text: (value: never) => string) =>
  Console.log(json ? JSON.stringify(value, null, 2) : text(value as never))

const jsonFlag = Flag.Boolean("json").pipe(Flag.withDescription("Print JSON instead of text"), Flag.withDefault(false))
const environmentFlag = Flag.Literals("environment", ["sandbox", "production"] as const).pipe(
  Flag.withDescription("The environment: sandbox or production")
)

const migrate = Command.make("migrate", {}, () =>
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

const partner = Command.make("partner").pipe(
  Command.withDescription("Create and list partners"),
  Command.withSubcommands([partnerCreate, partnerList])
)

const keyCreate = Command.make(
  "create",
  {
    partner: Flag.String("partner").pipe(Flag.withDescription("The partner id")),
    environment: environmentFlag,
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(Partners.createKey(input.partner, input.environment), (key) =>
        print(input.json, key, Format.issuedKey)
      )
    )
).pipe(Command.withDescription("Issue another API key (rotation: the old one stays live until revoked)"))

const keyRevoke = Command.make(
  "revoke",
  { key: Flag.String("key").pipe(Flag.withDescription("The API key id")), json: jsonFlag },
  (input) => onStore(Effect.flatMap(Partners.revokeKey(input.key), (r) => print(input.json, r, Format.revokedKey)))
).pipe(Command.withDescription("Revoke an API key at once"))

const key = Command.make("key").pipe(
  Command.withDescription("Issue and revoke API keys"),
  Command.withSubcommands([keyCreate, keyRevoke])
)

const webhookSet = Command.make(
  "set",
  {
    partner: Flag.String("partner").pipe(Flag.withDescription("The partner id")),
    environment: environmentFlag,
    url: Flag.String("url").pipe(Flag.withDescription("The webhook URL")),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(Partners.setWebhook(input.partner, input.environment, input.url), (w) =>
        print(input.json, w, Format.webhookSet)
      )
    )
).pipe(Command.withDescription("Set or replace a webhook URL, with a new signing secret (shown once)"))

const webhook = Command.make("webhook").pipe(
  Command.withDescription("Webhook URLs and secrets"),
  Command.withSubcommands([webhookSet])
)

const fundsUnmatched = Command.make(
  "unmatched",
  {
    contract: Flag.String("contract").pipe(Flag.withDescription("Only this contract's"), Flag.optional),
    limit: Flag.Int("limit").pipe(Flag.withDescription("At most this many (default 100)"), Flag.withDefault(100)),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(
        UnmatchedFunds.list({ contractId: Option.getOrUndefined(input.contract), limit: input.limit }),
        (transfers) => print(input.json, transfers, Format.unmatchedFunds)
      )
    )
).pipe(
  Command.withDescription(
    "Funds that did not fund a contract (after it stopped awaiting funds, or of another token), oldest first: to refund"
  )
)

const funds = Command.make("funds").pipe(
  Command.withDescription("Funds received on funding addresses"),
  Command.withSubcommands([fundsUnmatched])
)

/** A file's text, or standard input's for `-`. */
const readDocument = (path: string) =>
  Effect.tryPromise({
    try: () => (path === "-" ? readAll(process.stdin) : readFile(path, "utf8")),
    catch: (cause) => new CliError.UserError({ cause, userMessage: `Cannot read ${path}: ${String(cause)}` })
  })

const marketImport = Command.make(
  "import",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription("The snapshot document (JSON), or - for standard input")
    ),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.gen(function* () {
        const imported = yield* MarketSnapshots.importJson(yield* readDocument(input.file))
        yield* print(input.json, Format.importedSnapshotJson(imported), Format.importedSnapshot)
      }).pipe(
        Effect.catchTag("ValidationError", (refused) =>
          Effect.fail(new CliError.UserError({ cause: refused, userMessage: Format.refusedSnapshot(refused.detail) }))
        )
      )
    )
).pipe(Command.withDescription("Validate and store a market snapshot (nothing is stored when any rule fails)"))

const marketShow = Command.make("show", { json: jsonFlag }, (input) =>
  onStore(
    Effect.flatMap(MarketSnapshots.inForce(), (inForce) =>
      print(input.json, Format.marketJson(inForce), () => Format.market(inForce))
    )
  )
).pipe(Command.withDescription("The snapshot in force, its age, and per corridor spot, forwards and ATM vols"))

const market = Command.make("market").pipe(
  Command.withDescription("Market data: snapshots of curves, spots and volatility smiles"),
  Command.withSubcommands([marketImport, marketShow])
)

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

const quote = Command.make("quote").pipe(
  Command.withDescription("Quotes as the operator sees them"),
  Command.withSubcommands([quoteExplain])
)

const worker = Command.make("worker", {}, () =>
  forOperator(
    Effect.flatMap(HostConfig.settings, (settings) =>
      Effect.andThen(
        Console.log(`Running the lifecycle workers (${HostConfig.describeStore(settings)}); Ctrl-C stops them.`),
        Layer.launch(Host.workersOnly(settings))
      )
    )
  )
).pipe(Command.withDescription("Run the lifecycle workers alone (funding, payouts, expiry, webhook delivery)"))

export const command = Command.make("ratelock").pipe(
  Command.withDescription("Ratelock operator commands"),
  Command.withSubcommands([migrate, partner, key, webhook, funds, market, quote, worker])
)

/** The CLI on `process.argv`, quiet below warnings (its output is what it prints). */
export const run = Command.run(command, { version }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
