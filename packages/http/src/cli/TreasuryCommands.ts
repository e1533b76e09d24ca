/**
 * `ratelock treasury …`: the hot wallets as the workers last read them, against their thresholds
 * and the payouts due (`Treasury.view`, the JSON of `GET /operator/v1/treasury`), the books set
 * against the chain now, and an inflow booked. Each acts through the operator API when it is
 * configured (`OperatorCall.ts`), else on the database.
 */
import { OperatorActions, Rail, Treasury, TreasuryLedger } from "@ratelock/core"
import { Effect, Option } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import * as MoneyViews from "../internal/moneyViews.ts"
import * as Format from "../internal/treasuryFormat.ts"
import { given, operatorCall, operatorCallOnChains } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag } from "./SharedFlags.ts"

const treasuryShow = Command.make(
  "show",
  {
    environment: environmentFlag.pipe(Flag.withDescription("Only this environment (default: both)"), Flag.optional),
    json: jsonFlag
  },
  (input) => {
    const environment = Option.getOrUndefined(input.environment)
    // the funding keys and the rails served are the chains' configuration: the same as the server's
    return operatorCallOnChains(Treasury.view({ environment }), (api) =>
      api.operator.treasury({ query: given({ environment }) })
    ).pipe(Effect.flatMap((view) => print(input.json, view, Format.treasury)))
  }
).pipe(
  Command.withDescription(
    "Per environment, chain and asset: the hot wallet's balance as last read, its threshold (RATELOCK_<CHAIN>_HOT_WALLET_MIN_<ASSET>), the payouts due and whether it can pay them; stuck payouts"
  )
)

const treasuryReconcile = Command.make(
  "reconcile",
  {
    environment: environmentFlag.pipe(Flag.withDescription("Only this environment (default: both)"), Flag.optional),
    json: jsonFlag
  },
  (input) => {
    const environment = Option.getOrUndefined(input.environment)
    return operatorCallOnChains(
      Effect.map(OperatorActions.reconcile({ environment }), MoneyViews.reconciledJson),
      (api) => api.money.reconcile({ headers: {}, payload: given({ environment }) })
    ).pipe(Effect.flatMap((view) => print(input.json, view, Format.reconciled)))
  }
).pipe(
  Command.withDescription(
    "Sets the books against the chain now: each funding address not yet swept, the hot wallet and the treasury, per token (and the hot wallet's native currency); every difference listed with when it was first seen"
  )
)

const treasuryRecordInflow = Command.make(
  "record-inflow",
  {
    environment: environmentFlag,
    chain: Flag.Literals("chain", Rail.Chain.literals).pipe(
      Flag.withDescription("The chain: solana, ethereum or polygon")
    ),
    wallet: Flag.Literals("wallet", ["hot_wallet", "treasury"] as const).pipe(
      Flag.withDescription("Where it arrived: hot_wallet or treasury"),
      Flag.withDefault("hot_wallet" as const)
    ),
    currency: Flag.Literals(
      "currency",
      TreasuryLedger.TreasuryCurrency.members.flatMap((m) => m.literals)
    ).pipe(Flag.withDescription("The token (USDC, USDT, EURC, BRLA) or the chain's own currency (ETH, POL, SOL)")),
    amount: Flag.String("amount").pipe(Flag.withDescription("The exact amount received, as a decimal")),
    as: Flag.Literals("as", ["topup", "unmatched"] as const).pipe(
      Flag.withDescription("topup: the operator's own money (a treasury top-up); unmatched: someone's, owed back")
    ),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      // refused before anything is asked of the database or the API, in the same words either way
      const amount = MoneyViews.inflowAmount(input.amount)
      if (Option.isNone(amount)) {
        const message = MoneyViews.notAnInflowAmount("--amount", input.amount)
        return yield* Effect.fail(new CliError.UserError({ cause: input.amount, userMessage: message }))
      }
      const inflow = {
        environment: input.environment,
        chain: input.chain,
        wallet: input.wallet,
        currency: input.currency,
        as: input.as
      }
      const booked = yield* operatorCall(
        Effect.map(OperatorActions.recordInflow({ ...inflow, amount: amount.value }), MoneyViews.inflowJson),
        (api) => api.money.recordInflow({ headers: {}, payload: { ...inflow, amount: input.amount } })
      )
      return yield* print(
        input.json,
        booked,
        () =>
          `Recorded ${input.amount} ${input.currency} into the ${input.environment} ${input.chain} ${input.wallet === "hot_wallet" ? "hot wallet" : "treasury"} as ${input.as === "topup" ? "a treasury top-up" : "unmatched funds"} (${booked.source}).`
      )
    })
).pipe(
  Command.withDescription(
    "Books an inflow the reconciliation found and nobody expected: the operator's top-up, or someone's funds owed back"
  )
)

export const treasury = Command.make("treasury").pipe(
  Command.withDescription(
    "The hot wallets that pay the payouts, the sweeps that refill them, and the books against the chain"
  ),
  Command.withSubcommands([treasuryShow, treasuryReconcile, treasuryRecordInflow])
)
