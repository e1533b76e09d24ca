/**
 * The wire schemas against the partner spec (`partner-api.md`: resources, endpoints, events,
 * limits) and `api-decisions.md`. Every decode here uses the request options
 * (`errors: "all"`, `onExcessProperty: "error"`).
 *
 * Tests marked `[spec]` hold the schemas to the spec where they once differed from it (impossible
 * calendar dates rolled over, `limit` texts that JavaScript's number coercion accepts): they guard
 * those fixes.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  ApiError,
  Contract,
  ContractRequest,
  Corridor,
  Fields,
  InboundEvent,
  ListQuery,
  Money,
  OutboundEvent,
  Page,
  Partner,
  Quote,
  QuoteRequest,
  Rail,
  RequestDecoding,
  WebhookEventRecord
} from "@ratelock/core"
import { BigDecimal, Cause, DateTime, Effect, Exit, Option, Schema, SchemaIssue } from "effect"
import * as wire from "./fixtures/wire.ts"

// ---------------------------------------------------------------------------------------------
// helpers

type Codec = Schema.Top & { readonly DecodingServices: never; readonly EncodingServices: never }

interface Reported {
  readonly path: string
  readonly message: string
}

const decode = (schema: Codec, input: unknown) => Schema.decodeUnknownExit(schema)(input, RequestDecoding.parseOptions)

const standard = SchemaIssue.makeFormatterStandardSchemaV1()

const flatten = (issue: SchemaIssue.Issue): ReadonlyArray<Reported> =>
  standard(issue).issues.map((i) => ({
    path: (i.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment)).join("."),
    message: i.message
  }))

/** Every issue reported for `input` (empty when it decodes). */
const problems = (schema: Codec, input: unknown): ReadonlyArray<Reported> => {
  const exit = decode(schema, input)
  if (Exit.isSuccess(exit)) return []
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`decoding died: ${Cause.pretty(exit.cause)}`)
  return flatten(error.value.issue)
}

const show = (input: unknown) => JSON.stringify(input)

const expectOk = (schema: Codec, input: unknown) =>
  assert.deepStrictEqual(problems(schema, input), [], `expected ${show(input)} to decode`)

/**
 * Fails to decode, with an issue at `path` (dot-joined) when given. Inside a union (`X | null`)
 * the issue is reported on the union itself, so an issue on a (non-root) ancestor counts too.
 */
const expectRejected = (schema: Codec, input: unknown, path?: string) => {
  const found = problems(schema, input)
  assert.isAbove(found.length, 0, `expected ${show(input)} to be rejected`)
  if (path !== undefined) {
    assert.isTrue(
      found.some((p) => p.path === path || (p.path !== "" && path.startsWith(`${p.path}.`))),
      `expected an issue at "${path}" for ${show(input)}, got ${show(found)}`
    )
  }
}

const decodeSync = (schema: Codec, input: unknown): unknown =>
  Schema.decodeUnknownSync(schema)(input, RequestDecoding.parseOptions)

/** decode → encode → JSON text → parse: what the wire would carry back. */
const roundTrip = (schema: Codec, input: unknown): unknown =>
  JSON.parse(JSON.stringify(Schema.encodeSync(schema)(decodeSync(schema, input))))

type Path = ReadonlyArray<string>

const split = (path: Path): [string, Path] => {
  const [head, ...rest] = path
  if (head === undefined) throw new Error("empty path")
  return [head, rest]
}

/** A copy of `obj` with `value` at `path`. */
const setAt = (obj: unknown, path: Path, value: unknown): unknown => {
  if (path.length === 0) return value
  const [head, rest] = split(path)
  if (Array.isArray(obj)) {
    const copy = [...obj]
    copy[Number(head)] = setAt(copy[Number(head)], rest, value)
    return copy
  }
  const record = obj as Record<string, unknown>
  return { ...record, [head]: setAt(record[head], rest, value) }
}

/** A copy of `obj` without the key at `path`. */
const omitAt = (obj: unknown, path: Path): unknown => {
  const [head, rest] = split(path)
  const record = obj as Record<string, unknown>
  if (rest.length === 0) {
    const { [head]: _removed, ...others } = record
    return others
  }
  return { ...record, [head]: omitAt(record[head], rest) }
}

const omitAll = (obj: unknown, keys: ReadonlyArray<string>): unknown => keys.reduce((o, k) => omitAt(o, [k]), obj)

const path = (p: string): Path => p.split(".")

const sorted = (values: ReadonlyArray<unknown>) => [...values].map(String).sort()

// ---------------------------------------------------------------------------------------------
// every schema: a complete example decodes, round-trips, and unknown properties are rejected

interface Case {
  readonly name: string
  readonly schema: Codec
  readonly example: unknown
}

const cases: ReadonlyArray<Case> = [
  { name: "QuoteRequest", schema: QuoteRequest.QuoteRequest, example: wire.quoteRequest },
  { name: "QuoteResponse", schema: Quote.QuoteResponse, example: wire.quoteResponse },
  {
    name: "QuoteResponse (failed, with failure_reason)",
    schema: Quote.QuoteResponse,
    example: wire.failedQuoteResponse
  },
  { name: "ContractRequest", schema: ContractRequest.ContractRequest, example: wire.contractRequest },
  { name: "ContractResponse", schema: Contract.ContractResponse, example: wire.contractResponse },
  { name: "LockResponse", schema: Contract.LockResponse, example: wire.lockResponse },
  { name: "FundsInRoute", schema: InboundEvent.FundsInRoute, example: wire.fundsInRoute },
  { name: "ContractExercised", schema: InboundEvent.ContractExercised, example: wire.contractExercised },
  { name: "InboundEvent (funds_in_route)", schema: InboundEvent.InboundEvent, example: wire.fundsInRoute },
  { name: "InboundEvent (contract_exercised)", schema: InboundEvent.InboundEvent, example: wire.contractExercised },
  { name: "InboundAck", schema: InboundEvent.InboundAck, example: wire.inboundAck },
  { name: "FundsReceived", schema: OutboundEvent.FundsReceived, example: wire.fundsReceived },
  { name: "PayoutSettled", schema: OutboundEvent.PayoutSettled, example: wire.payoutSettled },
  { name: "PayoutFailed", schema: OutboundEvent.PayoutFailed, example: wire.payoutFailed },
  { name: "ContractExpired", schema: OutboundEvent.ContractExpired, example: wire.contractExpired },
  { name: "OutboundEvent (funds_received)", schema: OutboundEvent.OutboundEvent, example: wire.fundsReceived },
  { name: "OutboundEvent (payout_settled)", schema: OutboundEvent.OutboundEvent, example: wire.payoutSettled },
  { name: "OutboundEvent (payout_failed)", schema: OutboundEvent.OutboundEvent, example: wire.payoutFailed },
  { name: "OutboundEvent (contract_expired)", schema: OutboundEvent.OutboundEvent, example: wire.contractExpired },
  { name: "WebhookEventRecord", schema: WebhookEventRecord.WebhookEventRecord, example: wire.webhookEventRecord },
  { name: "PartnerIdentity", schema: Partner.PartnerIdentity, example: wire.partnerIdentity },
  { name: "PaginatedQuotes", schema: Page.PaginatedQuotes, example: wire.paginatedQuotes },
  { name: "PaginatedLocks", schema: Page.PaginatedLocks, example: wire.paginatedLocks },
  { name: "PaginatedWebhookEvents", schema: Page.PaginatedWebhookEvents, example: wire.paginatedWebhookEvents },
  { name: "ListQuotesQuery", schema: ListQuery.ListQuotesQuery, example: wire.listQuotesQuery },
  { name: "ListLocksQuery", schema: ListQuery.ListLocksQuery, example: wire.listLocksQuery },
  { name: "ListWebhookEventsQuery", schema: ListQuery.ListWebhookEventsQuery, example: wire.listWebhookEventsQuery },
  { name: "ErrorBody", schema: ApiError.ErrorBody, example: wire.errorBody }
]

describe("every wire schema", () => {
  for (const { name, schema, example } of cases) {
    describe(name, () => {
      it("decodes a complete example", () => expectOk(schema, example))

      it("decode → encode gives back the same JSON", () => assert.deepStrictEqual(roundTrip(schema, example), example))

      it("rejects an unknown property", () =>
        expectRejected(schema, { ...(example as object), unexpected_field: "x" }, "unexpected_field"))
    })
  }

  it("rejects unknown properties inside nested objects and page items", () => {
    const nested: ReadonlyArray<readonly [Codec, unknown, string]> = [
      [OutboundEvent.FundsReceived, wire.fundsReceived, "funds"],
      [OutboundEvent.PayoutSettled, wire.payoutSettled, "payout"],
      [OutboundEvent.PayoutSettled, wire.payoutSettled, "contract"],
      [OutboundEvent.PayoutFailed, wire.payoutFailed, "payout"],
      [OutboundEvent.ContractExpired, wire.contractExpired, "contract"],
      [OutboundEvent.ContractExpired, wire.contractExpired, "deposit_outcome"],
      [OutboundEvent.OutboundEvent, wire.fundsReceived, "funds"],
      [Quote.QuoteResponse, wire.failedQuoteResponse, "failure_reason"],
      [ApiError.ErrorBody, wire.errorBody, "error"],
      [ApiError.ErrorBody, wire.errorBody, "detail.0"],
      [Page.PaginatedQuotes, wire.paginatedQuotes, "items.0"],
      [Page.PaginatedLocks, wire.paginatedLocks, "items.0"],
      [Page.PaginatedWebhookEvents, wire.paginatedWebhookEvents, "items.0"]
    ]
    for (const [schema, example, at] of nested) {
      expectRejected(schema, setAt(example, [...path(at), "unexpected_field"], "x"), `${at}.unexpected_field`)
    }
  })

  it("decodes wire values into program values (decimals, datetimes, integers)", () => {
    const request = Schema.decodeUnknownSync(QuoteRequest.QuoteRequest)(wire.quoteRequest, RequestDecoding.parseOptions)
    assert.isTrue(BigDecimal.isBigDecimal(request.notional_amount))
    assert.isTrue(BigDecimal.equals(request.market_rate, BigDecimal.make(54400n, 4)))
    assert.isTrue(DateTime.isDateTime(request.window_start) && DateTime.isUtc(request.window_start))
    assert.strictEqual(request.window_start.epochMilliseconds, Date.parse(wire.quoteRequest.window_start))

    const query = Schema.decodeUnknownSync(ListQuery.ListQuotesQuery)(
      wire.listQuotesQuery,
      RequestDecoding.parseOptions
    )
    assert.strictEqual(query.limit, 50)
  })

  it("outbound events keep event_type as the first key when encoded", () => {
    for (const event of [wire.fundsReceived, wire.payoutSettled, wire.payoutFailed, wire.contractExpired]) {
      const encoded = Schema.encodeSync(OutboundEvent.OutboundEvent)(
        decodeSync(OutboundEvent.OutboundEvent, event) as never
      )
      assert.strictEqual(Object.keys(encoded)[0], "event_type")
    }
  })

  it("the InboundEvent union selects the shape by event_type", () => {
    const exercised = decodeSync(InboundEvent.InboundEvent, wire.contractExercised) as InboundEvent.InboundEvent
    assert.strictEqual(exercised.event_type, "contract_exercised")
    // a contract_exercised body labelled funds_in_route carries properties funds_in_route does not allow
    expectRejected(InboundEvent.InboundEvent, { ...wire.contractExercised, event_type: "funds_in_route" })
    expectRejected(InboundEvent.InboundEvent, { ...wire.fundsInRoute, event_type: "funds_received" })
    expectRejected(InboundEvent.InboundEvent, omitAt(wire.fundsInRoute, ["event_type"]))
  })

  it("the OutboundEvent union rejects an unknown event_type", () => {
    expectRejected(OutboundEvent.OutboundEvent, { ...wire.fundsReceived, event_type: "funds_pending" })
    expectRejected(OutboundEvent.OutboundEvent, { ...wire.payoutFailed, event_type: "payout_settled" })
  })

  it("other variants of events decode and round-trip (retry exhausted, option expiry, zero payout)", () => {
    const noRetry = setAt(setAt(wire.payoutFailed, ["payout", "will_retry"], false), ["payout", "next_retry_at"], null)
    const optionExpired = setAt(
      setAt(wire.contractExpired, ["contract", "contract_type"], "option"),
      ["deposit_outcome"],
      null
    )
    // api-decisions.md: a zero payout settles at once with a null hash and block number
    const zeroPayout = setAt(
      setAt(setAt(wire.payoutSettled, ["payout", "amount"], "0.000000"), ["payout", "transaction_hash"], null),
      ["payout", "block_number"],
      null
    )
    for (const event of [noRetry, optionExpired, zeroPayout]) {
      assert.deepStrictEqual(roundTrip(OutboundEvent.OutboundEvent, event), event)
    }
  })

  it("ApiError.toBody of a ValidationError is a valid ErrorBody", () => {
    const error = ApiError.ValidationError.fromIssues([
      { loc: ["body", "window_end"], msg: "window_end must be strictly after window_start", type: "validation_error" }
    ])
    const body = Schema.encodeSync(ApiError.ErrorBody)(ApiError.toBody(error))
    assert.deepStrictEqual(roundTrip(ApiError.ErrorBody, body), body)
    assert.strictEqual(body.error.code, "validation_error")
    assert.strictEqual(body.detail?.length, 1)
  })
})

// ---------------------------------------------------------------------------------------------
// required, optional and nullable fields (spec "Required" column)

interface Shape {
  readonly name: string
  readonly schema: Codec
  readonly example: unknown
  /** Keys (dot paths) the spec marks "Required: no". */
  readonly optional: ReadonlyArray<string>
  /** Keys (dot paths) the spec types "... or null". */
  readonly nullable: ReadonlyArray<string>
  /** Keys whose value is opaque JSON: required, but nothing inside them is checked. */
  readonly opaque?: ReadonlyArray<string>
}

const shapes: ReadonlyArray<Shape> = [
  {
    name: "QuoteRequest",
    schema: QuoteRequest.QuoteRequest,
    example: wire.quoteRequest,
    optional: ["provider_extra_spread", "strike_mode", "target_strike"],
    nullable: ["provider_extra_spread", "target_strike"]
  },
  {
    name: "QuoteResponse",
    schema: Quote.QuoteResponse,
    example: wire.quoteResponse,
    optional: ["strike_mode", "target_strike", "provider_extra_spread", "deposit_amount"],
    nullable: ["target_strike", "provider_extra_spread", "deposit_amount"]
  },
  {
    name: "ContractRequest",
    schema: ContractRequest.ContractRequest,
    example: wire.contractRequest,
    optional: ["partner_transaction_reference"],
    nullable: ["partner_transaction_reference"]
  },
  {
    name: "ContractResponse",
    schema: Contract.ContractResponse,
    example: wire.contractResponse,
    optional: ["deposit_amount", "window_start", "window_end"],
    nullable: ["deposit_amount", "window_start", "window_end"]
  },
  {
    name: "LockResponse",
    schema: Contract.LockResponse,
    example: wire.lockResponse,
    optional: ["deposit_amount", "window_start", "window_end", "partner_transaction_reference"],
    nullable: ["deposit_amount", "window_start", "window_end", "partner_transaction_reference"]
  },
  {
    name: "FundsInRoute",
    schema: InboundEvent.FundsInRoute,
    example: wire.fundsInRoute,
    optional: ["payment_type", "amount", "currency", "chain", "transaction_hash", "source_wallet_address"],
    nullable: ["payment_type", "amount", "currency", "chain", "transaction_hash", "source_wallet_address"]
  },
  {
    name: "ContractExercised",
    schema: InboundEvent.ContractExercised,
    example: wire.contractExercised,
    optional: ["payout_currency"],
    nullable: []
  },
  { name: "InboundAck", schema: InboundEvent.InboundAck, example: wire.inboundAck, optional: [], nullable: [] },
  {
    name: "FundsReceived",
    schema: OutboundEvent.FundsReceived,
    example: wire.fundsReceived,
    optional: [],
    nullable: []
  },
  {
    name: "PayoutSettled",
    schema: OutboundEvent.PayoutSettled,
    example: wire.payoutSettled,
    optional: ["contract"],
    // api-decisions.md: a zero payout settles with a null transaction_hash and block_number
    nullable: ["partner_transaction_reference", "payout.transaction_hash", "payout.block_number"]
  },
  {
    name: "PayoutFailed",
    schema: OutboundEvent.PayoutFailed,
    example: wire.payoutFailed,
    optional: [],
    nullable: ["payout.next_retry_at"]
  },
  {
    name: "ContractExpired",
    schema: OutboundEvent.ContractExpired,
    example: wire.contractExpired,
    optional: [],
    nullable: ["partner_transaction_reference", "deposit_outcome"]
  },
  {
    name: "WebhookEventRecord",
    schema: WebhookEventRecord.WebhookEventRecord,
    example: wire.webhookEventRecord,
    optional: [],
    // processed_at: the spec types it "datetime"; the schema also allows null while an outgoing
    // event is pending (api-decisions.md adds the `pending` status)
    nullable: ["last_error", "processed_at"],
    opaque: ["payload"]
  },
  {
    name: "PartnerIdentity",
    schema: Partner.PartnerIdentity,
    example: wire.partnerIdentity,
    optional: [],
    nullable: []
  },
  {
    name: "PaginatedQuotes",
    schema: Page.PaginatedQuotes,
    example: wire.paginatedQuotes,
    optional: [],
    nullable: ["next_cursor"]
  },
  {
    name: "PaginatedLocks",
    schema: Page.PaginatedLocks,
    example: wire.paginatedLocks,
    optional: [],
    nullable: ["next_cursor"]
  },
  {
    name: "PaginatedWebhookEvents",
    schema: Page.PaginatedWebhookEvents,
    example: wire.paginatedWebhookEvents,
    optional: [],
    nullable: ["next_cursor"]
  },
  {
    name: "ListQuotesQuery",
    schema: ListQuery.ListQuotesQuery,
    example: wire.listQuotesQuery,
    optional: ["status", "customer_reference_id", "limit", "cursor"],
    nullable: []
  },
  {
    name: "ListLocksQuery",
    schema: ListQuery.ListLocksQuery,
    example: wire.listLocksQuery,
    optional: ["status", "limit", "cursor"],
    nullable: []
  },
  {
    name: "ListWebhookEventsQuery",
    schema: ListQuery.ListWebhookEventsQuery,
    example: wire.listWebhookEventsQuery,
    optional: ["direction", "fx_contract_id", "limit", "cursor"],
    nullable: []
  },
  { name: "ErrorBody", schema: ApiError.ErrorBody, example: wire.errorBody, optional: ["detail"], nullable: [] }
]

/** Every key path of an example (objects only, arrays and `opaque` keys not entered). */
const keyPaths = (obj: unknown, opaque: ReadonlyArray<string> = [], prefix: Path = []): ReadonlyArray<Path> => {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return []
  return Object.entries(obj).flatMap(([key, value]) => {
    const here = [...prefix, key]
    return opaque.includes(here.join(".")) ? [here] : [here, ...keyPaths(value, opaque, here)]
  })
}

describe("required, optional and nullable fields", () => {
  for (const { name, schema, example, optional, nullable, opaque = [] } of shapes) {
    describe(name, () => {
      if (optional.length > 0) {
        it(`may omit ${optional.join(", ")} (one at a time and all together), and omission round-trips`, () => {
          for (const key of optional) {
            const input = omitAt(example, path(key))
            expectOk(schema, input)
            assert.deepStrictEqual(roundTrip(schema, input), input)
          }
          const bare = omitAll(example, optional)
          expectOk(schema, bare)
          assert.deepStrictEqual(roundTrip(schema, bare), bare)
        })
      }

      if (nullable.length > 0) {
        it(`accepts null for ${nullable.join(", ")}, and null round-trips`, () => {
          for (const key of nullable) {
            const input = setAt(example, path(key), null)
            expectOk(schema, input)
            assert.deepStrictEqual(roundTrip(schema, input), input)
          }
        })
      }

      // nested keys of an optional object are only required when it is present
      const required = keyPaths(example, opaque).filter((p) => {
        const key = p.join(".")
        return !optional.includes(key) && !optional.some((o) => key.startsWith(`${o}.`))
      })

      if (required.length > 0) {
        it("rejects the example without any one of its required fields", () => {
          for (const p of required) expectRejected(schema, omitAt(example, p), p.join("."))
        })
      }

      it("rejects null in non-nullable fields", () => {
        for (const p of keyPaths(example, opaque)) {
          const key = p.join(".")
          // `payload` is any JSON, null included
          if (nullable.includes(key) || opaque.includes(key)) continue
          expectRejected(schema, setAt(example, p, null), key)
        }
      })
    })
  }

  it("every list query accepts an empty query string", () => {
    expectOk(ListQuery.ListQuotesQuery, {})
    expectOk(ListQuery.ListLocksQuery, {})
    expectOk(ListQuery.ListWebhookEventsQuery, {})
  })

  it("a quote request without the optional strike fields is valid (strike_mode defaults to cip_fair)", () =>
    expectOk(
      QuoteRequest.QuoteRequest,
      omitAll(wire.quoteRequest, ["strike_mode", "target_strike", "provider_extra_spread"])
    ))
})

// ---------------------------------------------------------------------------------------------
// enumerations: exactly their values

interface Enumeration {
  readonly name: string
  readonly values: ReadonlyArray<string>
  readonly rejected: ReadonlyArray<string>
  /** The literal schema itself, when it is exported, to compare the full set. */
  readonly literals?: ReadonlyArray<unknown>
  /** Where the enumeration occurs: schema, valid example, key path. */
  readonly at: ReadonlyArray<readonly [Codec, unknown, string]>
}

const enumerations: ReadonlyArray<Enumeration> = [
  {
    name: "chain",
    values: ["solana", "ethereum", "polygon"],
    rejected: ["bitcoin", "Solana", "tron", ""],
    literals: Rail.Chain.literals,
    at: [
      [QuoteRequest.QuoteRequest, wire.quoteRequest, "chain"],
      [Quote.QuoteResponse, wire.quoteResponse, "chain"],
      [Contract.ContractResponse, wire.contractResponse, "chain"],
      [Contract.LockResponse, wire.lockResponse, "chain"],
      [InboundEvent.FundsInRoute, wire.fundsInRoute, "chain"],
      [InboundEvent.ContractExercised, wire.contractExercised, "chain"],
      [OutboundEvent.FundsReceived, wire.fundsReceived, "funds.chain"],
      [OutboundEvent.PayoutSettled, wire.payoutSettled, "payout.chain"],
      [OutboundEvent.PayoutFailed, wire.payoutFailed, "payout.chain"],
      [OutboundEvent.ContractExpired, wire.contractExpired, "deposit_outcome.chain"]
    ]
  },
  {
    name: "settlement_currency",
    values: ["USDC", "USDT", "EURC"],
    rejected: ["BRLA", "usdc", "DAI", "USD"],
    literals: Rail.SettlementCurrency.literals,
    at: [
      [QuoteRequest.QuoteRequest, wire.quoteRequest, "settlement_currency"],
      [Quote.QuoteResponse, wire.quoteResponse, "settlement_currency"],
      [Contract.ContractResponse, wire.contractResponse, "settlement_currency"],
      [Contract.LockResponse, wire.lockResponse, "settlement_currency"],
      [OutboundEvent.FundsReceived, wire.fundsReceived, "funds.currency"],
      [OutboundEvent.ContractExpired, wire.contractExpired, "deposit_outcome.currency"]
    ]
  },
  {
    // The spec's payout tables say "settlement currency enum", but contract_exercised lets the
    // partner ask for a BRLA payout (spec and api-decisions.md): the payout events carry that token.
    name: "outbound payout.currency (settlement currencies, plus BRLA for a BRLA payout)",
    values: ["USDC", "USDT", "EURC", "BRLA"],
    rejected: ["DAI", "usdc", "BRL", "USD"],
    at: [
      [OutboundEvent.PayoutSettled, wire.payoutSettled, "payout.currency"],
      [OutboundEvent.PayoutFailed, wire.payoutFailed, "payout.currency"]
    ]
  },
  {
    name: "contract_type",
    values: ["forward", "option"],
    rejected: ["swap", "Forward"],
    literals: QuoteRequest.ContractType.literals,
    at: [
      [QuoteRequest.QuoteRequest, wire.quoteRequest, "contract_type"],
      [OutboundEvent.ContractExpired, wire.contractExpired, "contract.contract_type"]
    ]
  },
  {
    name: "notional_currency",
    values: ["USD", "BRL", "MXN", "EUR"],
    rejected: ["NGN", "GBP", "usd", "USDC"],
    literals: Corridor.NotionalCurrency.literals,
    at: [[QuoteRequest.QuoteRequest, wire.quoteRequest, "notional_currency"]]
  },
  {
    name: "strike_mode",
    values: ["cip_fair", "live_spot", "custom"],
    rejected: ["market", "CUSTOM", "fair"],
    literals: QuoteRequest.StrikeMode.literals,
    at: [
      [QuoteRequest.QuoteRequest, wire.quoteRequest, "strike_mode"],
      [Quote.QuoteResponse, wire.quoteResponse, "strike_mode"]
    ]
  },
  {
    name: "direction (union of the schema list and the prose list: 9 values)",
    values: [
      "BRL_TO_USD",
      "USD_TO_BRL",
      "BRL_TO_EUR",
      "BRL_TO_MXN",
      "USD_TO_EUR",
      "EUR_TO_USD",
      "NGN_TO_USD",
      "USD_TO_MXN",
      "MXN_TO_USD"
    ],
    rejected: ["USD_TO_NGN", "EUR_TO_BRL", "MXN_TO_BRL", "usd_to_brl", "USDBRL", "USD/BRL"],
    literals: Corridor.Direction.literals,
    at: [[QuoteRequest.QuoteRequest, wire.quoteRequest, "direction"]]
  },
  {
    name: "contract status",
    values: [
      "quote_created",
      "funds_in_route",
      "active",
      "exercised",
      "settled",
      "expired",
      "failed",
      "defaulted",
      "deposit_forfeited"
    ],
    rejected: ["pending", "cancelled", "created", "ACTIVE"],
    literals: Contract.ContractStatus.literals,
    at: [
      [Contract.LockResponse, wire.lockResponse, "status"],
      [ListQuery.ListLocksQuery, wire.listLocksQuery, "status"]
    ]
  },
  {
    name: "quote status",
    values: ["created", "failed"],
    rejected: ["expired", "accepted", "active"],
    literals: Quote.QuoteStatus.literals,
    at: [
      [Quote.QuoteResponse, wire.quoteResponse, "status"],
      [ListQuery.ListQuotesQuery, wire.listQuotesQuery, "status"]
    ]
  },
  {
    name: "inbound payment_type",
    values: ["premium", "deposit"],
    rejected: ["fee", "full"],
    literals: InboundEvent.PaymentType.literals,
    at: [[InboundEvent.FundsInRoute, wire.fundsInRoute, "payment_type"]]
  },
  {
    name: "inbound funds currency",
    values: ["USDC", "USDT", "EURC", "BRLA"],
    rejected: ["DAI", "BRL", "usdt"],
    literals: Rail.FundsCurrency.literals,
    at: [[InboundEvent.FundsInRoute, wire.fundsInRoute, "currency"]]
  },
  {
    name: "payout_currency",
    values: ["USDC", "BRLA"],
    rejected: ["USDT", "EURC", "BRL"],
    literals: Rail.PayoutCurrency.literals,
    at: [[InboundEvent.ContractExercised, wire.contractExercised, "payout_currency"]]
  },
  {
    name: "webhook event direction",
    values: ["incoming", "outgoing"],
    rejected: ["both", "inbound", "outbound"],
    literals: WebhookEventRecord.EventDirection.literals,
    at: [
      [WebhookEventRecord.WebhookEventRecord, wire.webhookEventRecord, "direction"],
      [ListQuery.ListWebhookEventsQuery, wire.listWebhookEventsQuery, "direction"]
    ]
  },
  {
    name: "ack status",
    values: ["processed", "duplicate", "queued"],
    rejected: ["failed", "accepted"],
    literals: InboundEvent.AckStatus.literals,
    at: [[InboundEvent.InboundAck, wire.inboundAck, "status"]]
  },
  {
    name: "environment",
    values: ["sandbox", "production"],
    rejected: ["staging", "test", "Sandbox"],
    literals: Partner.Environment.literals,
    at: [[Partner.PartnerIdentity, wire.partnerIdentity, "environment"]]
  },
  {
    name: "funds_received contract_status (const active)",
    values: ["active"],
    rejected: ["settled", "funds_in_route"],
    at: [[OutboundEvent.FundsReceived, wire.fundsReceived, "contract_status"]]
  },
  {
    name: "payout_settled payout.status (const settled)",
    values: ["settled"],
    rejected: ["failed"],
    at: [[OutboundEvent.PayoutSettled, wire.payoutSettled, "payout.status"]]
  },
  {
    name: "payout_failed payout.status (const failed)",
    values: ["failed"],
    rejected: ["settled"],
    at: [[OutboundEvent.PayoutFailed, wire.payoutFailed, "payout.status"]]
  },
  {
    name: "contract_expired deposit_outcome.status (const forfeited)",
    values: ["forfeited"],
    rejected: ["released", "refunded"],
    at: [[OutboundEvent.ContractExpired, wire.contractExpired, "deposit_outcome.status"]]
  }
]

describe("enumerations accept exactly their values", () => {
  for (const { name, values, rejected, literals, at } of enumerations) {
    it(name, () => {
      if (literals !== undefined) assert.deepStrictEqual(sorted(literals), sorted(values))
      for (const [schema, example, key] of at) {
        for (const value of values) expectOk(schema, setAt(example, path(key), value))
        for (const value of rejected) expectRejected(schema, setAt(example, path(key), value), key)
      }
    })
  }
})

// ---------------------------------------------------------------------------------------------
// decimal strings

describe("decimal strings (^-?[0-9]+([.][0-9]+)?$)", () => {
  const valid = [
    "0",
    "5",
    "5.4400",
    "-1.25",
    "-0.50",
    "100000.00",
    "0.000001",
    "3578.154425",
    "123456789012345678901234567890.1234567890"
  ]
  const invalid: ReadonlyArray<unknown> = [
    "1e3",
    "1E3",
    "1.",
    ".5",
    "-.5",
    "+1",
    " 1",
    "1 ",
    "",
    "-",
    "1,5",
    "1.2.3",
    "NaN",
    "Infinity",
    "0x10",
    "1_000",
    5,
    5.44,
    0,
    null,
    true
  ]

  it("accepts the pattern, decodes to BigDecimal, and encodes back to the same string", () => {
    for (const s of valid) {
      const value = Schema.decodeUnknownSync(Money.DecimalString)(s)
      assert.isTrue(BigDecimal.isBigDecimal(value), s)
      assert.strictEqual(Schema.encodeSync(Money.DecimalString)(value), s)
    }
  })

  it('keeps the scale: "5.4400" is 54400 × 10^-4 and stays "5.4400"', () => {
    const value = Schema.decodeUnknownSync(Money.DecimalString)("5.4400")
    assert.strictEqual(value.value, 54400n)
    assert.strictEqual(value.scale, 4)
    assert.isTrue(BigDecimal.equals(value, BigDecimal.make(544n, 2)))
    assert.strictEqual(Schema.encodeSync(Money.DecimalString)(value), "5.4400")
    assert.strictEqual(Schema.encodeSync(Money.DecimalString)(BigDecimal.make(5000000000n, 6)), "5000.000000")
  })

  it("rejects exponents, bare points, signs other than -, spaces and JSON numbers", () => {
    for (const s of invalid) expectRejected(Money.DecimalString, s)
  })

  it("every decimal field of a response rejects a JSON number and an exponent", () => {
    const fields: ReadonlyArray<readonly [Codec, unknown, string]> = [
      [Quote.QuoteResponse, wire.quoteResponse, "locked_rate"],
      [Quote.QuoteResponse, wire.quoteResponse, "target_strike"],
      [Quote.QuoteResponse, wire.quoteResponse, "provider_extra_spread"],
      [Quote.QuoteResponse, wire.quoteResponse, "premium_amount"],
      [Quote.QuoteResponse, wire.quoteResponse, "deposit_amount"],
      [Quote.QuoteResponse, wire.quoteResponse, "total_amount"],
      [Contract.ContractResponse, wire.contractResponse, "provider_rate_at_lock"],
      [Contract.ContractResponse, wire.contractResponse, "market_rate_at_lock"],
      [Contract.ContractResponse, wire.contractResponse, "max_transaction_amount"],
      [InboundEvent.FundsInRoute, wire.fundsInRoute, "amount"],
      [InboundEvent.ContractExercised, wire.contractExercised, "live_execution_rate"],
      [OutboundEvent.FundsReceived, wire.fundsReceived, "funds.amount"],
      [OutboundEvent.PayoutSettled, wire.payoutSettled, "payout.amount"],
      [OutboundEvent.PayoutSettled, wire.payoutSettled, "contract.fx_delta_in_quote_currency"],
      [OutboundEvent.PayoutFailed, wire.payoutFailed, "payout.amount"],
      [OutboundEvent.ContractExpired, wire.contractExpired, "deposit_outcome.amount"]
    ]
    for (const [schema, example, key] of fields) {
      expectRejected(schema, setAt(example, path(key), 5.5), key)
      expectRejected(schema, setAt(example, path(key), "5e3"), key)
      expectRejected(schema, setAt(example, path(key), ".5"), key)
    }
  })

  it("every decimal field of the quote request follows the pattern", () => {
    for (const key of ["notional_amount", "provider_rate", "market_rate", "provider_extra_spread", "target_strike"]) {
      for (const bad of ["1e3", "1.", ".5", "+1", " 1", 1000]) {
        expectRejected(QuoteRequest.QuoteRequest, setAt(wire.quoteRequest, [key], bad), key)
      }
      expectOk(QuoteRequest.QuoteRequest, setAt(wire.quoteRequest, [key], "5.123456"))
    }
  })

  it("a response keeps the scale of every amount through decode → encode", () => {
    const input = { ...wire.quoteResponse, locked_rate: "5.44000000", premium_amount: "0.100000", total_amount: "1" }
    assert.deepStrictEqual(roundTrip(Quote.QuoteResponse, input), input)
  })
})

// ---------------------------------------------------------------------------------------------
// datetimes

describe("datetimes", () => {
  it("an offset is accepted and normalised to UTC with Z", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["2026-11-21T10:00:00+02:00", "2026-11-21T08:00:00.000Z"],
      ["2026-11-21T10:00:00-05:30", "2026-11-21T15:30:00.000Z"],
      ["2026-11-21T00:30:00+01:00", "2026-11-20T23:30:00.000Z"],
      ["2026-11-21T10:00:00Z", "2026-11-21T10:00:00.000Z"],
      ["2026-11-21T10:00:00.250Z", "2026-11-21T10:00:00.250Z"]
    ]
    for (const [input, utc] of cases) {
      const value = Schema.decodeUnknownSync(Fields.Datetime)(input)
      assert.isTrue(DateTime.isUtc(value), input)
      assert.strictEqual(value.epochMilliseconds, Date.parse(input))
      assert.strictEqual(Schema.encodeSync(Fields.Datetime)(value), utc)
    }
  })

  it("responses and events encode offset inputs back as UTC with Z", () => {
    const quote = roundTrip(Quote.QuoteResponse, { ...wire.quoteResponse, window_start: "2026-11-21T12:00:00+02:00" })
    assert.strictEqual((quote as { window_start: string }).window_start, "2026-11-21T10:00:00.000Z")
    const event = roundTrip(InboundEvent.ContractExercised, {
      ...wire.contractExercised,
      executed_at: "2026-12-01T12:30:00-03:00"
    })
    assert.strictEqual((event as { executed_at: string }).executed_at, "2026-12-01T15:30:00.000Z")
    const record = roundTrip(WebhookEventRecord.WebhookEventRecord, {
      ...wire.webhookEventRecord,
      created_at: "2026-11-20T13:05:01+01:00"
    })
    assert.strictEqual((record as { created_at: string }).created_at, "2026-11-20T12:05:01.000Z")
  })

  it("rejects strings without a zone, partial dates and garbage", () => {
    const invalid: ReadonlyArray<unknown> = [
      "2026-11-21T10:00:00",
      "2026-11-21T10:00",
      "2026-11-21",
      "10:00:00Z",
      "2026-11-21T10:00:00+0200",
      "2026-11-21T10:00:00 UTC",
      "20261121T100000Z",
      "2026-13-01T10:00:00Z",
      "2026-11-21T25:00:00Z",
      "2026-11-21T10:61:00Z",
      "tomorrow",
      "garbage",
      "",
      1795255200000,
      null
    ]
    for (const s of invalid) expectRejected(Fields.Datetime, s)
    for (const s of invalid)
      expectRejected(QuoteRequest.QuoteRequest, { ...wire.quoteRequest, window_end: s }, "window_end")
  })

  it("[spec] rejects impossible calendar dates instead of rolling them over", () => {
    // a date-time must name a real instant; 2026 is not a leap year
    const impossible = [
      "2026-02-30T10:00:00Z",
      "2026-02-29T10:00:00Z",
      "2026-04-31T10:00:00Z",
      "2026-11-31T10:00:00+02:00"
    ]
    const accepted = impossible.filter((s) => problems(Fields.Datetime, s).length === 0)
    assert.deepStrictEqual(accepted, [], "impossible dates that decode")
    expectOk(Fields.Datetime, "2028-02-29T10:00:00Z") // a leap year
  })

  it("every datetime field of a request or event is validated", () => {
    const fields: ReadonlyArray<readonly [Codec, unknown, string]> = [
      [QuoteRequest.QuoteRequest, wire.quoteRequest, "market_rate_timestamp"],
      [QuoteRequest.QuoteRequest, wire.quoteRequest, "window_start"],
      [Quote.QuoteResponse, wire.quoteResponse, "expires_at"],
      [Quote.QuoteResponse, wire.quoteResponse, "created_at"],
      [Contract.ContractResponse, wire.contractResponse, "window_end"],
      [InboundEvent.ContractExercised, wire.contractExercised, "executed_at"],
      [OutboundEvent.FundsReceived, wire.fundsReceived, "delivered_at"],
      [OutboundEvent.FundsReceived, wire.fundsReceived, "funds.confirmed_at"],
      [OutboundEvent.PayoutSettled, wire.payoutSettled, "payout.settled_at"],
      [OutboundEvent.PayoutFailed, wire.payoutFailed, "payout.next_retry_at"],
      [OutboundEvent.ContractExpired, wire.contractExpired, "contract.expired_at"],
      [OutboundEvent.ContractExpired, wire.contractExpired, "deposit_outcome.forfeited_at"],
      [WebhookEventRecord.WebhookEventRecord, wire.webhookEventRecord, "processed_at"]
    ]
    for (const [schema, example, key] of fields) {
      expectRejected(schema, setAt(example, path(key), "2026-11-21T10:00:00"), key)
      expectOk(schema, setAt(example, path(key), "2026-11-21T10:00:00+02:00"))
    }
  })
})

// ---------------------------------------------------------------------------------------------
// uuids

describe("uuids", () => {
  const invalid: ReadonlyArray<unknown> = [
    "not-a-uuid",
    "0193a6f07c1e7a529d4b2f6e8c1a0b05",
    "0193a6f0-7c1e-7a52-9d4b-2f6e8c1a0b0",
    "0193a6f0-7c1e-7a52-9d4b-2f6e8c1a0b055",
    "g193a6f0-7c1e-7a52-9d4b-2f6e8c1a0b05",
    "{0193a6f0-7c1e-7a52-9d4b-2f6e8c1a0b05}",
    " 0193a6f0-7c1e-7a52-9d4b-2f6e8c1a0b05",
    "",
    12345
  ]

  it("Fields.Uuid accepts the canonical form and rejects others", () => {
    expectOk(Fields.Uuid, "0193a6f0-7c1e-7a52-9d4b-2f6e8c1a0b05")
    expectOk(Fields.Uuid, "123e4567-e89b-42d3-a456-426614174000")
    for (const s of invalid) expectRejected(Fields.Uuid, s)
  })

  it("every uuid field is validated", () => {
    const fields: ReadonlyArray<readonly [Codec, unknown, string]> = [
      [Quote.QuoteResponse, wire.quoteResponse, "id"],
      [ContractRequest.ContractRequest, wire.contractRequest, "quote_id"],
      [Contract.ContractResponse, wire.contractResponse, "id"],
      [Contract.LockResponse, wire.lockResponse, "quote_id"],
      [InboundEvent.FundsInRoute, wire.fundsInRoute, "fx_contract_id"],
      [InboundEvent.ContractExercised, wire.contractExercised, "fx_contract_id"],
      [InboundEvent.InboundAck, wire.inboundAck, "webhook_event_id"],
      [OutboundEvent.FundsReceived, wire.fundsReceived, "fx_contract_id"],
      [OutboundEvent.PayoutSettled, wire.payoutSettled, "fx_contract_id"],
      [OutboundEvent.PayoutFailed, wire.payoutFailed, "fx_contract_id"],
      [OutboundEvent.ContractExpired, wire.contractExpired, "fx_contract_id"],
      [WebhookEventRecord.WebhookEventRecord, wire.webhookEventRecord, "id"],
      [WebhookEventRecord.WebhookEventRecord, wire.webhookEventRecord, "partner_id"],
      [WebhookEventRecord.WebhookEventRecord, wire.webhookEventRecord, "fx_contract_id"],
      [Partner.PartnerIdentity, wire.partnerIdentity, "partner_id"],
      [Partner.PartnerIdentity, wire.partnerIdentity, "api_key_id"],
      [ListQuery.ListWebhookEventsQuery, wire.listWebhookEventsQuery, "fx_contract_id"]
    ]
    for (const [schema, example, key] of fields) {
      for (const bad of ["not-a-uuid", "0193a6f07c1e7a529d4b2f6e8c1a0b05"]) {
        expectRejected(schema, setAt(example, path(key), bad), key)
      }
    }
  })
})

// ---------------------------------------------------------------------------------------------
// string and number limits

describe("limits", () => {
  const chars = (n: number) => "x".repeat(n)

  for (const key of ["customer_reference_id", "customer_name"]) {
    it(`quote request ${key}: 1 to 256 characters`, () => {
      expectRejected(QuoteRequest.QuoteRequest, { ...wire.quoteRequest, [key]: "" }, key)
      expectOk(QuoteRequest.QuoteRequest, { ...wire.quoteRequest, [key]: chars(1) })
      expectOk(QuoteRequest.QuoteRequest, { ...wire.quoteRequest, [key]: chars(256) })
      expectRejected(QuoteRequest.QuoteRequest, { ...wire.quoteRequest, [key]: chars(257) }, key)
    })
  }

  it("contract request partner_transaction_reference: at most 256 characters", () => {
    expectOk(ContractRequest.ContractRequest, { ...wire.contractRequest, partner_transaction_reference: chars(256) })
    expectOk(ContractRequest.ContractRequest, { ...wire.contractRequest, partner_transaction_reference: "" })
    expectRejected(
      ContractRequest.ContractRequest,
      { ...wire.contractRequest, partner_transaction_reference: chars(257) },
      "partner_transaction_reference"
    )
  })

  const listQueries: ReadonlyArray<readonly [string, Codec]> = [
    ["ListQuotesQuery", ListQuery.ListQuotesQuery],
    ["ListLocksQuery", ListQuery.ListLocksQuery],
    ["ListWebhookEventsQuery", ListQuery.ListWebhookEventsQuery]
  ]

  for (const [name, schema] of listQueries) {
    it(`${name} limit: "1".."100" decode to integers; "0", "101", "abc" and non-integers are rejected`, () => {
      for (const n of [1, 2, 25, 99, 100]) {
        assert.deepStrictEqual(decodeSync(schema, { limit: String(n) }), { limit: n })
      }
      for (const bad of ["0", "101", "abc", "-1", "1.5", "", "1000"]) expectRejected(schema, { limit: bad }, "limit")
    })

    it(`[spec] ${name} limit accepts only plain decimal integer text`, () => {
      // spec: limit is an integer 1-100; JavaScript number coercion must not leak into the API
      const lax = ["0x10", "1e1", " 5", "+5", "5 ", "0b11", "10.0"]
      const accepted = lax.filter((bad) => problems(schema, { limit: bad }).length === 0)
      assert.deepStrictEqual(accepted, [], "non-integer texts accepted as limit")
    })
  }

  it("the quote listing's customer_reference_id filter follows the same 1-256 limit", () => {
    expectOk(ListQuery.ListQuotesQuery, { customer_reference_id: chars(256) })
    expectRejected(ListQuery.ListQuotesQuery, { customer_reference_id: chars(257) }, "customer_reference_id")
    expectRejected(ListQuery.ListQuotesQuery, { customer_reference_id: "" }, "customer_reference_id")
  })

  it("strike_advantage_bps is an integer of at least 0", () => {
    expectOk(Quote.QuoteResponse, { ...wire.quoteResponse, strike_advantage_bps: 0 })
    for (const bad of [-1, 1.5, "12"]) {
      expectRejected(Quote.QuoteResponse, { ...wire.quoteResponse, strike_advantage_bps: bad }, "strike_advantage_bps")
    }
  })

  it("block numbers and retry counts are integers", () => {
    expectRejected(
      OutboundEvent.FundsReceived,
      setAt(wire.fundsReceived, ["funds", "block_number"], 1.5),
      "funds.block_number"
    )
    expectRejected(
      OutboundEvent.FundsReceived,
      setAt(wire.fundsReceived, ["funds", "block_number"], "312456789"),
      "funds.block_number"
    )
    expectRejected(
      WebhookEventRecord.WebhookEventRecord,
      { ...wire.webhookEventRecord, retry_count: 0.5 },
      "retry_count"
    )
  })

  it("ErrorBody loc items are strings or integers", () => {
    expectOk(ApiError.ErrorBody, setAt(wire.errorBody, ["detail"], [{ loc: ["query", "limit"], msg: "m", type: "t" }]))
    expectRejected(ApiError.ErrorBody, setAt(wire.errorBody, ["detail"], [{ loc: ["body", 1.5], msg: "m", type: "t" }]))
    expectRejected(
      ApiError.ErrorBody,
      setAt(wire.errorBody, ["detail"], [{ loc: ["body", null], msg: "m", type: "t" }])
    )
  })
})

// ---------------------------------------------------------------------------------------------
// errors: "all"

describe("every failure of a request is reported together (errors: all)", () => {
  it("a quote request with five bad fields reports five issues, one per field", () => {
    const input = {
      ...wire.quoteRequest,
      customer_name: "",
      direction: "USD_TO_JPY",
      notional_amount: "1e3",
      window_start: "tomorrow",
      quote_currency: "BRL"
    }
    const found = problems(QuoteRequest.QuoteRequest, input)
    assert.strictEqual(found.length, 5, show(found))
    assert.deepStrictEqual(sorted(found.map((p) => p.path)), [
      "customer_name",
      "direction",
      "notional_amount",
      "quote_currency",
      "window_start"
    ])
  })

  it("the SchemaError carries the whole issue tree", () => {
    const exit = decode(QuoteRequest.QuoteRequest, { customer_reference_id: 42 })
    assert.isTrue(Exit.isFailure(exit))
    if (Exit.isFailure(exit)) {
      const error = Cause.findErrorOption(exit.cause)
      assert.isTrue(Option.isSome(error))
      if (Option.isSome(error)) {
        assert.isTrue(Schema.isSchemaError(error.value))
        assert.isTrue(SchemaIssue.isIssue(error.value.issue))
        // the wrong type plus the 12 other required fields, all missing
        assert.strictEqual(flatten(error.value.issue).length, 13)
        assert.include(error.value.message, "customer_reference_id")
      }
    }
  })

  it("without errors: all only the first failure would be reported", () => {
    const exit = Schema.decodeUnknownExit(QuoteRequest.QuoteRequest)({ customer_reference_id: 42 })
    assert.isTrue(Exit.isFailure(exit))
    if (Exit.isFailure(exit)) {
      const error = Cause.findErrorOption(exit.cause)
      if (Option.isSome(error)) assert.strictEqual(flatten(error.value.issue).length, 1)
    }
  })

  it("a contract request reports a bad uuid, a too long reference and an unknown property together", () => {
    const found = problems(ContractRequest.ContractRequest, {
      quote_id: "nope",
      partner_transaction_reference: "x".repeat(257),
      quote_ttl: 90
    })
    assert.deepStrictEqual(sorted(found.map((p) => p.path)), ["partner_transaction_reference", "quote_id", "quote_ttl"])
  })

  it("an inbound event reports every bad field of its shape", () => {
    const found = problems(InboundEvent.InboundEvent, {
      ...wire.contractExercised,
      executed_at: "yesterday",
      chain: "bitcoin",
      extra: true
    })
    assert.deepStrictEqual(sorted(found.map((p) => p.path)), ["chain", "executed_at", "extra"])
  })

  it("a list query reports each bad parameter", () => {
    const found = problems(ListQuery.ListWebhookEventsQuery, {
      direction: "sideways",
      fx_contract_id: "x",
      limit: "0",
      page: "2"
    })
    assert.deepStrictEqual(sorted(found.map((p) => p.path)), ["direction", "fx_contract_id", "limit", "page"])
  })

  it.effect("RequestDecoding.decodeRequest applies the same options", () =>
    Effect.gen(function* () {
      const request = yield* RequestDecoding.decodeRequest(QuoteRequest.QuoteRequest)(wire.quoteRequest)
      assert.strictEqual(request.customer_reference_id, wire.quoteRequest.customer_reference_id)

      const error = yield* Effect.flip(
        RequestDecoding.decodeRequest(QuoteRequest.QuoteRequest)({
          ...wire.quoteRequest,
          chain: "tron",
          settlement_currency: "BRLA",
          unknown: 1
        })
      )
      assert.deepStrictEqual(sorted(flatten(error.issue).map((p) => p.path)), [
        "chain",
        "settlement_currency",
        "unknown"
      ])
    })
  )
})
