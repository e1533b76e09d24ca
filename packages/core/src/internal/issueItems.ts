/**
 * Schema issues as 422-style `{loc, msg, type}` items, for documents core validates itself (the market
 * snapshot). A check names its `type` with an annotation under `typeKey` (or `ApiError.issueType`); the
 * structural failures get the familiar names of api-decisions.md (`missing`, `extra_forbidden`, `string_type`).
 */
import { SchemaAST, SchemaIssue } from "effect"
import { issueTypeOf, type ValidationIssue } from "../ApiError.ts"

type Loc = ReadonlyArray<string | number>

const standard = SchemaIssue.makeFormatterStandardSchemaV1()
const messageOf = (issue: SchemaIssue.Issue): string => standard(issue).issues[0]?.message ?? "Invalid value"

const typeNames: Partial<Record<SchemaAST.AST["_tag"], string>> = {
  String: "string_type",
  Number: "number_type",
  Boolean: "bool_type",
  Objects: "dict_type",
  Arrays: "list_type",
  Literal: "enum"
}

const leafType = (issue: SchemaIssue.Leaf): string => {
  switch (issue._tag) {
    case "MissingKey":
      return "missing"
    case "UnexpectedKey":
      return "extra_forbidden"
    case "InvalidType":
      return typeNames[issue.ast._tag] ?? "type_error"
    default:
      return "value_error"
  }
}

/**
 * Every failure under `issue`, each located below `loc`. A failed check's own `type` (its annotation under
 * `typeKey`) applies to everything it reports, at the paths it reports them.
 */
export const issueItems = (issue: SchemaIssue.Issue, typeKey: string, loc: Loc = []): Array<ValidationIssue> => {
  const go = (issue: SchemaIssue.Issue, loc: Loc, type: string | undefined): Array<ValidationIssue> => {
    switch (issue._tag) {
      case "Pointer":
        return go(
          issue.issue,
          [...loc, ...issue.path.map((key) => (typeof key === "number" ? key : String(key)))],
          type
        )
      case "Encoding":
        return go(issue.issue, loc, type)
      case "Composite":
        return issue.issues.flatMap((i) => go(i, loc, type))
      case "AnyOf":
        return issue.issues.length > 0
          ? issue.issues.flatMap((i) => go(i, loc, type))
          : [
              {
                loc,
                msg: messageOf(issue),
                type: type ?? (issue.ast.types.every(SchemaAST.isLiteral) ? "enum" : "union_error")
              }
            ]
      case "Filter": {
        const annotations = issue.filter.annotations
        const named = annotations?.[typeKey]
        const own = typeof named === "string" ? named : (issueTypeOf(annotations) ?? type ?? "value_error")
        // a check that reports its own issues (with paths) is read through; a plain "no" is one item here
        return issue.issue._tag === "InvalidValue" && issue.issue.annotations?.message === undefined
          ? [{ loc, msg: messageOf(issue), type: own }]
          : go(issue.issue, loc, own)
      }
      default:
        return [{ loc, msg: messageOf(issue), type: type ?? leafType(issue) }]
    }
  }
  return go(issue, loc, undefined)
}
