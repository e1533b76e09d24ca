/**
 * A synthetic book for `pnpm bench:risk`, drawn from a seeded generator (the same book every run): open locks
 * over every corridor served (9 directions on the 6 market pairs), windows ending up to 180 days out (half
 * already open, half starting later), strikes within −5 %…+3 % of the snapshot's spot rounded as locked rates
 * are, notionals log-uniform from 1,000 to 1,000,000 in either currency, 25 partners, one lock in ten in the
 * sandbox; beside them committed locks (one per 20 open) and exercised ones awaiting their payout (one per 100).
 */
import { DateTime, Option } from "effect"
import { type Direction, directions, marketPair, marketPairKey, pair } from "../src/kernel/Corridor.ts"
import type { ContractStatus } from "../src/terms/Contract.ts"
import * as MarketSnapshot from "../src/market/MarketSnapshot.ts"
import * as Money from "../src/kernel/Money.ts"
import { roundLockedRate } from "../src/pricing/QuotePricer.ts"
import type { Book, BookContract, BookPayout } from "../src/risk/internal/RiskBook.ts"

const dayMs = 86_400_000

/** A small, seeded generator (mulberry32): the same book on every machine. */
const random = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0")
const uuid = (n: number) =>
  `0190a1b2-${hex(Math.floor(n / 0x10000) % 0x10000, 4)}-7${hex(n % 0x1000, 3)}-8000-${hex(n, 12)}`

/**
 * The book, contract by contract, as a host pages through its store: `visit` sees each contract once and keeps
 * what it needs (the benchmark keeps the open locks' terms, not 100,000 records). Answers the payout rows.
 */
export const eachContract = (
  input: {
    readonly openLocks: number
    readonly snapshot: MarketSnapshot.MarketSnapshot
    readonly now: number
    readonly seed?: number
  },
  visit: (contract: BookContract) => void
): ReadonlyArray<BookPayout> => {
  const next = random(input.seed ?? 17)
  const spotOf = (direction: Direction): Money.Decimal => {
    const spot = Option.getOrThrow(MarketSnapshot.spot(input.snapshot, marketPairKey(direction)))
    return marketPair(direction).inverted ? Money.divide(Money.one, spot) : spot
  }
  const spots = new Map(directions.map((d) => [d, Money.toModel(spotOf(d))]))
  const partners = Array.from({ length: 25 }, (_, i) => uuid(0xfff000 + i))
  const payouts: Array<BookPayout> = []
  const committed = Math.floor(input.openLocks / 20)
  const exercised = Math.floor(input.openLocks / 100)
  const total = input.openLocks + committed + exercised
  for (let i = 0; i < total; i++) {
    const status: ContractStatus =
      i < input.openLocks
        ? "active"
        : i < input.openLocks + committed
          ? i % 2
            ? "funds_in_route"
            : "quote_created"
          : "exercised"
    const direction = directions[Math.floor(next() * directions.length)]!
    const { base, quote } = pair(direction)
    // NGN is a corridor currency only: an NGN_TO_USD notional is in USD
    const notionalCurrency = base === "NGN" || next() < 0.5 ? quote : base
    const notionalAmount = Money.roundDown(Money.fromModel(1000 * 1000 ** next()), 2)
    const spot = spots.get(direction)!
    const lockedRate = roundLockedRate(direction, Money.fromModel(spot * (0.95 + 0.08 * next())))
    const end = input.now + 3_600_000 + next() * (180 * dayMs - 3_600_000)
    const start = next() < 0.5 ? input.now - next() * 30 * dayMs : input.now + next() * (end - input.now)
    const id = uuid(i)
    const exercise =
      status === "exercised"
        ? {
            executedAt: DateTime.makeUnsafe(input.now - dayMs),
            liveExecutionRate: roundLockedRate(direction, Money.fromModel(spot * (0.9 + 0.1 * next()))),
            payoutWalletAddress: "PayoutWa11et1111111111111111111111111111111",
            payoutCurrency: "USDC" as const
          }
        : null
    visit({
      id,
      partnerId: partners[Math.floor(next() * partners.length)]!,
      environment: next() < 0.1 ? "sandbox" : "production",
      status,
      direction,
      notionalCurrency: notionalCurrency as BookContract["notionalCurrency"],
      notionalAmount,
      maxTransactionAmount: notionalAmount,
      lockedRate,
      windowStart: DateTime.makeUnsafe(Math.round(start)),
      windowEnd: DateTime.makeUnsafe(Math.round(end)),
      chain: next() < 0.5 ? "solana" : "polygon",
      exercise
    })
    // half the exercised locks already have their payout row
    if (exercise !== null && i % 2 === 0) {
      payouts.push({
        contractId: id,
        chain: "solana",
        currency: "USDC",
        amount: Money.unsafe("1234.560000"),
        status: "pending"
      })
    }
  }
  return payouts
}

/** The whole book in memory. */
export const makeBook = (input: Parameters<typeof eachContract>[0]): Book => {
  const contracts: Array<BookContract> = []
  const payouts = eachContract(input, (c) => contracts.push(c))
  return { contracts, payouts }
}
