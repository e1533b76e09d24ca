/**
 * A 422 item's `type` comes from the check that failed: the name our checks carry
 * (`ApiError.issueType`), else what Effect's own checks say of themselves. (Over real HTTP, with
 * every request part: Errors.e2e.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import { Fields, ListQuery, Money } from "@ratelock/core"
import { Result, Schema } from "effect"
import { IssueDetail } from "@ratelock/core"

/** The `type`s of decoding `input` with `schema`, every issue reported. */
const typesOf = (schema: Schema.Top & { readonly DecodingServices: never }, input: unknown) => {
  const result = Schema.decodeUnknownResult(schema)(input, { errors: "all" })
  assert.isTrue(Result.isFailure(result), `${JSON.stringify(input)} decodes`)
  return Result.isFailure(result)
    ? IssueDetail.flatten(result.failure.issue, ["body"], input).map((item) => item.type)
    : []
}

describe("IssueDetail", () => {
  it("names the checks of core's fields by their own annotation", () => {
    assert.deepStrictEqual(typesOf(Fields.Datetime, "yesterday"), ["datetime_parsing"])
    assert.deepStrictEqual(typesOf(Fields.Datetime, "2026-02-30T10:00:00Z"), ["datetime_parsing"])
    assert.deepStrictEqual(typesOf(Money.DecimalString, "1,000"), ["decimal_parsing"])
    assert.deepStrictEqual(typesOf(Money.PositiveDecimalString, "5.4e0"), ["decimal_parsing"])
    assert.deepStrictEqual(typesOf(Money.PositiveDecimalString, "0.00"), ["greater_than"])
    assert.deepStrictEqual(typesOf(Money.PositiveDecimalString, "-0"), ["greater_than"])
    assert.deepStrictEqual(typesOf(Money.NonNegativeDecimalString, "-0.01"), ["greater_than_equal"])
    const limit = ListQuery.ListQuotesQuery.fields.limit
    assert.deepStrictEqual(typesOf(limit, "ten"), ["int_parsing"])
    assert.deepStrictEqual(typesOf(limit, "0"), ["greater_than_equal"])
  })

  it("names Effect's own checks by what they say of themselves", () => {
    assert.deepStrictEqual(typesOf(Fields.Uuid, "not-a-uuid"), ["uuid_parsing"])
    assert.deepStrictEqual(typesOf(Fields.BoundedString(3), ""), ["string_too_short"])
    assert.deepStrictEqual(typesOf(Fields.BoundedString(3), "four"), ["string_too_long"])
    assert.deepStrictEqual(typesOf(Fields.ShortString(3), "four"), ["string_too_long"])
    assert.deepStrictEqual(typesOf(Fields.PageLimit, 101), ["less_than_equal"])
    // a pattern that names no type, whatever its values look like
    assert.deepStrictEqual(typesOf(Schema.String.check(Schema.isPattern(/^[0-9]{1,3}$/u)), "ten"), [
      "string_pattern_mismatch"
    ])
    assert.deepStrictEqual(typesOf(Fields.BoundedString(3), "a\u0000"), ["value_error"])
  })
})
