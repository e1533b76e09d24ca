/**
 * One open lock revalued (risk.md, Figures): a short window put on `N_b` BASE struck at K over
 * `[max(now, t1), t2]`, from the market inputs a quote's price takes (`CorridorMarket.windowInputs`) but at the
 * snapshot's spot, into the book's engine (`Pricing.bookWindowOption`: the quotes' lattice on half its steps,
 * within 1 bp of notional of the reference), then again under each move of its pair's plan.
 *
 * Signs are the service's: it is short the put, so its `mtm` is `−N_b × V ≤ 0`.
 *
 * Units. A lock's figures are in its market pair's usual order, so that a pair's figures add up across both
 * directions: `mtm`, `vega`, `theta` in the pair's QUOTE; `delta`, `gamma` in the pair's BASE. A lock whose
 * direction is the pair's inverse (`BRL_TO_USD` on USD/BRL: a put on BRL, valued in USD) has its value
 * converted into the pair's QUOTE at the (moved) pair rate before it is differenced, so its delta is the change
 * of its BRL value per unit of USD/BRL: negative, since the service loses when BRL falls, i.e. when USD/BRL
 * rises. `corridorMtm` and `corridorDelta` are the same lock in its own direction's terms (QUOTE and BASE of
 * the direction): the delta there is positive for every lock, as risk.md states for short puts.
 *
 * All model floats; the report crosses them into decimals once (`RiskReport`).
 */
import * as CorridorMarket from "../../market/CorridorMarket.ts"
import type * as VolSurface from "../../market/VolSurface.ts"
import type { LockTerms } from "./RiskBook.ts"
import { crossMoveIndex, moveIndex, type RiskPlan, spotBump, thetaMillis } from "./RiskPlan.ts"

/**
 * The engine's value per 1 BASE of the lock's direction (in its QUOTE) under each move of its pair's plan, in
 * the order of `PairPlan.moves`: `CorridorMarket.windowInputs` into the plan's engine, the inputs'
 * parts that a move leaves alone (discount factors and rates, at each instant; the smile, at each vol shift)
 * read once per lock.
 */
export const unitValues = (plan: RiskPlan, lock: LockTerms): Float64Array => {
  const pair = plan.pairs.get(lock.pair)!
  const market = pair.directions.get(lock.direction)!
  const { moves, shared } = pair
  const values = new Float64Array(moves.length)
  const times = new Array<CorridorMarket.WindowTimes>(moves.length)
  const vols = new Array<VolSurface.AtExpiry>(moves.length)
  for (let k = 0; k < moves.length; k++) {
    const move = moves[k]!
    const curves = market.curves.get(move.volShift)!
    const { instant, surface } = shared[k]!
    const at =
      instant === k
        ? CorridorMarket.windowTimes(curves, {
            now: plan.now + move.days * thetaMillis,
            windowStart: lock.windowStart,
            windowEnd: lock.windowEnd
          })
        : times[instant]!
    const smile = surface === k ? CorridorMarket.expiryVols(curves, at) : vols[surface]!
    times[k] = at
    vols[k] = smile
    // the pair's rate times the factor: the direction's spot divided by it when inverted
    const spot = market.inverted ? market.spot / move.spotFactor : market.spot * move.spotFactor
    const inputs = CorridorMarket.windowInputsAt(at, smile, spot, lock.strike)
    values[k] = plan.engine({ ...inputs, kind: "put" })
  }
  return values
}

/**
 * The lock's smile vol from now on (`CorridorMarket.windowInputs`' `volatility`: the smile at its strike and the
 * window's end, around the forward there), unmoved: what a close records, so the next one can say how much of a
 * lock's change came from its own vol moving (the P&L explain's vega line).
 */
export const volatility = (plan: RiskPlan, lock: LockTerms): number => {
  const market = plan.pairs.get(lock.pair)!.directions.get(lock.direction)!
  const curves = market.curves.get(0)!
  const at = CorridorMarket.windowTimes(curves, {
    now: plan.now,
    windowStart: lock.windowStart,
    windowEnd: lock.windowEnd
  })
  return CorridorMarket.windowInputsAt(at, CorridorMarket.expiryVols(curves, at), market.spot, lock.strike).volatility
}

export interface LockGreeks {
  /** `mtm(+1 %) − mtm(−1 %)` over 2 % of the pair's spot: pair BASE units. */
  readonly delta: number
  /** The change of delta for +1 % of spot, `(mtm(+1 %) − 2·mtm + mtm(−1 %)) / (1 % of spot)`: pair BASE units. */
  readonly gamma: number
  /** `mtm(vols + 1 point) − mtm`: pair QUOTE. */
  readonly vega: number
  /** `mtm(one day later) − mtm`: pair QUOTE. */
  readonly theta: number
  /** The delta in the direction's terms: its BASE units, positive for a short put. */
  readonly corridorDelta: number
}

/** A plan with `crossGreeks`: the second-order figures the greeks leave out. */
export interface CrossGreeks {
  /** The change of delta for +1 vol point, `(delta at vols + 1 point) − delta`: pair BASE units. */
  readonly vanna: number
  /** `mtm(vols + 1 point) − 2·mtm + mtm(vols − 1 point)`: pair QUOTE. */
  readonly volga: number
}

export interface LockRisk {
  readonly lock: LockTerms
  /** The engine's value per 1 BASE of the direction, in its QUOTE (`V`). */
  readonly value: number
  /** `−N_b × V` in the pair's QUOTE. */
  readonly mtm: number
  /** `−N_b × V` in the direction's QUOTE. */
  readonly corridorMtm: number
  /** Present when the plan has the greeks. */
  readonly greeks: LockGreeks | null
  /** Present when the plan has the cross greeks. */
  readonly cross: CrossGreeks | null
  /** The lock's `mtm` (pair QUOTE, at the moved rate) under each of the plan's scenarios, in their order. */
  readonly scenarioMtm: ReadonlyArray<number>
}

/** The lock's figures from its `unitValues`. */
export const figures = (plan: RiskPlan, lock: LockTerms, values: Float64Array): LockRisk => {
  const pair = plan.pairs.get(lock.pair)!
  const n = lock.notionalBase
  // the mtm in the pair's QUOTE under move k: an inverted direction's QUOTE is the pair's BASE
  const mtmAt = (k: number): number =>
    lock.inverted ? -n * values[k]! * pair.spot * pair.moves[k]!.spotFactor : -n * values[k]!
  const mtm = mtmAt(moveIndex.none)
  const spot = pair.spot
  let greeks: LockGreeks | null = null
  if (plan.greeks) {
    const up = mtmAt(moveIndex.spotUp)
    const down = mtmAt(moveIndex.spotDown)
    // in the direction's terms, +1 % of the pair is the direction's spot / 1.01 (inverted): a divided difference
    const directionSpot = pair.directions.get(lock.direction)!.spot
    const delta = (up - down) / (2 * spotBump * spot)
    const corridorDelta = lock.inverted
      ? (n * (values[moveIndex.spotUp]! - values[moveIndex.spotDown]!)) /
        (directionSpot / (1 - spotBump) - directionSpot / (1 + spotBump))
      : delta
    greeks = {
      delta,
      gamma: (up - 2 * mtm + down) / (spotBump * spot),
      vega: mtmAt(moveIndex.vol) - mtm,
      theta: mtmAt(moveIndex.nextDay) - mtm,
      corridorDelta
    }
  }
  const cross: CrossGreeks | null = plan.crossGreeks
    ? {
        vanna:
          (mtmAt(crossMoveIndex.spotUpVol) -
            mtmAt(crossMoveIndex.spotDownVol) -
            (mtmAt(moveIndex.spotUp) - mtmAt(moveIndex.spotDown))) /
          (2 * spotBump * spot),
        volga: mtmAt(moveIndex.vol) - 2 * mtm + mtmAt(crossMoveIndex.volDown)
      }
    : null
  return {
    lock,
    value: values[moveIndex.none]!,
    cross,
    mtm,
    corridorMtm: -n * values[moveIndex.none]!,
    greeks,
    scenarioMtm: pair.scenarioMoves.map(mtmAt)
  }
}
