/**
 * The market-data snapshot of market-data.md: the document an operator imports or a feed serves, as a
 * `Schema` (`internal/snapshotDocument.ts`); its validation (`internal/snapshotValidation.ts`: every
 * rule of the page, every failure of a document reported together, each with its path, in the API's
 * 422 item shape); its canonical hash; reading it; and the illustrative snapshot. Pure: the clock is
 * a parameter.
 *
 * On the wire every number is a decimal string, except `tenor_days`, a whole number of calendar days from
 * `as_of` (a count, a JSON integer as the page writes it). Decoded, the numbers are exact decimals: floats
 * appear only where the model reads the snapshot (`DiscountCurve`, `VolSurface`).
 */
import { type DateTime, Effect, JsonSchema, Option, Result, Schema } from "effect"
import { Digest } from "effect/crypto"
import { toBytes } from "../kernel/Bytes.ts"
import { canonicalize } from "../kernel/CanonicalJson.ts"
import * as Money from "../kernel/Money.ts"

// the document's schemas and the validation live in internal/; this module is their public face
export {
  asOfSkewMillis,
  Convention,
  CurrencyCode,
  Curve,
  CurvePoint,
  HolidayDate,
  type IssueType,
  MarketSnapshot,
  type MarketSnapshotEncoded,
  maxRate,
  maxTenorDays,
  maxVol,
  minRate,
  minVol,
  PairCode,
  Rate,
  Spot,
  TenorDays,
  VolPillar
} from "./internal/snapshotDocument.ts"
// a snapshot must cover the corridors served: Corridor says which they are
export { servedCurrencies, servedPairs } from "../kernel/Corridor.ts"
export { decode, type ValidateOptions, validate, validateJson } from "./internal/snapshotValidation.ts"
import { type Curve, MarketSnapshot, type MarketSnapshotEncoded, type VolPillar } from "./internal/snapshotDocument.ts"

// ---------------------------------------------------------------------------------------------------------------
// Canonical form and hash

const encode = Schema.encodeSync(MarketSnapshot)

/**
 * The canonical JSON of a snapshot: its encoded document (decimals without trailing zeros, `rr25`/`bf25` and
 * `holidays` written out, holidays sorted and each once, `as_of` in UTC with milliseconds) with keys sorted by
 * code point and no whitespace. Two documents with the same market data have the same canonical JSON.
 */
export const canonicalJson = (snapshot: MarketSnapshot): string => {
  const result = canonicalize(encode(snapshot))
  // an encoded snapshot is strings, integers, arrays and plain objects: always JSON
  if (Result.isFailure(result)) throw new Error(`snapshot has no JSON form at ${result.failure.path}`)
  return result.success
}

/** Lowercase hex SHA-256 of the canonical JSON: the snapshot's identity (same data, same hash). */
export const hash = Effect.fn("MarketSnapshot.hash")(function* (
  snapshot: MarketSnapshot
): Effect.fn.Return<string, never, Digest.Digest> {
  const digest = yield* Digest.Digest
  return yield* digest.digestHex(Digest.sha256, toBytes(canonicalJson(snapshot)))
})

/**
 * The JSON Schema (draft 2020-12) of the document, derived from `MarketSnapshot`: its shape and formats, unknown
 * fields refused. The rules between fields and the numeric ranges of decimal strings are `validate`'s alone.
 */
export const jsonSchema = (): JsonSchema.JsonSchema => {
  const document = Schema.toJsonSchemaDocument(MarketSnapshot, { onExcessProperty: "error" })
  return { $schema: JsonSchema.META_SCHEMA_URI_DRAFT_2020_12, ...document.schema, $defs: document.definitions }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading a snapshot

export const curve = (snapshot: MarketSnapshot, currency: string): Option.Option<Curve> =>
  Option.fromNullishOr(snapshot.rates[currency])

export const holidays = (snapshot: MarketSnapshot, currency: string): ReadonlyArray<string> =>
  snapshot.holidays[currency] ?? []

export const spot = (snapshot: MarketSnapshot, pair: string): Option.Option<Money.Decimal> =>
  Option.fromNullishOr(snapshot.spot[pair])

export const vols = (snapshot: MarketSnapshot, pair: string): Option.Option<ReadonlyArray<VolPillar>> =>
  Option.fromNullishOr(snapshot.vols[pair])

/**
 * The snapshot's mid rate, `quote` per 1 `base`: its spot for the pair as written, `1 / spot` for the inverse
 * pair, 1 for a currency against itself (for crossing an amount into a settlement fiat).
 */
export const midRate = (snapshot: MarketSnapshot, base: string, quote: string): Option.Option<Money.Decimal> => {
  if (base === quote) return Option.some(Money.one)
  const direct = snapshot.spot[`${base}/${quote}`]
  if (direct !== undefined) return Option.some(direct)
  return Option.map(spot(snapshot, `${quote}/${base}`), (s) => Money.divide(Money.one, s))
}

// ---------------------------------------------------------------------------------------------------------------
// The built-in illustrative snapshot

/**
 * pricing.md's illustrative defaults as a snapshot (the sandbox's fallback when no snapshot was imported): one
 * pillar per curve and per pair, flat vols, no risk reversal or butterfly. With one pillar a curve holds its
 * rate flat in its own convention and a smile is its ATM vol at every strike and tenor, so it prices as the
 * static table `MarketData.defaultTable` does.
 */
export const illustrativeDocument: MarketSnapshotEncoded = {
  as_of: "2026-01-01T00:00:00.000Z",
  source: "illustrative defaults",
  rates: {
    USD: { convention: "ACT/360", points: [{ tenor_days: 365, rate: "0.0375" }] },
    EUR: { convention: "ACT/360", points: [{ tenor_days: 365, rate: "0.02" }] },
    BRL: { convention: "BUS/252", points: [{ tenor_days: 365, rate: "0.1425" }] },
    MXN: { convention: "ACT/360", points: [{ tenor_days: 365, rate: "0.07" }] },
    NGN: { convention: "ACT/365", points: [{ tenor_days: 365, rate: "0.27" }] }
  },
  holidays: {},
  spot: {
    "EUR/USD": "1.17",
    "USD/BRL": "5.4",
    "USD/MXN": "18.5",
    "USD/NGN": "1500",
    "EUR/BRL": "6.32",
    "BRL/MXN": "3.43"
  },
  vols: {
    "EUR/USD": [{ tenor_days: 365, atm: "0.075", rr25: "0", bf25: "0" }],
    "USD/BRL": [{ tenor_days: 365, atm: "0.14", rr25: "0", bf25: "0" }],
    "USD/MXN": [{ tenor_days: 365, atm: "0.12", rr25: "0", bf25: "0" }],
    "USD/NGN": [{ tenor_days: 365, atm: "0.2", rr25: "0", bf25: "0" }],
    "EUR/BRL": [{ tenor_days: 365, atm: "0.15", rr25: "0", bf25: "0" }],
    "BRL/MXN": [{ tenor_days: 365, atm: "0.13", rr25: "0", bf25: "0" }]
  }
}

export const illustrative: MarketSnapshot = Schema.decodeUnknownSync(MarketSnapshot)(illustrativeDocument)

/**
 * The illustrative snapshot observed at `asOf`. Curves are anchored at `as_of`, so anchored at the pricing
 * instant it gives exactly the static table's discount factors (a fixed `as_of` months old discounts over
 * `[now, t]` as the forward from `as_of`, a few parts in 10⁴ away).
 */
export const illustrativeAt = (asOf: DateTime.Utc): MarketSnapshot => ({ ...illustrative, as_of: asOf })
