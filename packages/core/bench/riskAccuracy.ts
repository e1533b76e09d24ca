/**
 * `pnpm bench:risk --accuracy N`: how far the book's engine (`Pricing.bookWindowOption`) moves the book's
 * figures from what the quotes' engine (`Pricing.windowOption`) and the reference (`reference.ts`, the
 * 10,000-step CRR of `pnpm bench`) give.
 *
 * 1. The first N open locks of the synthetic book, each priced under every move of its pair's plan (the value,
 *    ±1 % spot, +1 vol point, +1 day, every default scenario that moves the pair) by both engines and the
 *    reference: the error of each price in bp of notional (`|v − v_ref| / spot × 10⁴`), and of each lock's
 *    greeks as risk.md defines them from those prices (per 1 BASE of notional: delta in BASE, gamma the change
 *    of delta for +1 %, vega and theta in bp of notional).
 * 2. A 10,000-lock book with each engine: each lock's figures (the largest difference and the 99th percentile),
 *    and the report per pair, the book engine's against the quotes' (both within a bound of the reference, so
 *    this is how much the engine choice moves them).
 * 3. What delta and gamma from a lattice's root would move: risk.md's ±1 % central differences against the
 *    derivatives (what root greeks tend to), on the same book's production locks in their pair's usual order,
 *    each valued as a European put at its own vol (Garman–Kohlhagen: smooth, so the gap is the bump's alone).
 * 4. A sweep the book's scenarios reach: puts on USD against the highest carry served (BRL, and MXN), from 3 %
 *    out of to 25 % in the money, windows of 20 to 180 days opening now or a third of the way in, priced by
 *    both engines and the reference (816 prices: about a minute).
 */
import { DateTime } from "effect"
import * as CorridorMarket from "../src/market/CorridorMarket.ts"
import { unitValues } from "../src/risk/internal/LockRisk.ts"
import type * as MarketSnapshot from "../src/market/MarketSnapshot.ts"
import * as Money from "../src/kernel/Money.ts"
import { bookWindowOption, garmanKohlhagen, type WindowOptionInput, windowOption } from "../src/pricing/Pricing.ts"
import * as RateCurve from "../src/market/RateCurve.ts"
import * as Risk from "../src/risk/Risk.ts"
import * as RiskBook from "../src/risk/internal/RiskBook.ts"
import { moveIndex, type RiskPlan } from "../src/risk/internal/RiskPlan.ts"
import type * as RiskReport from "../src/risk/RiskReport.ts"
import type * as RiskScenario from "../src/risk/RiskScenario.ts"
import { errorBp, referencePrice, referenceSteps } from "./reference.ts"
import { eachContract, makeBook } from "./riskBook.ts"

interface LockFigures {
  readonly value: number
  readonly delta: number
  readonly gamma: number
  readonly vega: number
  readonly theta: number
}

/** A lock's figures per 1 BASE of its direction, from its values under the plan's moves (risk.md's bumps). */
const lockFigures = (plan: RiskPlan, lock: RiskBook.LockTerms, values: Float64Array): LockFigures => {
  const pair = plan.pairs.get(lock.pair)!
  const market = pair.directions.get(lock.direction)!
  // the direction's spot under a move: the pair's rate times the factor, divided when inverted
  const spotAt = (k: number) =>
    market.inverted ? market.spot / pair.moves[k]!.spotFactor : market.spot * pair.moves[k]!.spotFactor
  const up = values[moveIndex.spotUp]!
  const down = values[moveIndex.spotDown]!
  const base = values[moveIndex.none]!
  const bp = 1e4 / market.spot
  return {
    value: base * bp,
    delta: (up - down) / (spotAt(moveIndex.spotUp) - spotAt(moveIndex.spotDown)),
    gamma: (up - 2 * base + down) / (0.5 * (spotAt(moveIndex.spotUp) - spotAt(moveIndex.spotDown))),
    vega: (values[moveIndex.vol]! - base) * bp,
    theta: (values[moveIndex.nextDay]! - base) * bp
  }
}

const figureNames = ["value", "delta", "gamma", "vega", "theta"] as const

const relative = (a: number, b: number) => (a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)))

export const run = (input: {
  readonly locks: number
  readonly snapshot: MarketSnapshot.MarketSnapshot
  readonly now: number
  readonly scenarios: ReadonlyArray<RiskScenario.Scenario>
}) => {
  const now = DateTime.makeUnsafe(input.now)
  const planWith = (engine: RiskPlan["engine"]) =>
    Risk.plan({ snapshot: input.snapshot, now, greeks: true, scenarios: input.scenarios, engine })
  const plans = {
    reference: planWith(referencePrice),
    quote: planWith(windowOption),
    book: planWith(bookWindowOption)
  }

  // 1. prices and each lock's greeks against the reference
  const locks: Array<RiskBook.LockTerms> = []
  eachContract({ openLocks: input.locks, snapshot: input.snapshot, now: input.now }, (contract) => {
    if (RiskBook.standing(contract) === "open") locks.push(RiskBook.lockTerms(contract))
  })
  const priceErrors = { quote: { max: 0, sum: 0 }, book: { max: 0, sum: 0 } }
  const greekErrors = {
    quote: { value: 0, delta: 0, gamma: 0, vega: 0, theta: 0 },
    book: { value: 0, delta: 0, gamma: 0, vega: 0, theta: 0 }
  }
  const magnitude = { value: 0, delta: 0, gamma: 0, vega: 0, theta: 0 }
  let prices = 0
  let worst = ""
  const started = performance.now()
  locks.forEach((lock, i) => {
    const pair = plans.reference.pairs.get(lock.pair)!
    const market = pair.directions.get(lock.direction)!
    const reference = unitValues(plans.reference, lock)
    const reached = lockFigures(plans.reference, lock, reference)
    for (const name of figureNames) magnitude[name] += Math.abs(reached[name]) / locks.length
    for (const engine of ["quote", "book"] as const) {
      const values = unitValues(plans[engine], lock)
      values.forEach((v, k) => {
        const spot = market.inverted ? market.spot / pair.moves[k]!.spotFactor : market.spot * pair.moves[k]!.spotFactor
        const bp = errorBp(v, reference[k]!, spot)
        const errors = priceErrors[engine]
        errors.sum += bp
        if (bp > errors.max) {
          errors.max = bp
          if (engine === "book") worst = `${lock.direction} K/S ${(lock.strike / spot).toFixed(3)}, move ${k}`
        }
      })
      const figures = lockFigures(plans[engine], lock, values)
      for (const name of figureNames) {
        greekErrors[engine][name] = Math.max(greekErrors[engine][name], Math.abs(figures[name] - reached[name]))
      }
    }
    prices += reference.length
    if (i % 10 === 9) {
      console.log(`  ${i + 1}/${locks.length} locks (${((performance.now() - started) / 1000).toFixed(0)} s)`)
    }
  })
  console.log("")
  console.log(
    `${locks.length} locks of the book, every move: ${prices} prices against a ${referenceSteps.toLocaleString("en-US")}-step CRR`
  )
  console.log(
    "engine".padEnd(30) +
      "max err bp".padStart(11) +
      "mean err bp".padStart(12) +
      "  largest error of a lock's figure (delta, gamma per 1 BASE; value, vega, theta in bp)"
  )
  for (const [name, engine] of [
    ["windowOption (quotes)", "quote"],
    ["bookWindowOption (the book)", "book"]
  ] as const) {
    const g = greekErrors[engine]
    console.log(
      name.padEnd(30) +
        priceErrors[engine].max.toFixed(4).padStart(11) +
        (priceErrors[engine].sum / prices).toFixed(4).padStart(12) +
        `  value ${g.value.toFixed(3)}, delta ${g.delta.toFixed(5)}, gamma ${g.gamma.toFixed(5)}, vega ${g.vega.toFixed(3)}, theta ${g.theta.toFixed(3)}`
    )
  }
  console.log(
    `mean size of a lock's figure (reference): value ${magnitude.value.toFixed(1)}, delta ${magnitude.delta.toFixed(4)}, ` +
      `gamma ${magnitude.gamma.toFixed(4)}, vega ${magnitude.vega.toFixed(2)}, theta ${magnitude.theta.toFixed(2)}; book engine's worst price: ${worst}`
  )

  // 2. a whole book's report with each engine
  const size = 10_000
  const book = makeBook({ openLocks: size, snapshot: input.snapshot, now: input.now })
  const report = (engine: RiskPlan["engine"]) => {
    const plan = planWith(engine)
    const sums = Risk.sumLocks(plan, RiskBook.openLocks(book, ["production"]))
    return Risk.reportFrom({
      book,
      snapshot: input.snapshot,
      now,
      plan,
      sums,
      options: { environments: ["production"] }
    })[0]!
  }
  const quote = report(windowOption)
  const bookEngine = report(bookWindowOption)
  lockDifferences(RiskBook.openLocks(book, ["production"]), planWith(windowOption), planWith(bookWindowOption))
  const num = (d: Money.Decimal) => Money.toModel(d)
  const pairFigures = ["mtm", "delta", "gamma", "vega", "theta"] as const
  console.log("")
  console.log(
    `the ${size.toLocaleString("en-US")}-lock book's production report per pair: the quotes' engine's figure, and the book engine's difference from it ` +
      "(relative, and in bp of the pair's open notional: BASE units for delta and gamma, QUOTE at spot for the others)"
  )
  console.log("pair".padEnd(8) + pairFigures.map((name) => name.padStart(36)).join(""))
  for (const p of quote.pairs) {
    const b = bookEngine.pairs.find((q) => q.pair === p.pair)!
    const notional = num(p.open_notional)
    const cells = pairFigures.map((name) => {
      const q = num(p[name])
      const diff = num(b[name]) - q
      const scale = name === "delta" || name === "gamma" ? notional : notional * num(p.spot)
      const cell = `${Money.format(p[name])} ${(100 * relative(q, num(b[name]))).toFixed(3)}% ${((1e4 * diff) / scale).toFixed(3)}bp`
      return cell.padStart(36)
    })
    console.log(p.pair.padEnd(8) + cells.join(""))
  }
  const byName = (results: ReadonlyArray<RiskReport.StressResult>) => new Map(results.map((s) => [s.name, s]))
  const bookStress = byName(bookEngine.stress)
  console.log(
    "scenarios, mtm change in USD (quotes' engine, book engine's relative difference): " +
      quote.stress
        .map((s) => {
          const b = num(bookStress.get(s.name)!.mtm_change_usd)
          return `${s.name} ${Money.format(s.mtm_change_usd)} ${(100 * relative(num(s.mtm_change_usd), b)).toFixed(3)}%`
        })
        .join(", ")
  )

  rootGap(input.snapshot, input.now, book)
  deepSweep()
}

/** Part 4: the worst price error of each engine over puts on USD deep in the money at high carry. */
const deepSweep = () => {
  const now = Date.UTC(2026, 2, 2, 9, 0)
  const day = 86_400_000
  const usd: RateCurve.Leg = { currency: "USD", rate: 0.0375 }
  const quotes: ReadonlyArray<readonly [RateCurve.Leg, number, number]> = [
    [{ currency: "BRL", rate: 0.1425 }, 5.4, 0.14],
    [{ currency: "MXN", rate: 0.07 }, 18.5, 0.12],
    [{ currency: "BRL", rate: 0.1425 }, 5.4, 0.19]
  ]
  const cases: Array<{ readonly label: string; readonly input: WindowOptionInput }> = []
  for (const [quote, spot, volatility] of quotes) {
    for (let days = 20; days <= 180; days += 10) {
      for (const from of [0, Math.round(days * 0.3)]) {
        const t1 = now + from * day
        const t2 = now + days * day
        const rate = (leg: RateCurve.Leg) =>
          RateCurve.continuousRate(
            RateCurve.discountFactor({ ...leg, from: now, to: t2 }),
            RateCurve.yearFraction365(now, t2)
          )
        const fair = RateCurve.cipFairStrike({
          spot,
          domestic: quote,
          foreign: usd,
          now,
          windowStart: t1,
          windowEnd: t2
        })
        for (const factor of [0.97, 1, 1.04, 1.08, 1.12, 1.16, 1.2, 1.25]) {
          cases.push({
            label: `USD/${quote.currency} σ ${volatility} ${factor}F [${from}, ${days}]`,
            input: {
              spot,
              strike: factor * fair,
              domesticRate: rate(quote),
              foreignRate: rate(usd),
              volatility,
              windowStartYears: RateCurve.yearFraction365(now, t1),
              windowEndYears: RateCurve.yearFraction365(now, t2),
              kind: "put"
            }
          })
        }
      }
    }
  }
  const worst = { quote: { bp: 0, label: "" }, book: { bp: 0, label: "" } }
  for (const { label, input } of cases) {
    const reference = referencePrice(input)
    for (const [engine, price] of [
      ["quote", windowOption],
      ["book", bookWindowOption]
    ] as const) {
      const bp = errorBp(price(input), reference, input.spot)
      if (bp > worst[engine].bp) worst[engine] = { bp, label }
    }
  }
  console.log("")
  console.log(
    `${cases.length} puts on USD against BRL and MXN, 3 % out of to 25 % in the money, 20 to 180 days: worst error ` +
      `${worst.book.bp.toFixed(3)} bp with the book's engine (${worst.book.label}), ${worst.quote.bp.toFixed(3)} bp with the quotes' (${worst.quote.label})`
  )
}

/** Part 2, lock by lock: each figure's difference between the engines, its largest and its 99th percentile. */
const lockDifferences = (locks: ReadonlyArray<RiskBook.LockTerms>, quotePlan: RiskPlan, bookPlan: RiskPlan) => {
  const quote = Risk.valueLocks(quotePlan, locks)
  const book = Risk.valueLocks(bookPlan, locks)
  // per 1 BASE of the pair for delta and gamma, bp of that notional at spot for the others
  const differences = { mtm: [] as Array<number>, delta: [] as Array<number>, gamma: [] as Array<number> }
  const bp = { vega: [] as Array<number>, theta: [] as Array<number> }
  let relativeGamma: Array<number> = []
  locks.forEach((lock, i) => {
    const q = quote[i]!
    const b = book[i]!
    const notional = RiskBook.pairNotional(lock)
    const atSpot = notional * quotePlan.pairs.get(lock.pair)!.spot
    differences.mtm.push((1e4 * Math.abs(b.mtm - q.mtm)) / atSpot)
    differences.delta.push(Math.abs(b.greeks!.delta - q.greeks!.delta) / notional)
    differences.gamma.push(Math.abs(b.greeks!.gamma - q.greeks!.gamma) / notional)
    bp.vega.push((1e4 * Math.abs(b.greeks!.vega - q.greeks!.vega)) / atSpot)
    bp.theta.push((1e4 * Math.abs(b.greeks!.theta - q.greeks!.theta)) / atSpot)
    relativeGamma.push(Math.abs(b.greeks!.gamma - q.greeks!.gamma) / Math.abs(q.greeks!.gamma))
  })
  const at = (xs: Array<number>, p: number) => [...xs].sort((x, y) => x - y)[Math.floor(p * (xs.length - 1))]!
  const cell = (xs: Array<number>, digits: number) =>
    `${at(xs, 1).toFixed(digits)} (99 %: ${at(xs, 0.99).toFixed(digits)})`
  relativeGamma = relativeGamma.filter(Number.isFinite)
  console.log("")
  console.log(
    `${locks.length.toLocaleString("en-US")} locks, each lock's figure with the book engine against the quotes' engine, largest difference (and 99th percentile): ` +
      `mtm ${cell(differences.mtm, 3)} bp, delta ${cell(differences.delta, 4)} and gamma ${cell(differences.gamma, 4)} per 1 BASE, ` +
      `vega ${cell(bp.vega, 3)} bp, theta ${cell(bp.theta, 3)} bp; gamma relative to itself: 90 % within ${(100 * at(relativeGamma, 0.9)).toFixed(1)} %, 99 % within ${(100 * at(relativeGamma, 0.99)).toFixed(1)} %`
  )
}

/** Part 3: per pair and per window length, Σ derivative-based delta and gamma against the ±1 % ones. */
const rootGap = (snapshot: MarketSnapshot.MarketSnapshot, now: number, book: RiskBook.Book) => {
  const plan = Risk.plan({ snapshot, now: DateTime.makeUnsafe(now), greeks: false, scenarios: [] })
  interface Gap {
    locks: number
    far: number
    bumpDelta: number
    rootDelta: number
    bumpGamma: number
    rootGamma: number
  }
  const groups = new Map<string, Gap>()
  const add = (key: string, bump: readonly [number, number], root: readonly [number, number], far: boolean) => {
    const g = groups.get(key) ?? { locks: 0, far: 0, bumpDelta: 0, rootDelta: 0, bumpGamma: 0, rootGamma: 0 }
    g.locks++
    if (far) g.far++
    g.bumpDelta += bump[0]
    g.rootDelta += root[0]
    g.bumpGamma += bump[1]
    g.rootGamma += root[1]
    groups.set(key, g)
  }
  for (const lock of RiskBook.openLocks(book, ["production"])) {
    if (lock.inverted) continue
    const pair = plan.pairs.get(lock.pair)!
    const market = pair.directions.get(lock.direction)!
    const times = CorridorMarket.windowTimes(market.curves.get(0)!, {
      now,
      windowStart: lock.windowStart,
      windowEnd: lock.windowEnd
    })
    const w = CorridorMarket.windowInputsAt(
      times,
      CorridorMarket.expiryVols(market.curves.get(0)!, times),
      market.spot,
      lock.strike
    )
    const value = (spot: number) =>
      -lock.notionalBase * garmanKohlhagen({ ...w, spot, years: w.windowEndYears, kind: "put" })
    const s = market.spot
    const h = 1e-4 * s
    // risk.md: (mtm(+1 %) − mtm(−1 %)) / 2 % of S, and (mtm(+1 %) − 2 mtm + mtm(−1 %)) / 1 % of S
    const bump = [
      (value(1.01 * s) - value(0.99 * s)) / (0.02 * s),
      (value(1.01 * s) - 2 * value(s) + value(0.99 * s)) / (0.01 * s)
    ] as const
    // the derivatives: Δ, and Γ × 1 % of S (the change of delta for +1 % to first order)
    const root = [
      (value(s + h) - value(s - h)) / (2 * h),
      ((value(s + h) - 2 * value(s) + value(s - h)) / (h * h)) * 0.01 * s
    ] as const
    const far = Math.abs(root[1] - bump[1]) > 0.01 * Math.abs(bump[1])
    const days = w.windowEndYears * 365
    add(lock.pair, bump, root, far)
    add(
      days < 7 ? "under 7 days" : days < 30 ? "7 to 30 days" : days < 90 ? "30 to 90 days" : "90 to 180 days",
      bump,
      root,
      far
    )
  }
  const pct = (root: number, bump: number) => `${((100 * (root - bump)) / Math.abs(bump)).toFixed(2)} %`
  console.log("")
  console.log(
    "delta and gamma from derivatives (a lattice root's limit) against risk.md's ±1 % differences, European proxy, production locks in the pair's order:"
  )
  const windowsLast = [...groups].sort(([a], [b]) => Number(a.includes("days")) - Number(b.includes("days")))
  for (const [key, g] of windowsLast) {
    console.log(
      `  ${key.padEnd(15)} ${String(g.locks).padStart(6)} locks: Σ delta ${pct(g.rootDelta, g.bumpDelta).padStart(8)}, Σ gamma ${pct(g.rootGamma, g.bumpGamma).padStart(8)}; ` +
        `${g.far} locks with their gamma more than 1 % off`
    )
  }
}
