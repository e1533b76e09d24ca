/**
 * `ratelock treasury …`: the hot wallets as the workers last read them, against their thresholds
 * and the payouts due (`Treasury.view`, the JSON of `GET /operator/v1/treasury`).
 */
import { Money, Rail, Reconciliation, Treasury, TreasuryFlows, TreasuryLedger } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Format from "../internal/treasuryFormat.ts"
import { onChains, onStore } from "./OnStore.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag } from "./SharedFlags.ts"

const treasuryShow = Command.make(
  "show",
  {
    environment: environmentFlag.pipe(Flag.withDescription("Only this environment (default: both)"), Flag.optional),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(Treasury.view({ environment: Option.getOrUndefined(input.environment) }), (view) =>
        print(input.json, view, Format.treasury)
      )
    )
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
  (input) =>
    onChains(
      Effect.flatMap(Reconciliation.reconcile({ environment: Option.getOrUndefined(input.environment) }), (runs) => {
        const rows = runs.map(TreasuryFlows.reconciliationRow)
        return print(input.json, rows, Format.reconciliation)
      })
    )
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
    onStore(
      Effect.gen(function* () {
        const amount = Option.filter(Money.parse(input.amount), Money.isPositive)
        if (Option.isNone(amount)) {
          return yield* Effect.fail(new Error(`--amount must be a positive decimal, got ${input.amount}`))
        }
        const booked = yield* Reconciliation.recordInflow({ ...input, amount: amount.value })
        const written = {
          source: booked.source,
          entries: booked.entries.map((e) => ({
            account: e.account,
            currency: e.currency,
            amount: Money.format(e.amount)
          }))
        }
        return yield* print(
          input.json,
          written,
          () =>
            `Recorded ${input.amount} ${input.currency} into the ${input.environment} ${input.chain} ${input.wallet === "hot_wallet" ? "hot wallet" : "treasury"} as ${input.as === "topup" ? "a treasury top-up" : "unmatched funds"} (${booked.source}).`
        )
      })
    )
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
