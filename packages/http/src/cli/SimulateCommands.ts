/**
 * `ratelock simulate …` (issue 30): what one lock is likely to pay (`lock`, core's `LockSimulation.monteCarlo`) and
 * what locks bought along a history would have paid (`backtest`, `LockSimulation.backtest`), from a snapshot file
 * and, for a backtest, a `date,rate` CSV: both read files and compute, with no service and no database.
 *
 * A stored quote (`lock --quote-id`) is the one thing read from elsewhere: from the operator API when it is
 * configured, else from the database (`OperatorCall.ts`), as every operator command reads. Without it, nothing but
 * the files.
 */
import { CorridorMarket, LockSimulation, MarketSnapshot, Money, QuoteRequest, StoredQuote } from "@ratelock/core"
import { Clock, Console, DateTime, Effect, Option, Result, Schema } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import { readFile, writeFile } from "node:fs/promises"
import type * as Charts from "../internal/simulateCharts.ts"
import * as Format from "../internal/simulateFormat.ts"
import { operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"

const refused = (userMessage: string) => Effect.fail(new CliError.UserError({ cause: userMessage, userMessage }))

const readText = (path: string, what: string) =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (cause) =>
      new CliError.UserError({ cause, userMessage: `Cannot read the ${what} ${path}: ${String(cause)}` })
  })

/** The snapshot file, validated as an import validates it (every rule it breaks printed). */
const readSnapshot = (path: string) =>
  Effect.gen(function* () {
    const text = yield* readText(path, "snapshot")
    const now = yield* Clock.currentTimeMillis
    const validated = MarketSnapshot.validateJson(text, { now })
    if (Result.isFailure(validated)) {
      const issues = validated.failure.map((i) => `  ${i.loc.length === 0 ? "(document)" : i.loc.join(".")}: ${i.msg}`)
      return yield* refused([`The snapshot ${path} is refused:`, ...issues].join("\n"))
    }
    return validated.success
  })

/** A flag the command can do without: its name and help. */
const optionalString = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.optional)

const svgFlag = (what: string) => optionalString("svg", `Also write ${what} as an SVG chart to this file`)

/**
 * The chart written to `--svg`'s file, said on the text output (not on --json or --csv, which stay parseable). The
 * charting library and its DOM load only then: every other command of the CLI starts without them (about 0.2 s).
 */
const writeChart = (path: Option.Option<string>, svg: (charts: typeof Charts) => string, quiet: boolean) =>
  Option.match(path, {
    onNone: () => Effect.void,
    onSome: (file) =>
      Effect.tryPromise({
        try: async () => writeFile(file, svg(await import("../internal/simulateCharts.ts"))),
        catch: (cause) => new CliError.UserError({ cause, userMessage: `Cannot write ${file}: ${String(cause)}` })
      }).pipe(Effect.andThen(quiet ? Effect.void : Console.log(`\nChart written to ${file}`)))
  })

const engineRefused = (error: LockSimulation.SimulationRefused | LockSimulation.SeriesError) =>
  refused(
    error._tag === "SimulationRefused"
      ? `Refused (${error.code}): ${error.message}`
      : error.reason === "bad_template"
        ? `Refused: ${error.message}`
        : `Bad series: ${error.message}`
  )

/** An ISO instant given to `--flag`. */
const instant = (flag: string, text: string): Effect.Effect<DateTime.Utc, CliError.UserError> =>
  Option.match(DateTime.make(text), {
    onNone: () => refused(`--${flag} is an ISO instant such as 2026-12-01T12:00:00Z, not "${text}"`),
    onSome: (d) => Effect.succeed(DateTime.toUtc(d))
  })

const decimal = (flag: string, text: string) =>
  Option.match(Money.parse(text), {
    onNone: () => refused(`--${flag} is a decimal number, not "${text}"`),
    onSome: (d) => (Money.isPositive(d) ? Effect.succeed(d) : refused(`--${flag} must be positive, got ${text}`))
  })

const settlementCurrency = Flag.Literals(
  "settlement-currency",
  QuoteRequest.QuoteRequest.fields.settlement_currency.literals
).pipe(Flag.withDescription("The token payouts are paid in (default USDC)"))

/** The flags both commands take: the snapshot and the lock's terms. */
const lockTerms = {
  snapshot: Flag.String("snapshot").pipe(
    Flag.withDescription("The market snapshot (JSON), as `market import` takes it")
  ),
  direction: Flag.Literals("direction", QuoteRequest.QuoteRequest.fields.direction.literals).pipe(
    Flag.withDescription("The corridor, such as USD_TO_BRL")
  ),
  notional: Flag.String("notional").pipe(Flag.withDescription("The notional amount, a decimal")),
  notionalCurrency: Flag.Literals(
    "notional-currency",
    QuoteRequest.QuoteRequest.fields.notional_currency.literals
  ).pipe(Flag.withDescription("The notional's currency, one side of the direction")),
  contractType: Flag.Literals("contract-type", QuoteRequest.ContractType.literals).pipe(
    Flag.withDescription("option or forward")
  ),
  settlementCurrency: settlementCurrency.pipe(Flag.withDefault("USDC" as const))
}

const exerciseOf = (text: string): Effect.Effect<LockSimulation.Exercise, CliError.UserError> => {
  if (text === "best" || text === "end" || text === "uniform") return Effect.succeed({ _tag: text })
  if (text.startsWith("at:")) {
    const at = DateTime.make(text.slice(3))
    if (Option.isSome(at)) return Effect.succeed({ _tag: "at", at: DateTime.toUtc(at.value) })
  }
  return refused(`--exercise is best, end, uniform or at:<ISO instant>, not "${text}"`)
}

/** A lock's terms as flags, each optional: `--quote-id` brings them instead. */
const termFlags = {
  direction: lockTerms.direction.pipe(Flag.optional),
  notional: lockTerms.notional.pipe(Flag.optional),
  notionalCurrency: lockTerms.notionalCurrency.pipe(Flag.optional),
  contractType: lockTerms.contractType.pipe(Flag.optional),
  settlementCurrency: settlementCurrency.pipe(Flag.optional),
  windowStart: optionalString("window-start", "The window's start, an ISO instant (default: now)"),
  windowEnd: optionalString("window-end", "The window's end, an ISO instant (or --tenor-days)"),
  tenorDays: Flag.Int("tenor-days").pipe(
    Flag.withDescription("The window's end this many days after its start (or --window-end)"),
    Flag.optional
  ),
  marketRate: optionalString(
    "market-rate",
    "The live rate the paths start from (default: the snapshot's spot for the direction)"
  ),
  strikeMode: Flag.Literals("strike-mode", QuoteRequest.StrikeMode.literals).pipe(
    Flag.withDescription("How the locked rate is set, as in a quote request (default cip_fair)"),
    Flag.optional
  ),
  targetStrike: optionalString("target-strike", "The locked rate asked, with --strike-mode custom")
}
type Terms = Command.Command.Config.Infer<typeof termFlags>

/** The term flags given, as typed (`--notional-currency` for `notionalCurrency`). */
const givenTerms = (terms: Terms): Array<string> =>
  Object.entries(terms).flatMap(([key, value]: [string, Option.Option<unknown>]) =>
    Option.isSome(value) ? [`--${key.replace(/[A-Z]/gu, (c) => `-${c.toLowerCase()}`)}`] : []
  )

/** A flag the command needs unless `--quote-id` is given. */
const needed = <A>(flag: string, value: Option.Option<A>) =>
  Option.match(value, {
    onNone: () => refused(`--${flag} is needed (or --quote-id, to simulate a stored quote)`),
    onSome: Effect.succeed
  })

const decodeStoredQuote = Schema.decodeUnknownEffect(StoredQuote.View)

/** The stored quote's view (through the operator API when configured, else the database) as a lock to simulate. */
const storedLock = (quoteId: string) =>
  operatorCall(StoredQuote.read(quoteId), (api) => api.desk.quote({ params: { quote_id: quoteId } })).pipe(
    Effect.flatMap((json) => decodeStoredQuote(json)),
    Effect.mapError((error) =>
      error instanceof CliError.UserError ? error : new CliError.UserError({ cause: error, userMessage: String(error) })
    ),
    Effect.map(StoredQuote.lock)
  )

/** The lock's terms as flags, with `lock`'s defaults: a quote request priced as the API would price it. */
const requestOf = (input: Terms, snapshot: MarketSnapshot.MarketSnapshot, now: DateTime.Utc) =>
  Effect.gen(function* () {
    const direction = yield* needed("direction", input.direction)
    const notional = yield* decimal("notional", yield* needed("notional", input.notional))
    const notionalCurrency = yield* needed("notional-currency", input.notionalCurrency)
    const contractType = yield* needed("contract-type", input.contractType)
    const windowStart = Option.isSome(input.windowStart) ? yield* instant("window-start", input.windowStart.value) : now
    let windowEnd: DateTime.Utc
    if (Option.isSome(input.windowEnd) && Option.isSome(input.tenorDays)) {
      return yield* refused("--window-end and --tenor-days: one or the other")
    } else if (Option.isSome(input.windowEnd)) {
      windowEnd = yield* instant("window-end", input.windowEnd.value)
    } else if (Option.isSome(input.tenorDays)) {
      if (!(input.tenorDays.value > 0)) return yield* refused("--tenor-days must be a positive whole number")
      windowEnd = DateTime.add(windowStart, { days: input.tenorDays.value })
    } else {
      return yield* refused("the window's end: --window-end or --tenor-days")
    }
    const market = CorridorMarket.make(snapshot, direction)
    if (Option.isNone(market)) return yield* refused(`The snapshot does not price ${direction}`)
    const marketRate = Option.isSome(input.marketRate)
      ? yield* decimal("market-rate", input.marketRate.value)
      : Money.roundDown(market.value.referenceRate, 8)
    const targetStrike = Option.isSome(input.targetStrike)
      ? yield* decimal("target-strike", input.targetStrike.value)
      : null
    return {
      customer_reference_id: "simulation",
      customer_name: "simulation",
      contract_type: contractType,
      direction,
      notional_currency: notionalCurrency,
      notional_amount: notional,
      provider_rate: marketRate,
      market_rate: marketRate,
      market_rate_timestamp: now,
      ...(Option.isSome(input.strikeMode) ? { strike_mode: input.strikeMode.value } : {}),
      ...(targetStrike === null ? {} : { target_strike: targetStrike }),
      window_start: windowStart,
      window_end: windowEnd,
      // every settlement token is issued on ethereum (EURC is not on polygon): the rail never refuses a simulation
      chain: "ethereum",
      settlement_currency: Option.getOrElse(input.settlementCurrency, () => "USDC" as const)
    } satisfies QuoteRequest.QuoteRequest
  })

const simulateLock = Command.make(
  "lock",
  {
    snapshot: lockTerms.snapshot,
    quoteId: optionalString(
      "quote-id",
      "A stored quote to simulate with its own terms, locked rate, premium and deposit (read through the operator API when RATELOCK_OPERATOR_URL is set, else from the database); instead of the terms' flags"
    ),
    terms: termFlags,
    paths: Flag.Int("paths").pipe(
      Flag.withDescription("Paths to simulate (antithetic pairs)"),
      Flag.withDefault(10_000)
    ),
    seed: Flag.Int("seed").pipe(
      Flag.withDescription("The random seed: the same seed, the same figures"),
      Flag.withDefault(1)
    ),
    exercise: Flag.String("exercise").pipe(
      Flag.withDescription(
        "When the customer transacts: best (hindsight best moment, the service's worst case), end (window end), uniform (a random moment) or at:<ISO instant>"
      ),
      Flag.withDefault("end")
    ),
    now: optionalString("now", "The simulation's present (default: the clock)"),
    svg: svgFlag("the payout distribution"),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const snapshot = yield* readSnapshot(input.snapshot)
      const now = Option.isSome(input.now) ? yield* instant("now", input.now.value) : yield* DateTime.now
      const exercise = yield* exerciseOf(input.exercise)
      const given = givenTerms(input.terms)
      if (Option.isSome(input.quoteId) && given.length > 0) {
        return yield* refused(`--quote-id simulates the quote's own terms: drop ${given.join(", ")}`)
      }
      const lock = Option.isSome(input.quoteId)
        ? { quote: yield* storedLock(input.quoteId.value) }
        : { request: yield* requestOf(input.terms, snapshot, now) }
      const run = LockSimulation.monteCarlo({ ...lock, snapshot, now, paths: input.paths, seed: input.seed, exercise })
      if (Result.isFailure(run)) return yield* engineRefused(run.failure)
      yield* print(input.json, Format.monteCarloJson(run.success.result), Format.monteCarlo)
      yield* writeChart(input.svg, (charts) => charts.payoutDistribution(run.success), input.json)
    })
).pipe(
  Command.withDescription(
    "Monte Carlo of one lock on a snapshot file: the premium, the chance and size of a payout, its percentiles, the payout over the premium. The lock's terms as flags need no service and no database; a stored quote (--quote-id) is read through the operator API or from the database"
  ),
  Command.withExamples([
    {
      command:
        "ratelock simulate lock --snapshot docs/market/example-snapshot.json --direction USD_TO_BRL --notional 10000 --notional-currency USD --contract-type option --tenor-days 30 --paths 20000 --seed 7 --exercise uniform",
      description: "A 30-day USD→BRL option, a need-driven customer"
    },
    {
      command:
        "ratelock simulate lock --snapshot snapshot.json --quote-id 6f1c2a4e-0b7d-4c55-9a31-2d8e5f7a9b10 --exercise best",
      description: "A stored quote, its customer transacting at the window's best moment"
    }
  ])
)

const simulateBacktest = Command.make(
  "backtest",
  {
    series: Flag.String("series").pipe(Flag.withDescription("The spot history: a date,rate CSV, daily")),
    ...lockTerms,
    tenorDays: Flag.Int("tenor-days").pipe(Flag.withDescription("Each lock's window, in days from its start")),
    everyDays: Flag.Int("every-days").pipe(Flag.withDescription("A new lock every N days"), Flag.withDefault(1)),
    strikeMode: Flag.Literals("strike-mode", LockSimulation.BacktestStrikeMode.literals).pipe(
      Flag.withDescription(
        "Each lock's rate: the start date's spot (live_spot) or the snapshot's curves on it (cip_fair)"
      ),
      Flag.withDefault("cip_fair" as const)
    ),
    exercise: Flag.Literals("exercise", ["end", "best", "uniform"] as const).pipe(
      Flag.withDescription("When each customer transacts: end, best (hindsight) or uniform (a random date, --seed)"),
      Flag.withDefault("end" as const)
    ),
    seed: Flag.Int("seed").pipe(Flag.withDescription("The random seed of uniform"), Flag.withDefault(1)),
    svg: svgFlag("the premiums and payouts over time"),
    json: jsonFlag,
    csv: Flag.Boolean("csv").pipe(
      Flag.withDescription("Print the locks as CSV with a header, every decimal exact"),
      Flag.withDefault(false)
    )
  },
  (input) =>
    Effect.gen(function* () {
      if (input.json && input.csv) return yield* refused("--json and --csv: one or the other")
      const snapshot = yield* readSnapshot(input.snapshot)
      const notional = yield* decimal("notional", input.notional)
      const parsed = LockSimulation.parseSeries(yield* readText(input.series, "series"))
      if (Result.isFailure(parsed)) return yield* engineRefused(parsed.failure)
      const run = LockSimulation.backtest({
        series: parsed.success,
        snapshot,
        template: {
          direction: input.direction,
          notionalCurrency: input.notionalCurrency,
          notionalAmount: notional,
          contractType: input.contractType,
          tenorDays: input.tenorDays,
          strikeMode: input.strikeMode,
          settlementCurrency: input.settlementCurrency
        },
        everyDays: input.everyDays,
        exercise: input.exercise,
        seed: input.seed
      })
      if (Result.isFailure(run)) return yield* engineRefused(run.failure)
      const json = Format.backtestJson(run.success)
      yield* input.csv ? Console.log(Format.backtestCsv(json)) : print(input.json, json, Format.backtest)
      yield* writeChart(input.svg, (charts) => charts.premiumsAndPayouts(run.success), input.json || input.csv)
    })
).pipe(
  Command.withDescription(
    "What locks bought along a spot history would have paid (no service, no database): every lock's premium and payout, and the totals"
  ),
  Command.withExamples([
    {
      command:
        "ratelock simulate backtest --series usdbrl.csv --snapshot docs/market/example-snapshot.json --direction USD_TO_BRL --notional 10000 --notional-currency USD --contract-type option --tenor-days 30 --every-days 7 --exercise end --csv",
      description: "A 30-day option bought every week, exercised at its window's end, for a spreadsheet"
    }
  ])
)

export const simulate = Command.make("simulate").pipe(
  Command.withDescription(
    "Simulate locks from files alone: one lock's likely payouts (Monte Carlo) and a history's locks (backtest)"
  ),
  Command.withSubcommands([simulateLock, simulateBacktest])
)
