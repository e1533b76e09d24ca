/**
 * Provenance (market-data.md): a quote's recorded inputs, stored as JSON and read back through the
 * `PricingInputs` schema, reprice it to the same charges to the last token unit, across corridors, windows,
 * strike modes, contract types, settlement fiats (crossed ones too) and snapshots with smiles and term structure.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Option, Result, Schema } from "effect"
import fc from "fast-check"
import {
  Corridor,
  CorridorMarket,
  MarketData,
  type MarketFreshness,
  MarketSnapshot,
  Money,
  PricingInputs,
  QuotePolicy,
  QuotePricer,
  type QuoteRequest,
  type Rail
} from "@ratelock/core"
import { exampleDocument, exampleNow } from "./fixtures/marketSnapshot.ts"
import { quoteRequest } from "./fixtures/quoteRequest.ts"
import { scaledVols } from "./fixtures/snapshots.ts"

const day = 86_400_000
const policy = QuotePolicy.defaults

const example = Result.getOrThrow(MarketSnapshot.validate(exampleDocument(), { now: exampleNow }))

/** Snapshots to price from, re-observed at `asOf`: the example (smiles, term structure, BRL holidays), flat ones. */
const snapshots: ReadonlyArray<(asOf: DateTime.Utc) => MarketSnapshot.MarketSnapshot> = [
  (asOf) => ({ ...example, as_of: asOf }),
  MarketSnapshot.illustrativeAt,
  (asOf) => scaledVols(asOf, 2)
]

const rails: ReadonlyArray<readonly [Rail.SettlementCurrency, Rail.Chain]> = [
  ["USDC", "polygon"],
  ["USDT", "ethereum"],
  ["EURC", "ethereum"],
  ["EURC", "solana"]
]

/** JSON as a store keeps it, decoded through the schema as a store reads it. */
const roundTrip = (inputs: PricingInputs.PricingInputs): PricingInputs.PricingInputs =>
  Schema.decodeUnknownSync(PricingInputs.PricingInputs)(
    JSON.parse(JSON.stringify(Schema.encodeSync(PricingInputs.PricingInputs)(inputs)))
  )

const decimal = (x: number) => Money.fromModel(Number(x.toPrecision(8)))

const quoteCase = fc
  .record({
    direction: fc.constantFrom(...Corridor.directions),
    snapshot: fc.integer({ min: 0, max: snapshots.length - 1 }),
    now: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2028, 0, 1) }),
    asOfAgeSeconds: fc.integer({ min: 0, max: 900 }),
    startMillis: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 * day })),
    lengthMillis: fc.integer({ min: 3_600_000, max: 180 * day }),
    marketShift: fc.double({ min: -0.05, max: 0.05, noNaN: true }),
    providerShift: fc.double({ min: -0.04, max: 0.04, noNaN: true }),
    strikeMode: fc.constantFrom("cip_fair", "live_spot", "custom" as const),
    customShift: fc.double({ min: -0.1, max: 0.1, noNaN: true }),
    spreadShare: fc.constantFrom(0, 0, 0.001, 0.005),
    contractType: fc.constantFrom("option", "forward" as const),
    notionalInBase: fc.boolean(),
    notionalBase: fc.integer({ min: 1, max: 900_000 }),
    rail: fc.constantFrom(...rails)
  })
  .map((c) => {
    const now = DateTime.makeUnsafe(c.now)
    const snapshot = snapshots[c.snapshot]!(DateTime.makeUnsafe(c.now - c.asOfAgeSeconds * 1000))
    const reference = Money.toModel(Option.getOrThrow(CorridorMarket.make(snapshot, c.direction)).referenceRate)
    const marketRate = reference * (1 + c.marketShift)
    const { base, quote } = Corridor.pair(c.direction)
    // a notional in NGN is not accepted: such directions take their other side
    const notionalCurrency =
      (c.notionalInBase ? base : quote) === "NGN" ? (base === "NGN" ? quote : base) : c.notionalInBase ? base : quote
    const notionalAmount =
      notionalCurrency === base
        ? Money.unsafe(String(c.notionalBase))
        : Money.roundDown(decimal(c.notionalBase * marketRate), 2)
    const windowStart = DateTime.makeUnsafe(c.now + c.startMillis)
    const request: QuoteRequest.QuoteRequest = quoteRequest(now, {
      direction: c.direction,
      contract_type: c.contractType,
      notional_currency: notionalCurrency as QuoteRequest.QuoteRequest["notional_currency"],
      notional_amount: notionalAmount,
      market_rate: decimal(marketRate),
      provider_rate: decimal(marketRate * (1 + c.providerShift)),
      strike_mode: c.strikeMode,
      ...(c.strikeMode === "custom" ? { target_strike: decimal(marketRate * (1 + c.customShift)) } : {}),
      provider_extra_spread: decimal(marketRate * c.spreadShare),
      window_start: windowStart,
      window_end: DateTime.makeUnsafe(c.now + c.startMillis + c.lengthMillis),
      settlement_currency: c.rail[0],
      chain: c.rail[1]
    })
    const market: MarketFreshness.InForce = {
      _tag: "InForce",
      snapshotId: `00000000-0000-4000-8000-00000000000${c.snapshot}`,
      snapshot
    }
    return { request, now, market }
  })

describe("QuotePricer.reprice", () => {
  it("1,000 random quotes: each repriced from its JSON-stored inputs gives the identical premium and deposit", () => {
    let created = 0
    let crossed = 0
    fc.assert(
      fc.property(quoteCase, ({ request, now, market }) => {
        const priced = QuotePricer.price({
          request,
          market,
          notionalLimits: MarketData.defaultNotionalLimits,
          now,
          policy,
          railSupported: true
        })
        if (priced.status !== "created") {
          assert.isNull(priced.inputs)
          return
        }
        created++
        if (market._tag !== "InForce") throw new Error("unreachable")
        const inputs = roundTrip(priced.inputs!)
        const encode = Schema.encodeSync(PricingInputs.PricingInputs)
        assert.deepStrictEqual(encode(inputs), encode(priced.inputs!))
        assert.strictEqual(priced.snapshotId, market.snapshotId)
        const cross = QuotePricer.fiatPerQuote(market.snapshot, request.direction, request.settlement_currency)
        const { base, quote } = Corridor.pair(request.direction)
        const fiat = request.settlement_currency === "EURC" ? "EUR" : "USD"
        if (fiat !== base && fiat !== quote) crossed++
        const again = QuotePricer.reprice({
          inputs,
          quote: {
            contractType: request.contract_type,
            direction: request.direction,
            notionalCurrency: request.notional_currency,
            notionalAmount: request.notional_amount,
            lockedRate: priced.lockedRate,
            settlementCurrency: request.settlement_currency
          },
          fiatPerQuote: cross,
          policy
        })
        if (Result.isFailure(again)) throw new Error(again.failure.message)
        assert.strictEqual(Money.format(again.success.premiumAmount), Money.format(priced.premiumAmount))
        assert.strictEqual(
          again.success.depositAmount === null ? null : Money.format(again.success.depositAmount),
          priced.depositAmount === null ? null : Money.format(priced.depositAmount)
        )
      }),
      { numRuns: 1000, seed: 20261123 }
    )
    // the cases price, and some cross into a third fiat
    assert.isAbove(created, 900)
    assert.isAbove(crossed, 50)
  })

  it("refuses inputs of another engine or version, and a crossed quote without its cross rate", () => {
    const now = DateTime.makeUnsafe(Date.UTC(2026, 10, 23, 12))
    const request = quoteRequest(now, { settlement_currency: "EURC", chain: "ethereum" })
    const market = { _tag: "InForce", snapshotId: "x", snapshot: MarketSnapshot.illustrativeAt(now) } as const
    const priced = QuotePricer.price({
      request,
      market,
      notionalLimits: MarketData.defaultNotionalLimits,
      now,
      policy,
      railSupported: true
    })
    const quote = {
      contractType: request.contract_type,
      direction: request.direction,
      notionalCurrency: request.notional_currency,
      notionalAmount: request.notional_amount,
      lockedRate: priced.lockedRate,
      settlementCurrency: request.settlement_currency
    }
    const inputs = priced.inputs!
    assert.strictEqual(inputs.engine, QuotePricer.engine)
    assert.strictEqual(inputs.engine_version, QuotePricer.engineVersion)
    assert.strictEqual(inputs.steps, 100) // 2 a day over 30 days is 60: the floor of 100
    const other = QuotePricer.reprice({ inputs: { ...inputs, engine_version: "0" }, quote, policy })
    assert.isTrue(Result.isFailure(other) && other.failure._tag === "UnknownEngine")
    const noCross = QuotePricer.reprice({ inputs, quote, policy })
    assert.isTrue(Result.isFailure(noCross) && noCross.failure._tag === "NoCrossRate")
  })
})
