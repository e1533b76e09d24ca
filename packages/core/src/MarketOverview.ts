/**
 * What an operator reads of a snapshot (`ratelock market show`): per corridor the snapshot's mid, and
 * at 1 week, 1, 3 and 6 months the forward and the ATM vol. Forwards start from the snapshot's own
 * mid at its `as_of` (a quote's start from the partner's `market_rate` instead). Pure.
 */
import { DateTime, Option } from "effect"
import * as CorridorMarket from "./CorridorMarket.ts"
import { type Direction, directions, ratePrecision } from "./Corridor.ts"
import type * as MarketSnapshot from "./MarketSnapshot.ts"
import * as Money from "./Money.ts"
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
