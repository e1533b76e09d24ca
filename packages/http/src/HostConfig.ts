/**
 * Every setting of the HTTP host, read once through Effect `Config` (environment variables) with
 * its default. `packages/http/README.md` ("Running it") lists the same variables.
 */
import {
  DailyClose,
  DailyCloses,
  HotWalletRepo,
  Lease,
  Money,
  QuotePolicy,
  Rail,
  Reconciliation,
  Sweeps,
  Treasury
} from "@ratelock/core"
import {
  Config,
  Context,
  Duration,
  Effect,
  Layer,
  type LogLevel,
  Option,
  type Redacted,
  References,
  Schema,
  SchemaTransformation
} from "effect"
import { isAbsolute, resolve } from "node:path"
import { BodyLimit } from "./server/BodyLimit.ts"
import { ChainAvailability } from "./server/ChainAvailability.ts"
import { RateLimitConfig } from "./server/RateLimiter.ts"

export interface Settings {
  /** `PORT`: 8080; 0 picks a free port. */
  readonly port: number
  /**
   * `RATELOCK_HOST`: the interface the partner API listens on. Unset: Node's default, every
   * interface (`::`, or `0.0.0.0` without IPv6), as before the setting existed.
   */
  readonly host: Option.Option<string>
  /** `RATELOCK_OPERATOR_PORT`: the operator listener's port, 8081; 0 picks a free port. */
  readonly operatorPort: number
  /** `RATELOCK_OPERATOR_HOST`: the interface the operator listener binds, 127.0.0.1 (this machine only). */
  readonly operatorHost: string
  /** `RATELOCK_DATA_DIR`: the embedded database's directory, absolute. */
  readonly dataDir: string
  /** `DATABASE_URL`: PostgreSQL when set, else the embedded database. */
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** `DATABASE_POOL_SIZE`: connections to PostgreSQL. */
  readonly databasePoolSize: number
  readonly quoteTtl: Duration.Duration
  readonly maxRateAge: Duration.Duration
  readonly fundingWindow: Duration.Duration
  /** Per API key: sustained requests per second, and the burst above it. */
  readonly rateLimitPerSecond: number
  readonly rateLimitBurst: number
  readonly maxBodyBytes: number
  /** Whether the sandbox environment (simulated chains) is served. */
  readonly sandbox: boolean
  /** `RATELOCK_SANDBOX_CONFIRM_MS`: how long the simulated chain takes to confirm a transfer or a payout. */
  readonly sandboxConfirmDelay: Duration.Duration
  /**
   * `RATELOCK_MARKET_MAX_AGE_SECONDS`: production prices only from a snapshot whose `as_of` is at
   * most this old; past it quotes fail `market_data_stale` (the sandbox prices from any age).
   */
  readonly marketMaxAge: Duration.Duration
  /** `RATELOCK_MARKET_FEED_URL`: a market snapshot document the workers poll (none: imports only). */
  readonly marketFeedUrl: Option.Option<string>
  /** `RATELOCK_MARKET_FEED_INTERVAL_SECONDS`: how often the workers poll the feed. */
  readonly marketFeedInterval: Duration.Duration
  /** Chains production runs on; none → production answers 403 `environment_disabled`. */
  readonly productionChains: ReadonlyArray<Rail.Chain>
  /** Create a demo partner (and print its sandbox credentials) on a first start with no partners. */
  readonly demoPartner: boolean
  readonly shutdownGrace: Duration.Duration
  readonly logLevel: LogLevel.LogLevel
  /** Run the lifecycle workers inside `pnpm start` (`pnpm ratelock worker` runs them alone). */
  readonly workers: boolean
  /** Pause between worker passes. */
  readonly workerPoll: Duration.Duration
  /** Jobs a worker pass works at once. */
  readonly workerConcurrency: number
  /**
   * `RATELOCK_HEDGING`: where the workers send hedge orders: `off` (none), `manual` (a trader's
   * desk, `ratelock hedge fill|reject`) or `simulated` (the venue in this database).
   */
  readonly hedging: HedgingMode
  /** `RATELOCK_HEDGE_SPREAD_BPS`: the simulated venue's spread around the mid, in basis points. */
  readonly hedgeSpreadBps: Money.Decimal
  /**
   * `RATELOCK_RISK_INTERVAL_SECONDS`: how old the workers let the book's revaluation grow (a new
   * snapshot revalues it at once).
   */
  readonly riskInterval: Duration.Duration
  /**
   * `RATELOCK_<CHAIN>_HOT_WALLET_MIN_<ASSET>` (asset `NATIVE` or a token): the balance under which
   * a chain's hot wallet degrades the status (`Treasury.Thresholds`); none set, none watched.
   */
  readonly hotWalletMinimums: Treasury.ThresholdsShape
  /**
   * `RATELOCK_<CHAIN>_SWEEP_MIN_<TOKEN>`, `RATELOCK_<CHAIN>_HOT_WALLET_FLOAT_<TOKEN>`,
   * `RATELOCK_<CHAIN>_TREASURY_ADDRESS`: what the sweeps move, and where (`Sweeps.SweepSettings`).
   */
  readonly sweeps: Sweeps.SweepSettingsShape
  /** `RATELOCK_RECONCILE_EVERY_SECONDS`: how often the workers set the books against the chain. */
  readonly reconcileInterval: Duration.Duration
  /** `RATELOCK_DAILY_CLOSE`: the daily cut, `HH:MM` UTC, at which the workers close each environment's book. */
  readonly dailyClose: string
}

export const HedgingMode = Schema.Literals(["off", "manual", "simulated"])
export type HedgingMode = typeof HedgingMode.Type

const positiveInt = (name: string, fallback: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), name).pipe(Config.withDefault(fallback))

const seconds = (name: string, fallback: number) => positiveInt(name, fallback).pipe(Config.map(Duration.seconds))

/** A comma-separated list of chains, spaces and empty entries ignored. */
const ChainList = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Array(Rail.Chain),
    SchemaTransformation.transform({
      decode: (text: string) =>
        text
          .split(",")
          .map((s) => s.trim())
          // the target schema checks each name; the cast only states what it will check
          .filter((s) => s !== "") as ReadonlyArray<Rail.Chain>,
      encode: (chains: ReadonlyArray<string>) => chains.join(",")
    })
  )
)

/** Every per-chain amount setting of one kind that is set (`variable(chain, key)`), as a table by chain then key. */
const perChain = <K extends string>(keys: ReadonlyArray<K>, variable: (chain: Rail.Chain, key: K) => string) =>
  Config.all(
    Rail.Chain.literals.flatMap((chain) =>
      keys.map((key) =>
        Config.option(Config.schema(Money.NonNegativeDecimalString, variable(chain, key))).pipe(
          Config.map((amount) => ({ chain, key, amount }))
        )
      )
    )
  ).pipe(
    Config.map((found) => {
      const table: Partial<Record<Rail.Chain, Partial<Record<K, Money.Decimal>>>> = {}
      for (const { chain, key, amount } of found) {
        if (Option.isSome(amount))
          table[chain] = { ...table[chain], [key]: amount.value } as Partial<Record<K, Money.Decimal>>
      }
      return table
    })
  )

/** Every `RATELOCK_<CHAIN>_HOT_WALLET_MIN_<ASSET>` that is set, as core's thresholds. */
export const hotWalletMinimums: Config.Config<Treasury.ThresholdsShape> = perChain(
  HotWalletRepo.HotWalletAsset.literals,
  Treasury.thresholdVariable
)

/** The sweeps' minimums, floats and treasury addresses that are set. */
export const sweepSettings: Config.Config<Sweeps.SweepSettingsShape> = Config.all({
  minimum: perChain(Rail.SettlementCurrency.literals, Sweeps.minimumVariable),
  float: perChain(Rail.SettlementCurrency.literals, Sweeps.floatVariable),
  treasury: Config.all(
    Rail.Chain.literals.map((chain) =>
      Config.option(Config.schema(Schema.NonEmptyString, Sweeps.treasuryVariable(chain))).pipe(
        Config.map((address) => ({ chain, address }))
      )
    )
  ).pipe(
    Config.map((found) => {
      const table: Partial<Record<Rail.Chain, string>> = {}
      for (const { chain, address } of found) if (Option.isSome(address)) table[chain] = address.value.trim()
      return table
    })
  )
})

const logLevels = ["All", "Fatal", "Error", "Warn", "Info", "Debug", "Trace", "None"] as const

/** A log level in any letter case (`debug`, `Debug`, `DEBUG`). */
const LogLevelName = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Literals(logLevels),
    SchemaTransformation.transform({
      decode: (text: string) =>
        (text.charAt(0).toUpperCase() + text.slice(1).toLowerCase()) as (typeof logLevels)[number],
      encode: (level: string) => level
    })
  )
)

/**
 * Relative data directories are taken from where the command was typed: pnpm runs package
 * scripts in the package's directory but keeps the caller's in `INIT_CWD`.
 */
const dataDir = Config.all({
  dir: Config.String("RATELOCK_DATA_DIR").pipe(Config.withDefault(".data")),
  typedIn: Config.option(Config.String("INIT_CWD"))
}).pipe(
  Config.map(({ dir, typedIn }) =>
    isAbsolute(dir)
      ? dir
      : resolve(
          Option.getOrElse(typedIn, () => process.cwd()),
          dir
        )
  )
)

const Port = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 }))

export const settings: Config.Config<Settings> = Config.all({
  port: Config.schema(Port, "PORT").pipe(Config.withDefault(8080)),
  host: Config.option(Config.schema(Schema.NonEmptyString, "RATELOCK_HOST")),
  operatorPort: Config.schema(Port, "RATELOCK_OPERATOR_PORT").pipe(Config.withDefault(8081)),
  operatorHost: Config.schema(Schema.NonEmptyString, "RATELOCK_OPERATOR_HOST").pipe(Config.withDefault("127.0.0.1")),
  dataDir,
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  databasePoolSize: positiveInt("DATABASE_POOL_SIZE", 10),
  quoteTtl: seconds("RATELOCK_QUOTE_TTL_SECONDS", 90),
  maxRateAge: seconds("RATELOCK_MAX_RATE_AGE_SECONDS", 300),
  fundingWindow: seconds("RATELOCK_FUNDING_WINDOW_SECONDS", 3600),
  rateLimitPerSecond: positiveInt("RATELOCK_RATE_LIMIT_PER_SECOND", 50),
  rateLimitBurst: positiveInt("RATELOCK_RATE_LIMIT_BURST", 100),
  maxBodyBytes: positiveInt("RATELOCK_MAX_BODY_BYTES", 1_048_576),
  sandbox: Config.Boolean("RATELOCK_SANDBOX").pipe(Config.withDefault(true)),
  sandboxConfirmDelay: Config.schema(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
    "RATELOCK_SANDBOX_CONFIRM_MS"
  ).pipe(Config.withDefault(2000), Config.map(Duration.millis)),
  marketMaxAge: seconds("RATELOCK_MARKET_MAX_AGE_SECONDS", 900),
  marketFeedUrl: Config.option(Config.URL("RATELOCK_MARKET_FEED_URL").pipe(Config.map((url) => url.href))),
  marketFeedInterval: seconds("RATELOCK_MARKET_FEED_INTERVAL_SECONDS", 60),
  productionChains: Config.schema(ChainList, "RATELOCK_PRODUCTION_CHAINS").pipe(Config.withDefault([])),
  demoPartner: Config.Boolean("RATELOCK_DEMO_PARTNER").pipe(Config.withDefault(true)),
  shutdownGrace: seconds("RATELOCK_SHUTDOWN_GRACE_SECONDS", 20),
  // LOG_LEVEL, the earlier name, still counts when the new one is not set
  logLevel: Config.all([
    Config.option(Config.schema(LogLevelName, "RATELOCK_LOG_LEVEL")),
    Config.option(Config.schema(LogLevelName, "LOG_LEVEL"))
  ]).pipe(
    Config.map(([level, earlier]) =>
      Option.getOrElse(
        Option.orElse(level, () => earlier),
        () => "Info" as const
      )
    )
  ),
  workers: Config.Boolean("RATELOCK_WORKERS").pipe(Config.withDefault(true)),
  workerPoll: positiveInt("RATELOCK_WORKER_POLL_MS", 250).pipe(Config.map(Duration.millis)),
  workerConcurrency: positiveInt("RATELOCK_WORKER_CONCURRENCY", Lease.defaultConcurrency),
  hedging: Config.schema(HedgingMode, "RATELOCK_HEDGING").pipe(Config.withDefault("off" as const)),
  hedgeSpreadBps: Config.schema(Money.NonNegativeDecimalString, "RATELOCK_HEDGE_SPREAD_BPS").pipe(
    Config.withDefault(Money.unsafe("5"))
  ),
  riskInterval: seconds("RATELOCK_RISK_INTERVAL_SECONDS", 30),
  hotWalletMinimums,
  sweeps: sweepSettings,
  reconcileInterval: seconds("RATELOCK_RECONCILE_EVERY_SECONDS", 600),
  dailyClose: Config.schema(DailyClose.CutTime, "RATELOCK_DAILY_CLOSE").pipe(Config.withDefault(DailyClose.defaultCut))
})

/** The settings, read once, for handlers and workers that need them. */
export class HostConfig extends Context.Service<HostConfig, Settings>()("@ratelock/http/HostConfig") {}

/** Core's quote policy with the configured TTL, market-rate age limit and funding window. */
export const quotePolicy = (s: Settings): QuotePolicy.QuotePolicyShape => ({
  ...QuotePolicy.defaults,
  quoteTtl: s.quoteTtl,
  maxRateAge: s.maxRateAge,
  fundingWindow: s.fundingWindow
})

/**
 * `HostConfig` and what the server and core read from it: the quote policy, the rate limit, the
 * body limit, which environments are enabled, the hot wallets' thresholds, the daily close's cut, the minimum
 * log level.
 */
export const layer = (s: Settings): Layer.Layer<HostConfig> =>
  Layer.mergeAll(
    Layer.succeed(HostConfig, s),
    Layer.succeed(QuotePolicy.QuotePolicy, quotePolicy(s)),
    Layer.succeed(RateLimitConfig, { ratePerSecond: s.rateLimitPerSecond, burst: s.rateLimitBurst }),
    Layer.succeed(BodyLimit, { maxBytes: s.maxBodyBytes }),
    Layer.succeed(ChainAvailability, { sandbox: s.sandbox, production: s.productionChains.length > 0 }),
    Layer.succeed(Treasury.Thresholds, s.hotWalletMinimums),
    Layer.succeed(Sweeps.SweepSettings, s.sweeps),
    Layer.succeed(Reconciliation.Interval, s.reconcileInterval),
    Layer.succeed(DailyCloses.Settings, { cut: s.dailyClose }),
    Layer.succeed(References.MinimumLogLevel, s.logLevel)
  )

/** `layer` from the environment. */
export const layerConfig: Layer.Layer<HostConfig, Config.ConfigError> = Layer.unwrap(Effect.map(settings, layer))

/** Where the data lives, for messages: never prints the database URL (it may hold a password). */
export const describeStore = (s: Settings): string =>
  Option.isSome(s.databaseUrl) ? "PostgreSQL (DATABASE_URL)" : `the embedded database in ${s.dataDir}`
