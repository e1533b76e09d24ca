/**
 * What a revaluation prices, fixed once per (snapshot, instant, scenarios): per market pair, the snapshot's
 * spot, each direction's curves and smile, and the distinct market moves every lock on the pair is priced
 * under: none, the greeks' bumps (risk.md: ±1 % relative spot, +1 vol point on every pillar, one calendar
 * day), and each scenario's move of the pair. Moves two scenarios share (crash_combo and vol_plus_5 on
 * EUR/BRL) are priced once; a scenario that leaves a pair alone prices nothing there.
 *
 * Pure and deterministic: the same inputs make the same plan, so worker threads can each make it and price
 * their slice of the book.
 */
import {
  type Currency,
  type Direction,
  directions,
  marketPair,
  marketPairCurrencies,
  marketPairKey
} from "../../kernel/Corridor.ts"
import * as CorridorMarket from "../../market/CorridorMarket.ts"
import * as MarketSnapshot from "../../market/MarketSnapshot.ts"
import * as Money from "../../kernel/Money.ts"
import * as Pricing from "../../pricing/Pricing.ts"
import * as RiskScenario from "../RiskScenario.ts"
import * as VolSurface from "../../market/VolSurface.ts"

/** Delta and gamma bump the pair's spot by ±1 % relative (risk.md). */
export const spotBump = 0.01
/** Vega: +1 vol point on every pillar. */
export const volBump = 0.01
/** Theta: one calendar day later. */
export const thetaMillis = 86_400_000

/** One market move: the pair's rate (usual order) times `spotFactor`, vols plus `volShift`, `days` later. */
export interface Move {
  readonly spotFactor: number
  readonly volShift: number
  readonly days: number
}

/** Indices of the moves every plan starts with: `none`, and with greeks the four bumps. */
export const moveIndex = { none: 0, spotUp: 1, spotDown: 2, vol: 3, nextDay: 4 } as const

/**
 * Indices of the moves a plan with `crossGreeks` adds after the greeks' (a close's, for the P&L explain's second
 * order): both spot bumps with the vol bump (vanna), and the vol bumped down (volga).
 */
export const crossMoveIndex = { spotUpVol: 5, spotDownVol: 6, volDown: 7 } as const

const none: Move = { spotFactor: 1, volShift: 0, days: 0 }
const greekMoves: ReadonlyArray<Move> = [
  none,
  { spotFactor: 1 + spotBump, volShift: 0, days: 0 },
  { spotFactor: 1 - spotBump, volShift: 0, days: 0 },
  { spotFactor: 1, volShift: volBump, days: 0 },
  { spotFactor: 1, volShift: 0, days: 1 }
]
const crossMoves: ReadonlyArray<Move> = [
  { spotFactor: 1 + spotBump, volShift: volBump, days: 0 },
  { spotFactor: 1 - spotBump, volShift: volBump, days: 0 },
  { spotFactor: 1, volShift: -volBump, days: 0 }
]

export interface DirectionMarket {
  readonly inverted: boolean
  /** The snapshot's spot in the direction's terms (`1 / spot` when inverted, `CorridorMarket.referenceRate`). */
  readonly spot: number
  /** The direction's curves and smile under each vol shift the pair's moves use. */
  readonly curves: ReadonlyMap<number, CorridorMarket.Curves>
}

export interface PairPlan {
  readonly pair: string
  readonly base: Currency
  readonly quote: Currency
  /** The snapshot's mid, QUOTE per 1 BASE in the pair's usual order. */
  readonly spot: number
  /** The distinct moves priced for each lock on the pair (see `moveIndex`). */
  readonly moves: ReadonlyArray<Move>
  /** Per scenario, the index of its move in `moves` (`moveIndex.none` when it leaves the pair alone). */
  readonly scenarioMoves: ReadonlyArray<number>
  /**
   * Per move, the first move at the same instant (`days`), and the first at the same instant with the same vol
   * shift: what of a lock's inputs the move shares with them (`LockRisk.unitValues` reads it once).
   */
  readonly shared: ReadonlyArray<{ readonly instant: number; readonly surface: number }>
  readonly directions: ReadonlyMap<Direction, DirectionMarket>
}

/** A window-option engine: the value per 1 BASE of a put (`Pricing.bookWindowOption` or `Pricing.windowOption`). */
export type Engine = (input: Pricing.WindowOptionInput) => number

export interface RiskPlan {
  /** The instant of the revaluation, epoch milliseconds. */
  readonly now: number
  /** What prices every lock under every move: the book's engine unless the plan was made with another. */
  readonly engine: Engine
  readonly greeks: boolean
  /** With the greeks, the cross moves too (`crossMoveIndex`). */
  readonly crossGreeks: boolean
  readonly scenarios: ReadonlyArray<RiskScenario.Scenario>
  /** Every market pair served, in `MarketSnapshot.servedPairs` order. */
  readonly pairs: ReadonlyMap<string, PairPlan>
  /** USD per 1 unit of each currency served, at the snapshot's mids. */
  readonly usdPer: ReadonlyMap<Currency, number>
  /** The same at each scenario's shocked spots. */
  readonly scenarioUsdPer: ReadonlyArray<ReadonlyMap<Currency, number>>
}

/** USD per 1 `currency` from the pairs' spots: each currency served trades against USD directly. */
const usdRates = (spots: ReadonlyMap<string, number>): ReadonlyMap<Currency, number> =>
  new Map(
    MarketSnapshot.servedCurrencies.map((currency) => {
      if (currency === "USD") return [currency, 1]
      const direct = spots.get(`${currency}/USD`)
      const inverse = spots.get(`USD/${currency}`)
      if (direct !== undefined) return [currency, direct]
      if (inverse !== undefined) return [currency, 1 / inverse]
      throw new Error(`no market pair of ${currency} against USD`)
    })
  )

const indexOf = (moves: Array<Move>, move: Move): number => {
  const found = moves.findIndex(
    (m) => m.spotFactor === move.spotFactor && m.volShift === move.volShift && m.days === move.days
  )
  if (found >= 0) return found
  moves.push(move)
  return moves.length - 1
}

/**
 * The plan for revaluing a book on `snapshot` at `now` (epoch ms): with the greeks' bumps when `greeks`, and
 * each of `scenarios`. Throws when the snapshot lacks a served pair's spot, curve or vols (a validated
 * snapshot never does).
 */
export const make = (input: {
  readonly snapshot: MarketSnapshot.MarketSnapshot
  readonly now: number
  readonly greeks: boolean
  /** With `greeks`, vanna's and volga's moves too. */
  readonly crossGreeks?: boolean | undefined
  readonly scenarios: ReadonlyArray<RiskScenario.Scenario>
  /** `Pricing.bookWindowOption` when not given. */
  readonly engine?: Engine | undefined
}): RiskPlan => {
  const { snapshot, scenarios } = input
  const crossGreeks = input.greeks && input.crossGreeks === true
  const scenarioPairMoves = scenarios.map(RiskScenario.pairMoves)
  const spots = new Map<string, number>()
  const pairs = new Map<string, PairPlan>()
  for (const pair of MarketSnapshot.servedPairs) {
    const { base, quote } = marketPairCurrencies(pair)
    const spot = MarketSnapshot.spot(snapshot, pair)
    if (spot._tag === "None") throw new Error(`the snapshot has no spot for ${pair}`)
    spots.set(pair, Money.toModel(spot.value))
    const moves = input.greeks ? [...greekMoves, ...(crossGreeks ? crossMoves : [])] : [none]
    const scenarioMoves = scenarioPairMoves.map((byPair) => {
      const move = byPair.get(pair)!
      return move.spotFactor === 1 && move.volShift === 0 ? moveIndex.none : indexOf(moves, { ...move, days: 0 })
    })
    const volShifts = [...new Set(moves.map((m) => m.volShift))]
    const markets = new Map<Direction, DirectionMarket>()
    for (const direction of directions.filter((d) => marketPairKey(d) === pair)) {
      const market = CorridorMarket.make(snapshot, direction)
      if (market._tag === "None") throw new Error(`the snapshot lacks a curve or vols for ${direction}`)
      const { value } = market
      markets.set(direction, {
        inverted: marketPair(direction).inverted,
        spot: Money.toModel(value.referenceRate),
        curves: new Map(volShifts.map((shift) => [shift, { ...value, vols: VolSurface.shifted(value.vols, shift) }]))
      })
    }
    const shared = moves.map((move) => ({
      instant: moves.findIndex((m) => m.days === move.days),
      surface: moves.findIndex((m) => m.days === move.days && m.volShift === move.volShift)
    }))
    pairs.set(pair, { pair, base, quote, spot: spots.get(pair)!, moves, scenarioMoves, shared, directions: markets })
  }
  return {
    now: input.now,
    engine: input.engine ?? Pricing.bookWindowOption,
    greeks: input.greeks,
    crossGreeks,
    scenarios,
    pairs,
    usdPer: usdRates(spots),
    scenarioUsdPer: scenarioPairMoves.map((byPair) =>
      usdRates(new Map([...spots].map(([pair, spot]) => [pair, spot * byPair.get(pair)!.spotFactor])))
    )
  }
}
