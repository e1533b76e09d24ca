/**
 * Reconciliation: the books against the chain. For each served environment and chain, each funding
 * address whose balance by the books is not zero (not yet swept), the hot wallet (its tokens and
 * native currency) and the treasury are read from the chain at confirmed depth and set against the
 * ledgers (the contracts' and the treasury's). Every difference is listed with when it was first
 * seen; an unexpected inflow stays a difference until it is recorded (`recordInflow`).
 *
 * The workers run it every `interval` (10 minutes by default) and `ratelock treasury reconcile`
 * runs it now. A chain that cannot be read makes a run with its error and no differences claimed.
 */
import { Context, DateTime, Duration, Effect } from "effect"
import * as Environments from "../kernel/Environment.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as Money from "../kernel/Money.ts"
import { Chain, FundsCurrency, SettlementCurrency } from "../kernel/Rail.ts"
import { ChainGateway } from "../lifecycle/ChainGateway.ts"
import { MovementRepo } from "../lifecycle/MovementRepo.ts"
import { SettlementRails } from "../lifecycle/SettlementRails.ts"
import * as TreasuryLedger from "../lifecycle/TreasuryLedger.ts"
import type { Environment } from "../terms/Partner.ts"
import {
  type ReconciledWallet,
  type ReconciliationDifference,
  ReconciliationRepo,
  type ReconciliationRun
} from "./ReconciliationRepo.ts"
import { SweepSettings } from "./Sweeps.ts"

/** How often the workers reconcile (`RATELOCK_RECONCILE_EVERY_SECONDS`). */
export const Interval = Context.Reference<Duration.Duration>("@ratelock/core/Reconciliation/Interval", {
  defaultValue: () => Duration.minutes(10)
})

/** One balance compared: by the books and on chain. */
export interface Comparison {
  readonly wallet: ReconciledWallet
  readonly address: string
  readonly contractId: string | null
  readonly currency: TreasuryLedger.TreasuryCurrency
  readonly ledger: Money.Decimal
  readonly onChain: Money.Decimal
}

const differenceKey = (d: Pick<Comparison, "wallet" | "address" | "currency">) =>
  `${d.wallet}|${d.address}|${d.currency}`

/** The comparisons that differ, each with when it was first seen (carried from `previous`, else `now`). Pure. */
export const differences = (
  comparisons: ReadonlyArray<Comparison>,
  previous: ReadonlyArray<ReconciliationDifference>,
  now: DateTime.Utc
): ReadonlyArray<ReconciliationDifference> => {
  const seen = new Map(previous.map((d) => [differenceKey(d), d]))
  return comparisons
    .filter((c) => !Money.equals(c.ledger, c.onChain))
    .map((c) => {
      const difference = Money.subtract(c.onChain, c.ledger)
      const before = seen.get(differenceKey(c))
      return {
        ...c,
        difference,
        since:
          before !== undefined && Money.equals(before.difference, difference) ? before.since : (before?.since ?? now)
      }
    })
}

/** A balance to compare, before the chain is read. */
type Expected = Omit<Comparison, "onChain">

/**
 * Reads the chain for one environment and chain: the comparisons, and how many gateway calls it
 * took. Every balance is read at the confirmation depth, the hot wallet's too: `hotWallet` (the
 * latest block) only says where it is, and its balances are read with the funding addresses' and
 * the treasury's (one `balances` call per token) and by `nativeBalances`. The books record a
 * movement once it is confirmed at that depth, so one mined and not yet deep differs nowhere.
 */
const compareRail = Effect.fnUntraced(function* (environment: Environment, chain: Chain) {
  const gateway = yield* ChainGateway
  const repo = yield* MovementRepo
  const rails = yield* SettlementRails
  const settings = yield* SweepSettings
  const comparisons: Array<Comparison> = []
  let calls = 0
  const fundings = yield* repo.fundingBalances({ environment, chain })
  const wallets = yield* repo.walletBalances({ environment, chain })
  const booked = (account: "payout_wallet" | "treasury", address: string | null, currency: string) =>
    wallets.find((w) => w.account === account && w.address === address && w.currency === currency)?.balance ??
    Money.zero
  /** Reads `expected`'s addresses with `read` (one gateway call) and compares. */
  const compare = Effect.fnUntraced(function* <E>(
    expected: ReadonlyArray<Expected>,
    read: (addresses: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Money.Decimal>, E>
  ) {
    if (expected.length === 0) return
    const onChain = yield* read(expected.map((e) => e.address))
    calls += 1
    for (const [i, e] of expected.entries()) comparisons.push({ ...e, onChain: onChain[i] ?? Money.zero })
  })
  const treasury = settings.treasury[chain]
  const hot = yield* gateway.hotWallet({ environment, chain })
  calls += 1
  const hotWallet = (currency: TreasuryLedger.TreasuryCurrency): ReadonlyArray<Expected> =>
    hot === null
      ? []
      : [
          {
            wallet: "hot_wallet",
            address: hot.address,
            contractId: null,
            currency,
            ledger: booked("payout_wallet", null, currency)
          }
        ]
  // every token the rail serves is in the hot wallet (a BRLA payout's too); the treasury is
  // reconciled in settlement tokens
  for (const token of FundsCurrency.literals.filter((t) => rails.supports(environment, chain, t))) {
    const settles = SettlementCurrency.literals.some((t) => t === token)
    yield* compare(
      [
        ...fundings
          .filter((f) => f.currency === token)
          .map(
            (f): Expected => ({
              wallet: "funding_address",
              address: f.address,
              contractId: f.contractId,
              currency: token,
              ledger: f.balance
            })
          ),
        ...(treasury === undefined || !settles
          ? []
          : [
              {
                wallet: "treasury",
                address: treasury,
                contractId: null,
                currency: token,
                ledger: booked("treasury", treasury, token)
              } satisfies Expected
            ]),
        ...hotWallet(token)
      ],
      (addresses) => gateway.balances({ environment, chain, token }, addresses)
    )
  }
  yield* compare(hotWallet(TreasuryLedger.nativeCurrencyOf(chain)), (addresses) =>
    gateway.nativeBalances({ environment, chain }, addresses)
  )
  return { comparisons, calls }
})

/** Reconciles one environment and chain now, saving the run (unless the deployment does not serve it). */
export const reconcileRail = Effect.fn("Reconciliation.reconcileRail")(function* (
  environment: Environment,
  chain: Chain
) {
  const repo = yield* ReconciliationRepo
  const previous = (yield* repo.latest()).find((r) => r.environment === environment && r.chain === chain)
  const now = yield* DateTime.now
  const read = yield* Effect.result(compareRail(environment, chain))
  const run: ReconciliationRun = {
    id: yield* (yield* IdGenerator).uuid,
    environment,
    chain,
    at: now,
    checked: read._tag === "Success" ? read.success.comparisons.length : 0,
    chainCalls: read._tag === "Success" ? read.success.calls : 0,
    error:
      read._tag === "Failure"
        ? read.failure._tag === "ChainError"
          ? `${read.failure.reason}: ${read.failure.message}`
          : `store: ${read.failure.message}`
        : null,
    differences: read._tag === "Success" ? differences(read.success.comparisons, previous?.differences ?? [], now) : []
  }
  // a rail this deployment has no gateway for is not reconciled, and no run says it failed
  const unserved =
    read._tag === "Failure" && read.failure._tag === "ChainError" && read.failure.reason === "unsupported_rail"
  if (!unserved) yield* repo.save(run)
  return run
})

/** The (environment, chain) pairs with a gateway that settles at least one token. */
const servedRails = Effect.gen(function* () {
  const rails = yield* SettlementRails
  return Environments.all.flatMap((environment) =>
    Chain.literals
      .filter((chain) => SettlementCurrency.literals.some((token) => rails.supports(environment, chain, token)))
      .map((chain) => ({ environment, chain }))
  )
})

/**
 * Reconciles every served environment and chain now (`ratelock treasury reconcile`); a rail the
 * deployment has no gateway for is left out, not reported as a difference.
 */
export const reconcile = Effect.fn("Reconciliation.reconcile")(function* (
  options: { readonly environment?: Environment | undefined } = {}
) {
  const runs: Array<ReconciliationRun> = []
  for (const { environment, chain } of yield* servedRails) {
    if (options.environment !== undefined && options.environment !== environment) continue
    const run = yield* reconcileRail(environment, chain)
    if (run.error?.startsWith("unsupported_rail") === true) continue
    runs.push(run)
  }
  return runs
})

/** The workers' pass: a reconciliation when the latest is `Interval` old (whoever ran it). */
export const pass = Effect.fn("Reconciliation.pass")(function* () {
  const interval = yield* Interval
  const now = yield* DateTime.now
  const latest = yield* (yield* ReconciliationRepo).latest()
  const due =
    latest.length === 0 ||
    latest.some((r) => now.epochMilliseconds - r.at.epochMilliseconds >= Duration.toMillis(interval))
  if (!due) return 0
  // one worker at a time: the lease of the pass (as the revaluation's) is the host's concern; two
  // runs at once only write two runs
  const runs = yield* reconcile()
  yield* Effect.logDebug(`reconciliation: ${runs.length} rails`)
  return 0
})

/** What an operator records of an inflow the books did not expect (`ratelock treasury record-inflow`). */
export interface Inflow {
  readonly environment: Environment
  readonly chain: Chain
  readonly wallet: "hot_wallet" | "treasury"
  readonly currency: TreasuryLedger.TreasuryCurrency
  readonly amount: Money.Decimal
  /** `topup`: the operator's own money (a treasury top-up); `unmatched`: someone's, owed back. */
  readonly as: "topup" | "unmatched"
  readonly note?: string | undefined
}

/** Books an inflow into the hot wallet or the treasury: once per call (its own source). */
export const recordInflow = Effect.fn("Reconciliation.recordInflow")(function* (inflow: Inflow) {
  const id = yield* (yield* IdGenerator).uuid
  const treasury = (yield* SweepSettings).treasury[inflow.chain]
  const booking: TreasuryLedger.Booking = {
    source: `inflow:${id}`,
    kind: "inflow_recorded",
    environment: inflow.environment,
    chain: inflow.chain,
    contractId: null,
    partnerId: null,
    at: yield* DateTime.now
  }
  const to =
    inflow.wallet === "hot_wallet"
      ? ({ account: "payout_wallet", address: null } as const)
      : ({ account: "treasury", address: treasury ?? null } as const)
  const from = { account: inflow.as === "topup" ? "owner_funding" : "unmatched_funds", address: null } as const
  const entries = TreasuryLedger.entries(booking, TreasuryLedger.transfer(from, to, inflow.currency, inflow.amount))
  yield* (yield* MovementRepo).book(entries)
  return { source: booking.source, entries }
})
