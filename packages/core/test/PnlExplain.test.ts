/**
 * The P&L explain on synthetic books, without a store: closes built as the workers build them (`closeBook`) on
 * snapshots moved by hand, and the explain between them. The accuracy case of issue 29 (1,000 locks across every
 * corridor, spot +1 %, vols +1 point, a day apart: unexplained at most 5 % of the total), the quiet day (only
 * theta and new business), realised lines to the unit, and a month that is the sum of its days.
 */
import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, DateTime, Effect, Result } from "effect"
import {
  Corridor,
  CorridorMarket,
  type DailyClose,
  type DailyCloseRepo,
  type HedgeOrder,
  type Ledger,
  MarketSnapshot,
  Money,
  PeriodPnl,
  PnlExplain,
  PnlReport,
  type Risk
} from "@ratelock/core"
// the close's builder is finance's own stage: reached by path, as the risk engine's are
import * as closeBook from "../src/finance/internal/closeBook.ts"
import { dayMs, lockAt } from "./fixtures/book.ts"
import { exampleDocument, exampleNow } from "./fixtures/marketSnapshot.ts"

const t0 = DateTime.makeUnsafe(exampleNow)
const at = (days: number) => DateTime.makeUnsafe(t0.epochMilliseconds + days * dayMs)
const example = Result.getOrThrow(MarketSnapshot.validate(exampleDocument(), { now: exampleNow }))

/** The snapshot observed `days` later with every pair's spot × `spotFactor` and every vol + `volShift`. */
const moved = (
  snapshot: MarketSnapshot.MarketSnapshot,
  move: { readonly days: number; readonly spotFactor?: number; readonly volShift?: number }
): MarketSnapshot.MarketSnapshot => {
  const factor = Money.unsafe(String(move.spotFactor ?? 1))
  const shift = Money.unsafe(String(move.volShift ?? 0))
  return {
    ...snapshot,
    as_of: DateTime.makeUnsafe(snapshot.as_of.epochMilliseconds + move.days * dayMs),
    spot: Object.fromEntries(
      Object.entries(snapshot.spot).map(([pair, s]) => [
        pair,
        BigDecimal.round(Money.multiply(s, factor), { scale: 8, mode: "half-even" })
      ])
    ),
    vols: Object.fromEntries(
      Object.entries(snapshot.vols).map(([pair, pillars]) => [
        pair,
        pillars.map((p) => ({ ...p, atm: Money.sum(p.atm, shift) }))
      ])
    )
  }
}

/** `n` locks spread over every corridor: strikes around the direction's spot, windows open or ahead, 5 to 90 days long. */
const syntheticBook = (snapshot: MarketSnapshot.MarketSnapshot, n: number, from = 0): Risk.Book => ({
  contracts: Array.from({ length: n }, (_, k) => {
    const i = from + k
    const direction = Corridor.directions[i % Corridor.directions.length]!
    const market = CorridorMarket.make(snapshot, direction)
    if (market._tag === "None") throw new Error(`no market for ${direction}`)
    const spot = Money.toModel(market.value.referenceRate)
    // strikes from 4 % out of the money to 2 % in, windows starting up to 10 days ago or 20 ahead
    const strike = spot * (0.96 + ((i * 7) % 7) / 100)
    const start = ((i * 13) % 31) - 10
    return lockAt(snapshot.as_of, {
      id: `lock-${String(i).padStart(5, "0")}`,
      direction,
      notional: String(1_000 + ((i * 7919) % 99_000)),
      strike: strike.toPrecision(6),
      from: start,
      to: Math.max(start, 0) + 5 + ((i * 17) % 86),
      partnerId: `partner-${i % 3}`
    })
  })
})

const closeOf = (
  id: string,
  snapshot: MarketSnapshot.MarketSnapshot,
  book: Risk.Book,
  options: { readonly hedges?: ReadonlyArray<HedgeOrder.HedgeOrder>; readonly previous?: string } = {}
): DailyClose.DailyClose => ({
  // the builder yields between slices of the book; nothing else waits, so it runs to its end at once
  ...Effect.runSync(
    closeBook.build({
      id,
      environment: "production",
      now: snapshot.as_of,
      scheduledFor: null,
      snapshotId: id,
      snapshot,
      book,
      hedges: options.hedges ?? [],
      balances: [],
      previousCloseId: options.previous ?? null
    })
  ),
  pnl: null
})

const explain = (
  earlier: DailyClose.DailyClose,
  later: DailyClose.DailyClose,
  flows: ReadonlyArray<DailyCloseRepo.ContractFlow> = []
) => Effect.runSync(PnlExplain.between({ earlier, later, flows, treasury: [] }))

const num = Money.toModel

/** Equal decimals, whatever their scales. */
const same = (actual: Money.Decimal, expected: Money.Decimal | string, what?: string) =>
  assert.isTrue(
    Money.equals(actual, typeof expected === "string" ? Money.unsafe(expected) : expected),
    `${what ?? "figure"}: ${Money.format(actual)} ≠ ${typeof expected === "string" ? expected : Money.format(expected)}`
  )

/** The identity every period keeps to the unit: total = realised + unrealised = Σ explained + unexplained. */
const assertIdentity = (lines: PeriodPnl.PnlLines) => {
  const explained = PeriodPnl.explainedLines.reduce((sum, name) => Money.sum(sum, lines[name]), lines.unexplained)
  assert.isTrue(
    Money.equals(explained, lines.total),
    `Σ lines ${Money.format(explained)} ≠ ${Money.format(lines.total)}`
  )
  assert.isTrue(Money.equals(Money.sum(lines.realised, lines.unrealised), lines.total))
}

describe("PnlExplain on a synthetic book of 1,000 locks across every corridor", () => {
  const book = syntheticBook(example, 1_000)
  const first = closeOf("c1", example, book)

  const unexplainedShare = (move: { spotFactor: number; volShift: number }) => {
    const second = closeOf("c2", moved(example, { days: 1, ...move }), book, { previous: "c1" })
    const pnl = explain(first, second)
    assertIdentity(pnl.usd)
    for (const pair of pnl.pairs) assertIdentity(pair.usd)
    return { pnl, share: Math.abs(num(pnl.usd.unexplained)) / Math.abs(num(pnl.usd.total)) }
  }

  it("spot +1 % and vols +1 point: the unexplained is at most 5 % of the total", () => {
    const { pnl, share } = unexplainedShare({ spotFactor: 1.01, volShift: 0.01 })
    assert.isTrue(share <= 0.05, `unexplained is ${(share * 100).toFixed(2)} % of the total`)
    // every line the move drives is there
    for (const line of ["theta", "roll", "delta", "gamma", "vega", "vanna", "volga", "fx_translation"] as const) {
      assert.isFalse(Money.isZero(pnl.usd[line]), `${line} is zero`)
    }
    assert.isTrue(Money.isZero(pnl.usd.rates), "the curves did not move")
    assert.isTrue(Money.isZero(pnl.usd.new_business) && Money.isZero(pnl.usd.settled))
  })

  it("spot −1 % and vols −1 point: the same", () => {
    const { share } = unexplainedShare({ spotFactor: 0.99, volShift: -0.01 })
    assert.isTrue(share <= 0.05, `unexplained is ${(share * 100).toFixed(2)} % of the total`)
  })

  it("a curve's move is the rates line: revalued at the new curves, the old spots and vols", () => {
    const shifted = moved(example, { days: 1 })
    const usd = shifted.rates.USD!
    const curves = {
      ...shifted,
      rates: {
        ...shifted.rates,
        USD: { ...usd, points: usd.points.map((p) => ({ ...p, rate: Money.sum(p.rate, Money.unsafe("0.005")) })) }
      }
    }
    const pnl = explain(first, closeOf("c2", curves, book))
    assertIdentity(pnl.usd)
    assert.isFalse(Money.isZero(pnl.usd.rates))
    const share = Math.abs(num(pnl.usd.unexplained)) / Math.abs(num(pnl.usd.total))
    assert.isTrue(share <= 0.05, `unexplained is ${(share * 100).toFixed(2)} % of the total`)
  })
})

describe("PnlExplain on a quiet day", () => {
  const flat = MarketSnapshot.illustrativeAt(t0)
  const book = syntheticBook(flat, 120)
  const sold = syntheticBook(moved(flat, { days: 1 }), 30, 120)
  const premiums = sold.contracts.map((c, i) => ({
    contractId: c.id,
    partnerId: c.partnerId,
    environment: "production" as const,
    direction: c.direction,
    kind: "premium_received" as const,
    account: "premium_income" as const,
    currency: "USDC" as const,
    amount: Money.unsafe(`-${100 + i}.25`),
    at: at(0.5)
  }))

  it("only theta and new business: no market move explains nothing else, and nothing is left unexplained", () => {
    const first = closeOf("c1", flat, book)
    const second = closeOf("c2", moved(flat, { days: 1 }), { contracts: [...book.contracts, ...sold.contracts] })
    const pnl = explain(first, second, premiums)
    assertIdentity(pnl.usd)
    for (const line of [
      "delta",
      "gamma",
      "vega",
      "vanna",
      "volga",
      "rates",
      "settled",
      "hedges",
      "fx_translation"
    ] as const) {
      assert.isTrue(Money.isZero(pnl.usd[line]), `${line} is ${Money.format(pnl.usd[line])}`)
    }
    assert.isFalse(Money.isZero(pnl.usd.theta))
    assert.strictEqual(
      Money.format(pnl.usd.premiums),
      Money.format(premiums.reduce((s, p) => Money.subtract(s, p.amount), Money.zero))
    )
    // rounding to the cent, per pair, is all that is left
    assert.isTrue(Math.abs(num(pnl.usd.unexplained)) <= 0.01 * pnl.pairs.length, Money.format(pnl.usd.unexplained))
    assert.strictEqual(
      pnl.pairs.reduce((n, p) => n + p.locks_sold, 0),
      30
    )
  })
})

describe("PnlExplain's realised lines and a month of closes", () => {
  const flat = MarketSnapshot.illustrativeAt(t0)
  const day = (n: number) => moved(flat, { days: n, spotFactor: 1 + 0.004 * Math.sin(n), volShift: 0.002 * n })
  const lock = (id: string, status: "active" | "exercised" | "settled" | "deposit_forfeited" = "active") =>
    lockAt(t0, { id, direction: "USD_TO_BRL", notional: "25000", strike: "5.35", from: -1, to: 20, status })
  const payout = (contractId: string, amount: string) => ({
    contractId,
    chain: "polygon" as const,
    currency: "USDC" as const,
    amount: Money.unsafe(amount),
    status: "pending" as const
  })
  const flow = (
    contractId: string,
    account: "premium_income" | "forfeited_deposits" | "payout_expense",
    amount: string,
    days: number,
    currency: "USDC" | "EURC" = "USDC"
  ): ReadonlyArray<DailyCloseRepo.ContractFlow> => {
    const kind: Ledger.EntryKind =
      account === "premium_income"
        ? "premium_received"
        : account === "payout_expense"
          ? "payout_paid"
          : "deposit_forfeited"
    const other =
      account === "payout_expense"
        ? "payout_wallet"
        : account === "premium_income"
          ? "partner_prepayment"
          : "deposits_held"
    const signed =
      account === "payout_expense" ? Money.unsafe(amount) : Money.subtract(Money.zero, Money.unsafe(amount))
    const base = {
      contractId,
      partnerId: "partner-a",
      environment: "production" as const,
      direction: "USD_TO_BRL" as const,
      kind,
      currency,
      at: at(days)
    }
    return [
      { ...base, account, amount: signed },
      { ...base, account: other, amount: Money.subtract(Money.zero, signed) }
    ]
  }
  const fill = (
    id: string,
    side: "buy" | "sell",
    amount: string,
    rate: string,
    days: number
  ): HedgeOrder.HedgeOrder => ({
    id,
    environment: "production",
    pair: "EUR/USD",
    side,
    amount: Money.unsafe(amount),
    instrument: "spot",
    valueDate: "2026-12-31",
    status: "filled",
    delta: Money.zero,
    position: Money.zero,
    target: Money.zero,
    targetRatio: Money.zero,
    band: Money.zero,
    deltaSnapshotId: null,
    deltaAsOf: at(days),
    venue: "manual",
    fillRate: Money.unsafe(rate),
    fillAmount: Money.unsafe(amount),
    filledAt: at(days),
    rejectionReason: null,
    createdAt: at(days),
    updatedAt: at(days)
  })

  // day 0: L1 and L2 open. Day 1: L3 sold (premium 812.40 USDC), L1 exercised (payout due 1,234.56), a hedge bought.
  // Day 2: L1's payout paid, L2's deposit forfeited (300), a part of the hedge sold at a profit. Day 3: quiet.
  const books: ReadonlyArray<Risk.Book> = [
    { contracts: [lock("L1"), lock("L2")] },
    { contracts: [lock("L1", "exercised"), lock("L2"), lock("L3")], payouts: [payout("L1", "1234.56")] },
    { contracts: [lock("L3")] },
    { contracts: [lock("L3")] }
  ]
  const hedges = [
    fill("00000000-0000-4000-8000-000000000001", "buy", "10000", "1.08", 0.5),
    fill("00000000-0000-4000-8000-000000000002", "sell", "4000", "1.09", 1.5)
  ]
  const flows: ReadonlyArray<ReadonlyArray<DailyCloseRepo.ContractFlow>> = [
    [],
    flow("L3", "premium_income", "812.40", 0.6),
    [...flow("L1", "payout_expense", "1234.56", 1.2), ...flow("L2", "forfeited_deposits", "300", 1.7)],
    []
  ]
  const closes = books.map((book, n) =>
    closeOf(`c${n}`, day(n), book, {
      hedges: hedges.filter((h) => h.filledAt!.epochMilliseconds <= day(n).as_of.epochMilliseconds)
    })
  )
  const periods = closes.slice(1).map((later, n) => explain(closes[n]!, later, flows[n + 1]))

  it("every realised line is the ledger's, to the unit, and the identity holds in every period and pair", () => {
    for (const p of periods) {
      assertIdentity(p.usd)
      for (const pair of p.pairs) {
        assertIdentity(pair.usd)
        assertIdentity(pair.in_quote)
      }
    }
    const [one, two] = periods as [PeriodPnl.PeriodPnl, PeriodPnl.PeriodPnl]
    assert.strictEqual(Money.format(one.usd.premiums), "812.40")
    same(two.usd.payouts, "-1234.56")
    assert.isTrue(Money.equals(two.usd.forfeits, Money.unsafe("300")))
    same(two.usd.realised, "-894.56")
    // the hedge: 4,000 sold at 1.09 out of 10,000 bought at 1.08, in USD: 40 exactly
    assert.isTrue(Money.equals(two.usd.hedge_realised, Money.unsafe("40")), Money.format(two.usd.hedge_realised))
    // L1 left the book exercised: its payout due is settled against the mtm it was held at
    const held = closes[0]!.locks.find((l) => l.contract_id === "L1")!.mtm * num(closes[0]!.usd_per.BRL)
    same(one.usd.settled, Money.subtract(Money.unsafe("-1234.56"), Money.figure(held)))
    // paid the next day, against what was owed: nothing more to settle on L1; L2's forfeit against its mtm
    const heldL2 = closes[1]!.locks.find((l) => l.contract_id === "L2")!.mtm * num(closes[1]!.usd_per.BRL)
    same(two.usd.settled, Money.subtract(Money.unsafe("300"), Money.figure(heldL2)))
    assert.strictEqual(one.pairs.find((p) => p.pair === "USD/BRL")!.locks_sold, 1)
    assert.deepStrictEqual(
      one.tokens.map((t) => [t.token, Money.format(t.premiums)]),
      [["USDC", "812.40"]]
    )
  })

  it("the month is the sum of its days: realised, unrealised and total to the unit, from its first and last closes", () => {
    const report = PnlReport.of({
      environment: "production",
      from: "2026-01-01",
      to: "2026-12-31",
      by: "day",
      closes: closes.map((c, n) => ({ closed_at: c.closed_at, pnl: n === 0 ? null : periods[n - 1]! }))
    })
    const month = explain(closes[0]!, closes[closes.length - 1]!, flows.flat())
    for (const line of [
      "premiums",
      "forfeits",
      "payouts",
      "hedge_realised",
      "realised",
      "unrealised",
      "total"
    ] as const) {
      same(report.totals[line], month.usd[line], line)
    }
    assert.strictEqual(report.periods, 3)
    same(report.days[report.days.length - 1]!.cumulative_total, report.totals.total)
  })
})
