/**
 * The sweep pass: the money partners paid in does not stay on its funding addresses. Every funding
 * address whose contract no longer awaits funds (or that only received funds that funded nothing)
 * and holds at least the rail's sweep minimum is swept whole: into the hot wallet while the hot
 * wallet (as the chain holds it, plus the sweeps on their way to it) is below its float, into the treasury (a cold address, watched and never signed for)
 * beyond it; everything refills the hot wallet when no treasury is configured.
 *
 * The pass only decides and records: each sweep is a movement (`Movements`), signed, sent and
 * booked by the movements pass, at most once. Candidates come from the books (`fundingBalances`,
 * one read per rail); the amount swept is the token balance the chain reports, in one batched
 * read. A rail whose funding keys are only watched (an xpub) cannot sweep: it is skipped, and the
 * treasury view says what waits there.
 */
import { Context, DateTime, Duration, Effect } from "effect"
import * as Environments from "../kernel/Environment.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as Money from "../kernel/Money.ts"
import { Chain, SettlementCurrency } from "../kernel/Rail.ts"
import { isAwaitingFunds } from "../terms/Contract.ts"
import type { Environment } from "../terms/Partner.ts"
import { ChainGateway } from "../lifecycle/ChainGateway.ts"
import { type FundingBalance, MovementRepo, newMovement } from "../lifecycle/MovementRepo.ts"
import { SettlementRails } from "../lifecycle/SettlementRails.ts"

type PerToken = Readonly<Partial<Record<SettlementCurrency, Money.Decimal>>>

/** The operator's sweep settings, per chain (in every environment). */
export interface SweepSettingsShape {
  /** Least balance worth a sweep (`RATELOCK_<CHAIN>_SWEEP_MIN_<TOKEN>`); `defaultMinimum` where unset. */
  readonly minimum: Readonly<Partial<Record<Chain, PerToken>>>
  /** What the hot wallet should hold (`RATELOCK_<CHAIN>_HOT_WALLET_FLOAT_<TOKEN>`); no float: sweeps always refill it. */
  readonly float: Readonly<Partial<Record<Chain, PerToken>>>
  /** The cold address beyond the float (`RATELOCK_<CHAIN>_TREASURY_ADDRESS`). */
  readonly treasury: Readonly<Partial<Record<Chain, string>>>
}

export const SweepSettings = Context.Reference<SweepSettingsShape>("@ratelock/core/Sweeps/SweepSettings", {
  defaultValue: () => ({ minimum: {}, float: {}, treasury: {} })
})

/**
 * How often the pass looks for addresses to sweep: one read of the books per rail, and one batched
 * read of the chain for the candidates only.
 */
export const every = Duration.seconds(10)

/** Dust below this is not moved at a loss. */
export const defaultMinimum = Money.unsafe("10")

export const minimumVariable = (chain: Chain, token: SettlementCurrency) =>
  `RATELOCK_${chain.toUpperCase()}_SWEEP_MIN_${token}`
export const floatVariable = (chain: Chain, token: SettlementCurrency) =>
  `RATELOCK_${chain.toUpperCase()}_HOT_WALLET_FLOAT_${token}`
export const treasuryVariable = (chain: Chain) => `RATELOCK_${chain.toUpperCase()}_TREASURY_ADDRESS`

export const minimumOf = (settings: SweepSettingsShape, chain: Chain, token: SettlementCurrency): Money.Decimal =>
  settings.minimum[chain]?.[token] ?? defaultMinimum

/** A funding address the pass would sweep, by the books: its contract no longer awaits funds and it holds the minimum. */
export const isCandidate = (settings: SweepSettingsShape, chain: Chain) => (b: FundingBalance) =>
  !isAwaitingFunds(b.status) && !b.sweeping && !Money.lessThan(b.balance, minimumOf(settings, chain, b.currency))

/**
 * Where each sweep goes, in order: the hot wallet while `held` (its balance, and what is on its way
 * to it) stays below the float, the treasury beyond. Pure, for the pass and its tests.
 */
export const destinations = (
  amounts: ReadonlyArray<Money.Decimal>,
  held: Money.Decimal,
  float: Money.Decimal | undefined,
  treasury: string | undefined
): ReadonlyArray<string | null> => {
  let filling = held
  return amounts.map((amount) => {
    if (treasury === undefined || float === undefined || Money.lessThan(filling, float)) {
      filling = Money.sum(filling, amount)
      return null
    }
    return treasury
  })
}

/** The pass over one environment and chain: how many sweeps it recorded. */
const sweepRail = Effect.fnUntraced(function* (environment: Environment, chain: Chain) {
  const gateway = yield* ChainGateway
  const repo = yield* MovementRepo
  const settings = yield* SweepSettings
  const rails = yield* SettlementRails
  const tokens = SettlementCurrency.literals.filter((token) => rails.supports(environment, chain, token))
  if (tokens.length === 0) return 0
  if ((yield* gateway.fundingKeys({ environment, chain })) === "watch_only") return 0
  // an address of a contract made before its HD index was kept cannot be signed for: it stays
  // listed as awaiting a sweep in the treasury view
  const candidates = (yield* repo.fundingBalances({ environment, chain })).filter(
    (b) => isCandidate(settings, chain)(b) && b.fundingIndex !== null
  )
  if (candidates.length === 0) return 0
  // the hot wallet as the chain holds it now, only when the float decides anything: the
  // once-a-minute reading may not exist yet (a worker just started), and a float measured
  // against nothing would send everything to the hot wallet. A mined sweep not yet confirmed
  // counts twice (on chain and on its way): the next sweeps go cold a little early, never late.
  const float = (token: SettlementCurrency) => settings.float[chain]?.[token]
  const decides = settings.treasury[chain] !== undefined && tokens.some((t) => float(t) !== undefined)
  const hot = decides ? yield* gateway.hotWallet({ environment, chain }) : null
  const inFlight = yield* repo.list({ kinds: ["sweep"], statuses: ["pending", "prepared"], environment, limit: 10_000 })
  const ids = yield* IdGenerator
  const now = yield* DateTime.now
  let recorded = 0
  for (const token of tokens) {
    const ofToken = candidates.filter((c) => c.currency === token)
    if (ofToken.length === 0) continue
    const rail = { environment, chain, token }
    const onChain = yield* gateway.balances(
      rail,
      ofToken.map((c) => c.address)
    )
    const due = ofToken
      .map((c, i) => ({ candidate: c, amount: onChain[i] ?? Money.zero }))
      .filter((d) => !Money.lessThan(d.amount, minimumOf(settings, chain, token)))
    const held = hot?.balances.find((b) => b.asset === token)?.amount ?? Money.zero
    const coming = inFlight
      .filter((m) => m.chain === chain && m.currency === token && m.destination === null)
      .reduce((sum, m) => Money.sum(sum, m.amount), Money.zero)
    const to = destinations(
      due.map((d) => d.amount),
      Money.sum(held, coming),
      float(token),
      settings.treasury[chain]
    )
    for (const [i, { candidate, amount }] of due.entries()) {
      const id = yield* ids.uuid
      const sweep = newMovement(
        {
          id,
          kind: "sweep",
          purpose: to[i] === null ? "hot_wallet" : "treasury",
          key: `sweep:${id}`,
          contractId: candidate.contractId,
          partnerId: candidate.partnerId,
          environment,
          chain,
          currency: token,
          source: candidate.address,
          fundingIndex: candidate.fundingIndex,
          destination: to[i] ?? null,
          amount,
          requestedBy: "worker"
        },
        now
      )
      // a sweep of the address already pending or prepared (another worker's) stands
      const inserted = yield* repo.insert(sweep).pipe(
        Effect.as(1),
        Effect.catchTag("MovementExists", () => Effect.succeed(0))
      )
      recorded += inserted
    }
  }
  return recorded
})

/**
 * One pass over every served environment and chain. A chain that fails to answer is logged and
 * skipped until the next pass: its addresses keep their funds meanwhile, nothing is lost.
 */
export const plan = Effect.fn("Sweeps.plan")(function* () {
  const rails = yield* SettlementRails
  let recorded = 0
  for (const environment of Environments.all) {
    for (const chain of Chain.literals) {
      if (!SettlementCurrency.literals.some((token) => rails.supports(environment, chain, token))) continue
      recorded += yield* sweepRail(environment, chain).pipe(
        Effect.catchTag("ChainError", (error) =>
          error.reason === "unsupported_rail"
            ? Effect.succeed(0)
            : Effect.as(
                Effect.logWarning(`sweeps: ${environment} ${chain} skipped: ${error.reason}: ${error.message}`),
                0
              )
        )
      )
    }
  }
  return recorded
})
