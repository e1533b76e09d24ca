/**
 * Schema issues as 422 `detail` items: one `{loc, msg, type}` per failed field, `loc` rooted where
 * the caller says (the request part, or a document's top), `type` one of the familiar names of
 * api-decisions.md where one fits. The API's 422s and the market snapshot's refusals use it.
 * Issues do not carry the refused value, so the walk follows the input alongside (a length check
 * is "too short" or "too long" depending on it).
 */
import { Predicate, SchemaAST, SchemaIssue } from "effect"
import * as ApiError from "./ApiError.ts"

type Loc = ReadonlyArray<string | number>
type Item = ApiError.ValidationIssue

const standard = SchemaIssue.makeFormatterStandardSchemaV1()
const message = (issue: SchemaIssue.Issue): string => standard(issue).issues[0]?.message ?? "Invalid value"

const at = (input: unknown, key: PropertyKey): unknown =>
  Predicate.isObject(input) || Array.isArray(input) ? (input as Record<PropertyKey, unknown>)[key] : undefined

/** Characters (code points), as the length checks count them. */
const charactersOf = (input: unknown) => (typeof input === "string" ? [...input].length : 0)

/**
 * The `type` of a failed check: the one our checks name themselves (`ApiError.issueType`), else
 * what Effect's own checks say of themselves (which check, its bounds), told apart by the value
 * refused where that decides (a length check is "too short" or "too long").
 */
const filterType = (issue: SchemaIssue.Filter, input: unknown): string => {
  const annotations = issue.filter.annotations
  const named = ApiError.issueTypeOf(annotations)
  if (named !== undefined) return named
  switch (annotations?.representation?.id) {
    case "effect/schema/isUUID":
      return "uuid_parsing"
    case "effect/schema/isPattern":
      return "string_pattern_mismatch"
    case "effect/schema/isMinCodePoints":
      return "string_too_short"
    case "effect/schema/isMaxCodePoints":
      return "string_too_long"
    case "effect/schema/isBetweenCodePoints": {
      const payload = annotations.representation.payload
      const minimum = Predicate.hasProperty(payload, "minimum") ? payload.minimum : undefined
      return typeof minimum === "number" && charactersOf(input) < minimum ? "string_too_short" : "string_too_long"
    }
  }
  const bounds = annotations?.arbitraryConstraint ?? {}
  const n = typeof input === "string" && input.trim() !== "" ? Number(input) : input
  if (typeof n === "number" && typeof bounds.minimum === "number" && n < bounds.minimum) {
    return bounds.exclusiveMinimum === true ? "greater_than" : "greater_than_equal"
  }
  if (typeof n === "number" && typeof bounds.maximum === "number" && n > bounds.maximum) {
    return bounds.exclusiveMaximum === true ? "less_than" : "less_than_equal"
  }
  if (bounds.minimum !== undefined) return bounds.exclusiveMinimum === true ? "greater_than" : "greater_than_equal"
  if (bounds.maximum !== undefined) return bounds.exclusiveMaximum === true ? "less_than" : "less_than_equal"
  return "value_error"
}

const typeNames: Partial<Record<SchemaAST.AST["_tag"], string>> = {
  String: "string_type",
  Number: "number_type",
  Boolean: "bool_type",
  Objects: "dict_type",
  Arrays: "list_type",
  Literal: "enum"
}

/** A union's discriminator: the key every member fixes to a literal (`event_type`). */
const discriminator = (ast: SchemaAST.Union): string | undefined => {
  const [first, ...rest] = ast.types.map((member) =>
    SchemaAST.isObjects(member)
      ? member.propertySignatures.filter((p) => SchemaAST.isLiteral(p.type)).map((p) => String(p.name))
      : []
  )
  return first?.find((name) => rest.every((names) => names.includes(name)))
}

/** A union none of whose members matched the value at all. */
const unmatched = (issue: SchemaIssue.AnyOf, loc: Loc, input: unknown): Item => {
  if (issue.ast.types.every(SchemaAST.isLiteral)) return { loc, msg: message(issue), type: "enum" }
  const key = discriminator(issue.ast)
  if (key !== undefined && Predicate.isObject(input)) {
    const allowed = issue.ast.types.flatMap((member) =>
      SchemaAST.isObjects(member)
        ? member.propertySignatures
            .filter((p) => String(p.name) === key)
            .map((p) => JSON.stringify((p.type as SchemaAST.Literal).literal))
        : []
    )
    const loc_ = [...loc, key]
    return key in input
      ? { loc: loc_, msg: `Expected ${allowed.join(" | ")}`, type: "union_tag_invalid" }
      : { loc: loc_, msg: "Missing key", type: "missing" }
  }
  return { loc, msg: message(issue), type: Predicate.isObject(input) ? "union_error" : "dict_type" }
}

const leaf = (issue: SchemaIssue.Leaf): string => {
  switch (issue._tag) {
    case "MissingKey":
      return "missing"
    case "UnexpectedKey":
      return "extra_forbidden"
    case "InvalidType":
      return typeNames[issue.ast._tag] ?? "type_error"
    case "InvalidValue":
      return issue.annotations?.message === "Expected a valid JSON body" ? "json_invalid" : "value_error"
    case "OneOf":
      return "union_error"
    case "Forbidden":
      return "value_error"
  }
}

/** Every failure under `issue`, each with its location below `loc`; `input` is the value at `loc`. */
export const flatten = (issue: SchemaIssue.Issue, loc: Loc, input: unknown): Array<Item> => {
  switch (issue._tag) {
    case "Pointer":
      return flatten(
        issue.issue,
        [...loc, ...issue.path.map((key) => (typeof key === "number" ? key : String(key)))],
        issue.path.reduce(at, input)
      )
    case "Encoding":
      return flatten(issue.issue, loc, input)
    case "Composite":
      return issue.issues.flatMap((i) => flatten(i, loc, input))
    case "AnyOf":
      return issue.issues.length > 0
        ? issue.issues.flatMap((i) => flatten(i, loc, input))
        : [unmatched(issue, loc, input)]
    case "Filter": {
      const type = filterType(issue, input)
      // a check that reports its own issues (at their paths) is read through, under its own type;
      // a plain "no" is one item here
      return issue.issue._tag === "InvalidValue" && issue.issue.annotations?.message === undefined
        ? [{ loc, msg: message(issue), type }]
        : flatten(issue.issue, loc, input).map((item) => ({ ...item, type }))
    }
    default:
      return [{ loc, msg: message(issue), type: leaf(issue) }]
  }
}

/** One item as a line for an operator: `rates.USD.points.0.rate: … [rate_out_of_range]`. */
export const line = (item: Item): string =>
  `${item.loc.length === 0 ? "(document)" : item.loc.join(".")}: ${item.msg} [${item.type}]`
