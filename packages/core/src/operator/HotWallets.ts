/**
 * The hot-wallet pass: once a minute the workers ask the chain gateway for the hot wallet of every
 * (environment, chain) served and store its balances, native and tokens (`HotWalletRepo`), for the
 * treasury view, the status's alerts and the gauges, none of which waits on a chain.
 *
 * A chain served is one on which the environment settles at least one token (`SettlementRails`):
 * with real gateways, production's configured chains. A gateway that answers null has no hot
 * wallet (the simulated chains): nothing is stored. A chain that fails to answer is logged and
 * skipped, its last reading kept (the view shows its age). A rail read less than `readEvery` ago,
 * by this worker or another sharing the store, is not read again.
 */
import { DateTime, Duration, Effect } from "effect"
import * as Environments from "../kernel/Environment.ts"
import * as Lease from "../kernel/Lease.ts"
import { Chain, FundsCurrency } from "../kernel/Rail.ts"
import { ChainGateway } from "../lifecycle/ChainGateway.ts"
import { SettlementRails } from "../lifecycle/SettlementRails.ts"
import type { Environment } from "../terms/Partner.ts"
import { HotWalletRepo, type HotWalletReading } from "./HotWalletRepo.ts"

/** How often a hot wallet is read: the pass's least interval, and the age at which a reading is due again. */
export const readEvery = Duration.minutes(1)

export interface ServedRail {
  readonly environment: Environment
  readonly chain: Chain
}

/** Every (environment, chain) on which the environment settles at least one token. */
export const servedRails: Effect.Effect<ReadonlyArray<ServedRail>> = Effect.gen(function* () {
  const rails = yield* SettlementRails
  return Environments.all.flatMap((environment) =>
    Chain.literals
      .filter((chain) => FundsCurrency.literals.some((token) => rails.supports(environment, chain, token)))
      .map((chain): ServedRail => ({ environment, chain }))
  )
})

/** Reads one rail's hot wallet: its readings, none without a hot wallet, or null when the chain failed to answer. */
const readRail = (rail: ServedRail, now: DateTime.Utc) =>
  ChainGateway.use((gateway) => gateway.hotWallet(rail)).pipe(
    Effect.map(
      (wallet): ReadonlyArray<HotWalletReading> =>
        wallet === null
          ? []
          : wallet.balances.map((b) => ({
              environment: rail.environment,
              chain: rail.chain,
              asset: b.asset,
              address: wallet.address,
              amount: b.amount,
              readAt: now
            }))
    ),
    Effect.catchTag("ChainError", (error) =>
      // a rail with no gateway in this deployment (the sandbox switched off) is not a failure
      error.reason === "unsupported_rail"
        ? Effect.as(Effect.logDebug(`hot wallet: ${rail.environment} ${rail.chain} has no gateway`), null)
        : Effect.as(
            Effect.logWarning(
              `hot wallet: ${rail.environment} ${rail.chain} did not answer (${error.reason}: ${error.message}); its last reading stays`
            ),
            null
          )
    )
  )

/**
 * The workers' pass: reads the hot wallet of every rail served whose last reading is `readEvery`
 * old (or that has none) and stores the balances. Answers how many wallets it stored.
 */
export const watch = Effect.fn("HotWallets.watch")(function* () {
  const repo = yield* HotWalletRepo
  const now = yield* DateTime.now
  const { concurrency } = yield* Lease.Worker
  const lastRead = new Map<string, number>()
  for (const r of yield* repo.list()) {
    const key = `${r.environment}|${r.chain}`
    lastRead.set(key, Math.max(lastRead.get(key) ?? 0, r.readAt.epochMilliseconds))
  }
  const due = (yield* servedRails).filter((rail) => {
    const last = lastRead.get(`${rail.environment}|${rail.chain}`)
    return last === undefined || now.epochMilliseconds - last >= Duration.toMillis(readEvery)
  })
  const read = yield* Effect.forEach(due, (rail) => readRail(rail, now), { concurrency })
  const readings = read.flatMap((r) => r ?? [])
  if (readings.length > 0) yield* repo.save(readings)
  return read.filter((r) => r !== null && r.length > 0).length
})
