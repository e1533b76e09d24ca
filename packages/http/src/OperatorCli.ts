/**
 * The operator CLI (`pnpm ratelock <command>`): migrations, partners, API keys and webhook URLs,
 * on the same database the server uses (`DATABASE_URL`, else the embedded one in
 * `RATELOCK_DATA_DIR`, which must not be open in a running server).
 *
 * Each command group is a module of `cli/`; this one only puts them in the order `--help` lists.
 */
import { Effect, References } from "effect"
import { Command } from "effect/cli"
import { audit } from "./cli/AuditCommands.ts"
import { finance } from "./cli/FinanceCommands.ts"
import { funds } from "./cli/FundsCommands.ts"
import { hedge } from "./cli/HedgeCommands.ts"
import { key } from "./cli/KeyCommands.ts"
import { limits } from "./cli/LimitsCommands.ts"
import { market } from "./cli/MarketCommands.ts"
import { migrate } from "./cli/MigrateCommand.ts"
import { operator } from "./cli/OperatorTokenCommands.ts"
import { partner } from "./cli/PartnerCommands.ts"
import { payouts } from "./cli/PayoutCommands.ts"
import { quote } from "./cli/QuoteCommands.ts"
import { risk } from "./cli/RiskCommands.ts"
import { simulate } from "./cli/SimulateCommands.ts"
import { treasury } from "./cli/TreasuryCommands.ts"
import { webhook } from "./cli/WebhookCommands.ts"
import { worker } from "./cli/WorkerCommand.ts"
import { version } from "./Version.ts"

export { version }

export const command = Command.make("ratelock").pipe(
  Command.withDescription("Ratelock operator commands"),
  Command.withSubcommands([
    migrate,
    partner,
    key,
    webhook,
    funds,
    payouts,
    market,
    quote,
    limits,
    risk,
    hedge,
    treasury,
    finance,
    simulate,
    operator,
    audit,
    worker
  ])
)

/** Quiet below warnings: a command's output is what it prints. */
const quiet = Effect.provideService(References.MinimumLogLevel, "Warn")

/** The CLI on `process.argv`. */
export const run = Command.run(command, { version }).pipe(quiet)

/** The CLI on the given arguments: the tests run most commands so, in their own process. */
export const runWith = (args: ReadonlyArray<string>) => Command.runWith(command, { version })(args).pipe(quiet)
