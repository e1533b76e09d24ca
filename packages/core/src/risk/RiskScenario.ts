/**
 * Stress scenarios of the book (risk.md, Stress): the JSON document an operator writes, its validation, the
 * defaults as data, and what a scenario does to each market pair.
 *
 * A scenario moves spots and vols at once: `spot_shocks` are relative changes of market pairs' rates in their
 * usual order (`"USD/BRL": "0.15"` is USD/BRL × 1.15), `vol_shift` an absolute shift of every vol (`"0.05"` is
 * +5 vol points on every pillar). A pair not named moves with the cross its named neighbours imply (see
 * `pairMoves`), or not at all.
 */
import { BigDecimal, Effect, Result, Schema } from "effect"
import { issueType, type ValidationIssue } from "../kernel/ApiError.ts"
import { isCharacters, noNul, ShortString } from "../kernel/Fields.ts"
import * as IssueDetail from "../kernel/IssueDetail.ts"
import * as MarketSnapshot from "../market/MarketSnapshot.ts"
import * as Money from "../kernel/Money.ts"

/** A spot shock is above −100 % (a rate stays positive) and at most +1,000 %. */
export const minSpotShock = Money.unsafe("-1")
export const maxSpotShock = Money.unsafe("10")
/** A vol shift lies in [−0.5, 1.0] (−50 to +100 vol points); shifted vols never go below `VolSurface.minimumVol`. */
export const minVolShift = Money.unsafe("-0.5")
export const maxVolShift = Money.unsafe("1")

const SpotShock = Money.DecimalString.check(
  Schema.makeFilter(
    (d: BigDecimal.BigDecimal) =>
      (BigDecimal.isGreaterThan(d, minSpotShock) && !BigDecimal.isGreaterThan(d, maxSpotShock)) ||
      `spot shock ${Money.format(d)} is outside (-1, 10]`,
    { expected: "a relative change above -1 and at most 10", ...issueType("spot_shock_out_of_range") }
  )
).annotate({ description: "Relative change of the pair's rate in its usual order: 0.15 is +15 %" })

const inverse = (pair: string) => pair.split("/").reverse().join("/")

/** Keys of `spot_shocks`: the served market pairs, in their usual order. */
const SpotShocks = Schema.Record(Schema.String, SpotShock).check(
  Schema.makeFilter(
    (shocks: Readonly<Record<string, unknown>>) =>
      Object.keys(shocks)
        .filter((pair) => !MarketSnapshot.servedPairs.includes(pair))
        .map((pair) => ({
          path: [pair],
          issue: MarketSnapshot.servedPairs.includes(inverse(pair))
            ? `${pair} is not in its usual order: shock ${inverse(pair)} instead`
            : `${pair} is not a market pair served (${MarketSnapshot.servedPairs.join(", ")})`
        })),
    { expected: "market pairs served, in their usual order", ...issueType("unknown_pair") }
  )
)

const VolShift = Money.DecimalString.check(
  Schema.makeFilter(
    (d: BigDecimal.BigDecimal) =>
      (!BigDecimal.isLessThan(d, minVolShift) && !BigDecimal.isGreaterThan(d, maxVolShift)) ||
      `vol shift ${Money.format(d)} is outside [-0.5, 1]`,
    { expected: "an absolute vol shift from -0.5 to 1", ...issueType("vol_shift_out_of_range") }
  )
).annotate({ description: "Absolute shift of every vol: 0.05 is +5 vol points" })

export const ScenarioName = Schema.String.check(
  isCharacters(1, 64),
  Schema.isPattern(/^[a-z0-9][a-z0-9_.-]*$/u, {
    expected: "lowercase letters, digits, _ . - (such as brl_minus_15)"
  }),
  noNul
)

export const Scenario = Schema.Struct({
  name: ScenarioName,
  description: ShortString(500).pipe(Schema.withDecodingDefaultKey(Effect.succeed(""))),
  spot_shocks: SpotShocks.pipe(Schema.withDecodingDefaultKey(Effect.succeed({}))),
  vol_shift: VolShift.pipe(Schema.withDecodingDefaultKey(Effect.succeed("0")))
}).annotate({
  identifier: "RiskScenario",
  title: "Ratelock stress scenario",
  description: "Relative spot shocks per market pair (usual order) and an absolute shift of every vol"
})
export type Scenario = typeof Scenario.Type
export type ScenarioEncoded = typeof Scenario.Encoded

const parseOptions = { errors: "all", onExcessProperty: "error" } as const
const decodeOne = Schema.decodeUnknownResult(Scenario)
const decodeMany = Schema.decodeUnknownResult(Schema.Array(Scenario))

/**
 * Validates a parsed scenario document: one scenario or an array of them (at least one, names unique). The
 * scenarios, or every failure at once as `{loc, msg, type}` items (as a snapshot import reports them).
 */
export const validate = (input: unknown): Result.Result<ReadonlyArray<Scenario>, ReadonlyArray<ValidationIssue>> => {
  if (!Array.isArray(input)) {
    const one = decodeOne(input, parseOptions)
    return Result.isFailure(one)
      ? Result.fail(IssueDetail.flatten(one.failure.issue, [], input))
      : Result.succeed([one.success])
  }
  if (input.length === 0) return Result.fail([{ loc: [], msg: "no scenario in the array", type: "too_short" }])
  const many = decodeMany(input, parseOptions)
  if (Result.isFailure(many)) return Result.fail(IssueDetail.flatten(many.failure.issue, [], input))
  const seen = new Set<string>()
  const duplicates: Array<ValidationIssue> = []
  many.success.forEach((scenario, i) => {
    if (seen.has(scenario.name)) {
      duplicates.push({
        loc: [i, "name"],
        msg: `a scenario named ${scenario.name} comes earlier`,
        type: "duplicate_name"
      })
    }
    seen.add(scenario.name)
  })
  return duplicates.length > 0 ? Result.fail(duplicates) : Result.succeed(many.success)
}

/** `validate` of JSON text; text that is not JSON is one `json_invalid` issue. */
export const validateJson = (text: string): Result.Result<ReadonlyArray<Scenario>, ReadonlyArray<ValidationIssue>> => {
  let input: unknown
  try {
    input = JSON.parse(text)
  } catch (error) {
    return Result.fail([{ loc: [], msg: `not JSON: ${(error as Error).message}`, type: "json_invalid" }])
  }
  return validate(input)
}

/** A scenario's document, as `validate` reads it back. */
export const encode = Schema.encodeSync(Scenario)

// ---------------------------------------------------------------------------------------------------------------
// The defaults of risk.md

/** USD +10 % against every currency: EUR/USD falls to 1/1.1 of itself (10 significant digits). */
const usdUp10 = {
  "USD/BRL": "0.10",
  "USD/MXN": "0.10",
  "USD/NGN": "0.10",
  "EUR/USD": "-0.0909090909",
  "EUR/BRL": "0",
  "BRL/MXN": "0"
}

/**
 * risk.md's default scenarios. Named crosses are 0 where the move leaves them (USD +10 % against all leaves
 * EUR/BRL where it is); BRL/MXN in the BRL scenarios is left to the cross, USD/MXN being unchanged.
 */
export const defaultDocuments: ReadonlyArray<ScenarioEncoded> = [
  {
    name: "brl_minus_15",
    description: "BRL sells off: USD/BRL and EUR/BRL +15 %, BRL/MXN -13.04 % (the cross; USD/MXN unchanged)",
    spot_shocks: { "USD/BRL": "0.15", "EUR/BRL": "0.15", "USD/MXN": "0" },
    vol_shift: "0"
  },
  {
    name: "brl_plus_15",
    description: "BRL rallies: USD/BRL and EUR/BRL -15 %, BRL/MXN +17.65 % (the cross; USD/MXN unchanged)",
    spot_shocks: { "USD/BRL": "-0.15", "EUR/BRL": "-0.15", "USD/MXN": "0" },
    vol_shift: "0"
  },
  {
    name: "ngn_devaluation_30",
    description: "NGN devalues: USD/NGN +30 %",
    spot_shocks: { "USD/NGN": "0.30" },
    vol_shift: "0"
  },
  {
    name: "usd_plus_10",
    description: "USD +10 % against all: USD/BRL, USD/MXN, USD/NGN +10 %, EUR/USD -9.09 %; EUR/BRL, BRL/MXN unchanged",
    spot_shocks: usdUp10,
    vol_shift: "0"
  },
  {
    name: "usd_minus_10",
    description: "USD -10 % against all: USD/BRL, USD/MXN, USD/NGN -10 %, EUR/USD +11.11 %; EUR/BRL, BRL/MXN unchanged",
    spot_shocks: {
      "USD/BRL": "-0.10",
      "USD/MXN": "-0.10",
      "USD/NGN": "-0.10",
      "EUR/USD": "0.1111111111",
      "EUR/BRL": "0",
      "BRL/MXN": "0"
    },
    vol_shift: "0"
  },
  {
    name: "eur_minus_10",
    description: "EUR -10 % against all: EUR/USD and EUR/BRL -10 % (USD/BRL unchanged, the cross)",
    spot_shocks: { "EUR/USD": "-0.10", "EUR/BRL": "-0.10" },
    vol_shift: "0"
  },
  {
    name: "vol_plus_5",
    description: "Every vol +5 points, spots unchanged",
    spot_shocks: {},
    vol_shift: "0.05"
  },
  {
    name: "crash_combo",
    description: "USD +10 % against all (as usd_plus_10) and every vol +5 points",
    spot_shocks: usdUp10,
    vol_shift: "0.05"
  }
]

export const defaults: ReadonlyArray<Scenario> = defaultDocuments.map((document) =>
  Schema.decodeUnknownSync(Scenario)(document)
)

/**
 * The scenarios a report runs: the defaults, then the operator's. An operator scenario named as a default
 * replaces it in place (an operator may recalibrate `brl_minus_15`); the others follow in their order.
 */
export const withDefaults = (operator: ReadonlyArray<Scenario>): ReadonlyArray<Scenario> => {
  const byName = new Map(operator.map((s) => [s.name, s]))
  const defaultNames = new Set(defaults.map((s) => s.name))
  return [...defaults.map((s) => byName.get(s.name) ?? s), ...operator.filter((s) => !defaultNames.has(s.name))]
}

// ---------------------------------------------------------------------------------------------------------------
// What a scenario does to each pair

/** One pair's move: its rate (usual order) times `spotFactor`, every vol plus `volShift`. */
export interface PairMove {
  readonly spotFactor: number
  readonly volShift: number
}

/** Where crosses are looked for, in this order: the first currency that links both sides decides. */
const crossCurrencies = ["USD", "EUR", "BRL", "MXN", "NGN"] as const

/**
 * Each served pair's move under `scenario`. A named pair moves by its shock. A pair `X/Y` not named moves as the
 * cross `X/Z ÷ Y/Z` through the first currency `Z` (USD, EUR, BRL, MXN, NGN) such that both `X`–`Z` and `Y`–`Z`
 * are named pairs (either way round); if no `Z` links them, it does not move. Crosses are one step: only named
 * pairs imply. Every pair's vols move by `vol_shift`.
 */
export const pairMoves = (scenario: Scenario): ReadonlyMap<string, PairMove> => {
  const named = new Map(
    Object.entries(scenario.spot_shocks).map(([pair, shock]) => [pair, 1 + Money.toModel(shock)] as const)
  )
  /** The factor of `base/quote` as named (directly or inverted), if it is. */
  const namedFactor = (base: string, quote: string): number | undefined => {
    const direct = named.get(`${base}/${quote}`)
    if (direct !== undefined) return direct
    const inverted = named.get(`${quote}/${base}`)
    return inverted === undefined ? undefined : 1 / inverted
  }
  const volShift = Money.toModel(scenario.vol_shift)
  const moves = new Map<string, PairMove>()
  for (const pair of MarketSnapshot.servedPairs) {
    const [x, y] = pair.split("/") as [string, string]
    let spotFactor = named.get(pair)
    for (const z of crossCurrencies) {
      if (spotFactor !== undefined) break
      if (z === x || z === y) continue
      const xz = namedFactor(x, z)
      const yz = namedFactor(y, z)
      if (xz !== undefined && yz !== undefined) spotFactor = xz / yz
    }
    moves.set(pair, { spotFactor: spotFactor ?? 1, volShift })
  }
  return moves
}
