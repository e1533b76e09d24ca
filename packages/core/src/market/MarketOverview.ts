/**
 * What an operator reads of a snapshot (`ratelock market show`, `GET /operator/v1/market`, the
 * console): per corridor the snapshot's mid, and at 1 week, 1, 3 and 6 months the forward and the
 * ATM vol; per currency its curve; per market pair its vol pillars and its smile at 1 and 3 months.
 * Forwards start from the snapshot's own mid at its `as_of` (a quote's start from the partner's
 * `market_rate` instead). Pure.
 */
import { DateTime, Option } from "effect"
import * as CorridorMarket from "./CorridorMarket.ts"
import { type Direction, directions, marketPairCurrencies, ratePrecision } from "../kernel/Corridor.ts"
import * as DiscountCurve from "./DiscountCurve.ts"
import * as MarketSnapshot from "./MarketSnapshot.ts"
import * as Money from "../kernel/Money.ts"
import * as VolSurface from "./VolSurface.ts"

/** The tenors shown, in calendar days from `as_of`. */
export const tenors = [
  { label: "1W", days: 7 },
  { label: "1M", days: 30 },
  { label: "3M", days: 91 },
  { label: "6M", days: 182 }
] as const

/** Figures as decimal strings, as every number Ratelock reports: forwards to 10 significant digits, vols to 6. */
export interface TenorFigures {
  readonly tenor: (typeof tenors)[number]["label"]
  readonly forward: string
  readonly atm_vol: string
}

const significant = (x: number, digits: number): string => Money.format(Money.fromModel(Number(x.toPrecision(digits))))

export interface CorridorFigures {
  readonly corridor: Direction
  readonly spot: string
  readonly points: ReadonlyArray<TenorFigures>
}

const millisPerDay = 86_400_000

/** A mid as a corridor's rates are shown: an inverted one (`1 / spot`) to its 10 significant digits. */
const shown = (direction: Direction, rate: Money.Decimal): string => {
  const precision = ratePrecision(direction)
  return Money.format(precision._tag === "Significant" ? Money.roundDownSignificant(rate, precision.digits) : rate)
}

/** Every corridor the snapshot serves, in `Corridor.directions` order. */
export const corridors = (snapshot: MarketSnapshot.MarketSnapshot): ReadonlyArray<CorridorFigures> =>
  directions.flatMap((direction) =>
    Option.match(CorridorMarket.make(snapshot, direction), {
      onNone: () => [],
      onSome: (market) => {
        const spot = Money.toModel(market.referenceRate)
        const asOf = DateTime.toEpochMillis(snapshot.as_of)
        return [
          {
            corridor: direction,
            spot: shown(direction, market.referenceRate),
            points: tenors.map(({ label, days }) => ({
              tenor: label,
              forward: significant(CorridorMarket.forward(market, spot, asOf, asOf + days * millisPerDay), 10),
              atm_vol: significant(VolSurface.atmVol(market.vols, days / 365), 6)
            }))
          }
        ]
      }
    })
  )

/** Each currency's curve as the snapshot quotes it, with the discount factor each pillar's rate makes. */
export interface CurveFigures {
  readonly currency: string
  readonly convention: MarketSnapshot.Convention
  readonly points: ReadonlyArray<{
    readonly tenor_days: number
    /** The snapshot's rate, in its convention (as stored: trailing zeros dropped). */
    readonly rate: string
    /** From `as_of` to the pillar, 10 significant digits. */
    readonly discount_factor: string
  }>
}

/** Every served currency's curve, in `MarketSnapshot.servedCurrencies` order. */
export const curves = (snapshot: MarketSnapshot.MarketSnapshot): ReadonlyArray<CurveFigures> =>
  MarketSnapshot.servedCurrencies.flatMap((currency) =>
    Option.match(
      Option.all({
        quoted: MarketSnapshot.curve(snapshot, currency),
        curve: DiscountCurve.fromSnapshot(snapshot, currency)
      }),
      {
        onNone: () => [],
        onSome: ({ curve, quoted }) => [
          {
            currency,
            convention: quoted.convention,
            points: quoted.points.map((p) => ({
              tenor_days: p.tenor_days,
              rate: Money.format(p.rate),
              discount_factor: significant(
                DiscountCurve.discountFactor(
                  curve,
                  DateTime.toEpochMillis(snapshot.as_of) + p.tenor_days * millisPerDay
                ),
                10
              )
            }))
          }
        ]
      }
    )
  )

/** The tenors whose smiles are shown. */
export const smileTenors = tenors.filter((t) => t.label === "1M" || t.label === "3M")

/** A smile's three points at a tenor, in the pair's usual order: strikes to 10 significant digits, vols to 6. */
export interface SmileFigures {
  readonly tenor: (typeof smileTenors)[number]["label"]
  /** The pair's forward at the tenor from the snapshot's spot: the ATM strike. */
  readonly forward: string
  readonly points: ReadonlyArray<{
    readonly point: VolSurface.SmilePoint["point"]
    readonly strike: string
    readonly vol: string
  }>
}

/** One market pair's vols: the snapshot's pillars (the ATM term structure) and the smiles at 1M and 3M. */
export interface PairVols {
  readonly pair: string
  readonly spot: string
  readonly pillars: ReadonlyArray<{
    readonly tenor_days: number
    readonly atm: string
    readonly rr25: string
    readonly bf25: string
  }>
  readonly smiles: ReadonlyArray<SmileFigures>
}

/** Every served market pair, in `MarketSnapshot.servedPairs` order. */
export const vols = (snapshot: MarketSnapshot.MarketSnapshot): ReadonlyArray<PairVols> =>
  MarketSnapshot.servedPairs.flatMap((pairKey) => {
    const { base, quote } = marketPairCurrencies(pairKey)
    return Option.match(
      Option.all({
        spot: MarketSnapshot.spot(snapshot, pairKey),
        pillars: MarketSnapshot.vols(snapshot, pairKey),
        surface: VolSurface.fromSnapshot(snapshot, pairKey),
        domestic: DiscountCurve.fromSnapshot(snapshot, quote),
        foreign: DiscountCurve.fromSnapshot(snapshot, base)
      }),
      {
        onNone: () => [],
        onSome: ({ domestic, foreign, pillars, spot, surface }) => {
          const asOf = DateTime.toEpochMillis(snapshot.as_of)
          return [
            {
              pair: pairKey,
              spot: Money.format(spot),
              pillars: pillars.map((p) => ({
                tenor_days: p.tenor_days,
                atm: Money.format(p.atm),
                rr25: Money.format(p.rr25),
                bf25: Money.format(p.bf25)
              })),
              smiles: smileTenors.map(({ days, label }) => {
                const forward = DiscountCurve.forward({
                  spot: Money.toModel(spot),
                  domestic,
                  foreign,
                  from: asOf,
                  to: asOf + days * millisPerDay
                })
                return {
                  tenor: label,
                  forward: significant(forward, 10),
                  points: VolSurface.smilePoints(surface, days / 365).map((p) => ({
                    point: p.point,
                    strike: significant(forward * Math.exp(p.logMoneyness), 10),
                    vol: significant(p.vol, 6)
                  }))
                }
              })
            }
          ]
        }
      }
    )
  })
