/**
 * The operator CLI (`pnpm ratelock <command>`): migrations, partners, API keys and webhook URLs,
 * on the same database the server uses (`DATABASE_URL`, else the embedded one in
 * `RATELOCK_DATA_DIR`, which must not be open in a running server).
 */
import {
  Corridor,
  CorridorLimits,
  HedgeDesk,
  HedgeOrder,
  HedgePolicy,
  MarketSnapshots,
  Money,
  OperatorTokens,
  Partners,
  QuoteExplain,
  QuotePolicy,
  Revaluation,
  RiskDesk,
  RiskDeskReport,
  RiskScenario,
  RiskScenarioRepo,
  UnmatchedFunds
} from "@ratelock/core"
import { PgStore, SimulatedHedgeVenue } from "@ratelock/adapters-store"
import type { StoreError } from "@ratelock/core"
import { Console, Effect, Layer, Option, References, Result } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import { readFile } from "node:fs/promises"
import { text as readAll } from "node:stream/consumers"
import * as HostConfig from "./HostConfig.ts"
import * as Host from "./Host.ts"
import * as HedgeFormat from "./internal/hedgeFormat.ts"
import * as Format from "./internal/operatorFormat.ts"
import * as RiskFormat from "./internal/riskFormat.ts"
import * as Services from "./Services.ts"
import * as Store from "./Store.ts"
import { version } from "./Version.ts"

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

/** A limit flag: absent (kept), `none` (back to its default), or a decimal of 0 or more. */
const limitFlag = (name: string, what: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(`${what}, in the corridor's BASE units; "none" puts it back to its default`),
    Flag.optional
  )

const limitValue = (name: string, value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) => {
      if (text === "none") return Effect.succeed(null)
      return Option.match(Money.parse(text), {
        onNone: () =>
          Effect.fail(
            new CliError.UserError({
              cause: text,
              userMessage: `--${name} must be a decimal such as 1000000 or 2500.50, or none: not ${text}`
            })
          ),
        onSome: (decimal) => Effect.succeed(decimal)
      })
    }
  })

const limitsSet = Command.make(
  "set",
  {
    environment: environmentFlag,
    corridor: Flag.Literals("corridor", Corridor.directions).pipe(
      Flag.withDescription("The corridor (direction), e.g. USD_TO_BRL")
    ),
    maxLockNotional: limitFlag("max-lock-notional", "The largest single lock"),
    maxOpenNotional: limitFlag("max-open-notional", "The most the corridor's open and committed locks may hold"),
    maxNetDelta: limitFlag("max-net-delta", "The largest absolute delta (held as its bound, the open notional)"),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const change = {
        maxLockNotional: yield* limitValue("max-lock-notional", input.maxLockNotional),
        maxOpenNotional: yield* limitValue("max-open-notional", input.maxOpenNotional),
        maxNetDelta: yield* limitValue("max-net-delta", input.maxNetDelta)
      }
      yield* onStore(
        Effect.flatMap(CorridorLimits.set(input.environment, input.corridor, change), (set) =>
          print(input.json, set, Format.corridorLimitSet)
        )
      )
    })
).pipe(
  Command.withDescription("Set a corridor's limits in one environment (the others stay as they are)"),
  Command.withExamples([
    {
      command: "ratelock limits set --environment production --corridor USD_TO_BRL --max-open-notional 20000000",
      description: "Sell at most 20,000,000 USD of open USD_TO_BRL locks in production"
    },
    {
      command: "ratelock limits set --environment production --corridor USD_TO_BRL --max-lock-notional none",
      description: "Back to the default largest lock"
    }
  ])
)

const limitsShow = Command.make(
  "show",
  {
    environment: environmentFlag.pipe(Flag.optional),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(CorridorLimits.show({ environment: Option.getOrUndefined(input.environment) }), (shown) =>
        print(input.json, shown, Format.corridorLimits)
      )
    )
).pipe(Command.withDescription("Every corridor's limits, with their defaults, its open notional and headroom"))

const limits = Command.make("limits").pipe(
  Command.withDescription("Corridor limits: the largest lock, open notional and net delta per environment"),
  Command.withSubcommands([limitsSet, limitsShow])
)

/** A decimal flag's text as a decimal, or the operator's error naming the flag. */
const decimalOf = (flag: string, text: string) =>
  Option.match(Money.parse(text.trim()), {
    onNone: () =>
      Effect.fail(
        new CliError.UserError({ cause: text, userMessage: `--${flag} must be a decimal such as 50000 (got ${text})` })
      ),
    onSome: Effect.succeed
  })

const hedgePolicySet = Command.make(
  "set",
  {
    environment: environmentFlag,
    pair: Flag.String("pair").pipe(Flag.withDescription("The market pair in its usual order, e.g. USD/BRL")),
    targetRatio: Flag.String("target-ratio").pipe(
      Flag.withDescription("The share of the delta to hedge, 0 to 1 (default 1)"),
      Flag.optional
    ),
    band: Flag.String("band").pipe(
      Flag.withDescription("BASE units the position may stray from its target before an order is placed")
    ),
    instrument: Flag.Literals("instrument", ["spot", "forward"] as const).pipe(
      Flag.withDescription("spot (value in two business days) or forward (value in --value-days)")
    ),
    valueDays: Flag.Int("value-days").pipe(Flag.withDescription("A forward's calendar days to value"), Flag.optional),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const band = yield* decimalOf("band", input.band)
      const targetRatio = Option.isSome(input.targetRatio)
        ? yield* decimalOf("target-ratio", input.targetRatio.value)
        : undefined
      return yield* onStore(
        Effect.flatMap(
          HedgeDesk.setPolicy({
            environment: input.environment,
            pair: input.pair,
            targetRatio,
            band,
            instrument: input.instrument,
            valueDays: Option.getOrUndefined(input.valueDays)
          }),
          (policy) => print(input.json, HedgePolicy.view(policy), () => HedgeFormat.policySet(policy))
        )
      )
    })
).pipe(
  Command.withDescription("Create or replace the hedge policy of a market pair in an environment"),
  Command.withExamples([
    {
      command:
        "ratelock hedge policy set --environment production --pair USD/BRL --target-ratio 1 --band 50000 --instrument spot",
      description: "Keep USD/BRL's position within 50,000 USD of the whole delta, with spot orders"
    }
  ])
)

const hedgePolicyShow = Command.make(
  "show",
  {
    environment: environmentFlag.pipe(Flag.optional),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(HedgeDesk.policies(Option.getOrUndefined(input.environment)), (list) =>
        print(input.json, HedgeFormat.policiesJson(list), () => HedgeFormat.policies(list))
      )
    )
).pipe(Command.withDescription("The hedge policies, with each pair's position and the order it waits on"))

const hedgePolicy = Command.make("policy").pipe(
  Command.withDescription("How each market pair is hedged"),
  Command.withSubcommands([hedgePolicySet, hedgePolicyShow])
)

const hedgeOrders = Command.make(
  "orders",
  {
    environment: environmentFlag.pipe(Flag.optional),
    status: Flag.Literals("status", ["pending", "intended", "sent", "filled", "rejected"] as const).pipe(
      Flag.withDescription("Only these: pending is every order waiting for an outcome (intended or sent)"),
      Flag.optional
    ),
    limit: Flag.Int("limit").pipe(Flag.withDescription("At most this many (default 100)"), Flag.withDefault(100)),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(
        HedgeDesk.orders({
          environment: Option.getOrUndefined(input.environment),
          status: Option.getOrUndefined(input.status),
          limit: input.limit
        }),
        (list) => print(input.json, HedgeFormat.ordersJson(list), () => HedgeFormat.orders(list))
      )
    )
).pipe(Command.withDescription("Hedge orders, newest first"))

const orderArgument = Argument.String("order_id").pipe(Argument.withDescription("The hedge order's id"))

const overrideVenueFlag = Flag.Boolean("override-venue").pipe(
  Flag.withDescription(
    "The order went to another venue than manual (left there when the host changed venue): record the outcome confirmed at that venue"
  ),
  Flag.withDefault(false)
)

const hedgeFill = Command.make(
  "fill",
  {
    order: orderArgument,
    rate: Flag.String("rate").pipe(Flag.withDescription("The rate filled at, QUOTE per BASE")),
    amount: Flag.String("amount").pipe(
      Flag.withDescription("BASE units filled, at most the order's (default: all of it)"),
      Flag.optional
    ),
    overrideVenue: overrideVenueFlag,
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const rate = yield* decimalOf("rate", input.rate)
      const amount = Option.isSome(input.amount) ? yield* decimalOf("amount", input.amount.value) : undefined
      return yield* onStore(
        Effect.flatMap(HedgeDesk.fill(input.order, rate, amount, { overrideVenue: input.overrideVenue }), (order) =>
          print(input.json, HedgeOrder.view(order), () => HedgeFormat.filled(order))
        )
      )
    })
).pipe(Command.withDescription("Record a trader's fill of a manual hedge order (the rest is decided anew)"))

const hedgeReject = Command.make(
  "reject",
  {
    order: orderArgument,
    reason: Flag.String("reason").pipe(Flag.withDescription("Why the order was not executed")),
    overrideVenue: overrideVenueFlag,
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(HedgeDesk.reject(input.order, input.reason, { overrideVenue: input.overrideVenue }), (order) =>
        print(input.json, HedgeOrder.view(order), () => HedgeFormat.rejected(order))
      )
    )
).pipe(Command.withDescription("Record that a manual hedge order was not executed; the next pass decides anew"))

const hedgeSimulate = Command.make(
  "simulate",
  {
    rejectNext: Flag.Boolean("reject-next").pipe(
      Flag.withDescription("The simulated venue rejects the next new order"),
      Flag.withDefault(false)
    ),
    timeoutNext: Flag.Boolean("timeout-next").pipe(
      Flag.withDescription("The simulated venue fills the next new order but answers with a timeout"),
      Flag.withDefault(false)
    ),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      if (input.rejectNext === input.timeoutNext) {
        return yield* new CliError.UserError({
          cause: input,
          userMessage: "Give exactly one of --reject-next and --timeout-next"
        })
      }
      const action = input.rejectNext ? "reject" : "timeout"
      const settings = yield* forOperator(HostConfig.settings)
      yield* onStore(
        SimulatedHedgeVenue.SimulatedHedgeVenue.use((venue) => venue.arm(action)).pipe(
          Effect.provide(SimulatedHedgeVenue.layerSqlControl)
        )
      )
      const armed = { armed: action, hedging: settings.hedging }
      yield* print(input.json, armed, () => HedgeFormat.armed(armed))
    })
).pipe(Command.withDescription("Tell the simulated hedge venue to reject, or to time out, the next new order"))

const hedge = Command.make("hedge").pipe(
  Command.withDescription("Hedging the book: policies per market pair, orders, the manual desk, the simulated venue"),
  Command.withSubcommands([hedgePolicy, hedgeOrders, hedgeFill, hedgeReject, hedgeSimulate])
)

const riskReport = Command.make(
  "report",
  {
    environment: environmentFlag.pipe(Flag.withDefault("production" as const)),
    fresh: Flag.Boolean("fresh").pipe(
      Flag.withDescription("Revalue the book now instead of reading the workers' latest revaluation"),
      Flag.withDefault(false)
    ),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(RiskDesk.report(input.environment, { fresh: input.fresh }), (report) =>
        print(input.json, RiskDeskReport.encode(report), () => RiskFormat.report(report))
      )
    )
).pipe(
  Command.withDescription(
    "The book of an environment (production unless named): per pair mtm, greeks and hedge, exposure, stress, payouts due, limits"
  )
)

const scenarioSet = Command.make(
  "set",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription("A scenario (JSON object) or an array of them, or - for standard input")
    ),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.gen(function* () {
        const validated = RiskScenario.validateJson(yield* readDocument(input.file))
        if (Result.isFailure(validated)) {
          return yield* new CliError.UserError({
            cause: validated.failure,
            userMessage: Format.refusedSnapshot(validated.failure, "Scenarios")
          })
        }
        const stored = yield* RiskDesk.setScenarios(validated.success)
        yield* print(
          input.json,
          { stored: stored.map((s) => s.name) },
          () =>
            `Stored ${stored.length} scenario${stored.length === 1 ? "" : "s"}: ${stored.map((s) => s.name).join(", ")}`
        )
      })
    )
).pipe(
  Command.withDescription("Store operator stress scenarios beside the defaults (one named like a default replaces it)")
)

const scenarioList = Command.make("list", { json: jsonFlag }, (input) =>
  onStore(
    Effect.gen(function* () {
      const all = yield* Revaluation.scenarios()
      const operator = new Set((yield* (yield* RiskScenarioRepo.RiskScenarioRepo).list()).map((s) => s.scenario.name))
      yield* print(
        input.json,
        all.map((s) => ({ ...RiskScenario.encode(s), source: operator.has(s.name) ? "operator" : "default" })),
        () => RiskFormat.scenarios(all, operator)
      )
    })
  )
).pipe(Command.withDescription("Every stress scenario the report runs: the defaults and the operator's"))

const risk = Command.make("risk").pipe(
  Command.withDescription("The book: revaluation, greeks, stress and limits (risk.md)"),
  Command.withSubcommands([
    riskReport,
    Command.make("scenario").pipe(
      Command.withDescription("Stress scenarios"),
      Command.withSubcommands([scenarioSet, scenarioList])
    )
  ])
)

const tokenCreate = Command.make(
  "create",
  {
    name: Flag.String("name").pipe(Flag.withDescription("What the token is for (prometheus, alice, ...)")),
    json: jsonFlag
  },
  (input) =>
    onStore(Effect.flatMap(OperatorTokens.create(input.name), (t) => print(input.json, t, Format.createdToken)))
).pipe(
  Command.withDescription("Create an operator API token (Authorization: Bearer); it is shown once"),
  Command.withExamples([
    { command: "ratelock operator token create --name prometheus", description: "A token for the scraper" }
  ])
)

const tokenList = Command.make("list", { json: jsonFlag }, (input) =>
  onStore(Effect.flatMap(OperatorTokens.list(), (tokens) => print(input.json, tokens, Format.tokenList)))
).pipe(Command.withDescription("List operator tokens (live or revoked); never their secrets"))

const tokenRevoke = Command.make(
  "revoke",
  {
    token: Argument.String("token_id").pipe(Argument.withDescription("The token's id (from token list)")),
    json: jsonFlag
  },
  (input) =>
    onStore(Effect.flatMap(OperatorTokens.revoke(input.token), (r) => print(input.json, r, Format.revokedToken)))
).pipe(Command.withDescription("Revoke an operator token: refused by the operator API from its next request"))

const operatorToken = Command.make("token").pipe(
  Command.withDescription("Tokens of the operator API (/metrics, /operator/...)"),
  Command.withSubcommands([tokenCreate, tokenList, tokenRevoke])
)

const operator = Command.make("operator").pipe(
  Command.withDescription("The operator API's access"),
  Command.withSubcommands([operatorToken])
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
  Command.withSubcommands([migrate, partner, key, webhook, funds, market, quote, limits, risk, hedge, operator, worker])
)

/** The CLI on `process.argv`, quiet below warnings (its output is what it prints). */
export const run = Command.run(command, { version }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
