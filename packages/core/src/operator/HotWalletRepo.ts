/**
 * Persistence port for the workers' last reading of each hot wallet: per environment, chain and
 * asset (`NATIVE`, the chain's own currency that pays the fees, or a token served), the wallet's
 * address, its balance as an exact decimal, and when it was read. The hot-wallet pass writes them
 * every minute (`HotWallets.watch`); the treasury view, the status and the gauges read them, so no
 * request waits on a chain.
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"
import { Chain, FundsCurrency } from "../kernel/Rail.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import { Environment } from "../terms/Partner.ts"

/** What a hot wallet holds: its chain's native currency (`NATIVE`) or a token. */
export const HotWalletAsset = Schema.Literals(["NATIVE", ...FundsCurrency.literals])
export type HotWalletAsset = typeof HotWalletAsset.Type

export const HotWalletReading = Schema.Struct({
  environment: Environment,
  chain: Chain,
  asset: HotWalletAsset,
  /** The wallet read (as the gateway wrote it). */
  address: Schema.String,
  /** Its balance of `asset`, exact (a token's decimals, the native currency's 18 or 9). */
  amount: Schema.BigDecimal,
  readAt: Schema.DateTimeUtc
}).annotate({ identifier: "HotWalletReading" })
export type HotWalletReading = typeof HotWalletReading.Type

export interface HotWalletRepoShape {
  /**
   * Records these readings in one write, each replacing the one of its environment, chain and asset
   * unless that one was read later (a slow worker's reading never hides a newer one). Of readings
   * of one key in one call, the latest counts (`latestOfEach`).
   */
  readonly save: (readings: ReadonlyArray<HotWalletReading>) => Effect.Effect<void, StoreError>
  /** Every stored reading, by environment, chain, then asset (`NATIVE` first, then tokens by name). */
  readonly list: () => Effect.Effect<ReadonlyArray<HotWalletReading>, StoreError>
}

export class HotWalletRepo extends Context.Service<HotWalletRepo, HotWalletRepoShape>()(
  "@ratelock/core/HotWalletRepo"
) {}

type RailAsset = Pick<HotWalletReading, "environment" | "chain" | "asset">

/** The order `list` answers in: environment, chain, then `NATIVE` before the tokens, tokens by name. */
export const compare = (a: RailAsset, b: RailAsset): number =>
  a.environment !== b.environment
    ? a.environment < b.environment
      ? -1
      : 1
    : a.chain !== b.chain
      ? a.chain < b.chain
        ? -1
        : 1
      : a.asset === b.asset
        ? 0
        : a.asset === "NATIVE"
          ? -1
          : b.asset === "NATIVE"
            ? 1
            : a.asset < b.asset
              ? -1
              : 1

/** Of readings of the same environment, chain and asset, the latest (the last given, on a tie). */
export const latestOfEach = (readings: ReadonlyArray<HotWalletReading>): ReadonlyArray<HotWalletReading> => {
  const latest = new Map<string, HotWalletReading>()
  for (const r of readings) {
    const key = `${r.environment}|${r.chain}|${r.asset}`
    const held = latest.get(key)
    if (held === undefined || held.readAt.epochMilliseconds <= r.readAt.epochMilliseconds) latest.set(key, r)
  }
  return [...latest.values()]
}
