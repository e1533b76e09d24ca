/**
 * Quote request rules beyond the schema: window order and limits, market-rate age, custom strike
 * without `target_strike`, notional currency outside the direction. Every failure of a request
 * is reported, each as a `{loc, msg, type: "validation_error"}` item.
 */
import { DateTime, Duration, Effect } from "effect"
import { ValidationError, type ValidationIssue } from "../kernel/ApiError.ts"
import { includes } from "../kernel/Corridor.ts"
import { QuotePolicy, type QuotePolicyShape } from "./QuotePolicy.ts"
import type { QuoteRequest } from "../terms/QuoteRequest.ts"

const issue = (field: string, msg: string): ValidationIssue => ({ loc: ["body", field], msg, type: "validation_error" })

const days = (d: Duration.Duration) => `${Math.round(Duration.toDays(d))} days`

/** The rule violations of a decoded request at `now`; empty when it is acceptable. */
export const violations = (
  request: QuoteRequest,
  now: DateTime.Utc,
  policy: QuotePolicyShape
): ReadonlyArray<ValidationIssue> => {
  const t = now.epochMilliseconds
  const start = request.window_start.epochMilliseconds
  const end = request.window_end.epochMilliseconds
  const horizon = t + Duration.toMillis(policy.maxHorizon)
  const issues: Array<ValidationIssue> = []

  if (end <= start) issues.push(issue("window_end", "window_end must be strictly after window_start"))
  if (start < t - Duration.toMillis(policy.windowStartGrace)) {
    issues.push(issue("window_start", "window_start must not be in the past"))
  }
  if (start > horizon) {
    issues.push(issue("window_start", `window_start must be within ${days(policy.maxHorizon)} of now`))
  }
  if (end < t + Duration.toMillis(policy.minTimeToWindowEnd)) {
    issues.push(issue("window_end", "window_end must be at least 1 hour after the current time"))
  }
  if (end > horizon) issues.push(issue("window_end", `window_end must be within ${days(policy.maxHorizon)} of now`))

  const age = Math.abs(t - request.market_rate_timestamp.epochMilliseconds)
  if (age > Duration.toMillis(policy.maxRateAge)) {
    issues.push(
      issue(
        "market_rate_timestamp",
        `market_rate_timestamp must be within ${Duration.toSeconds(policy.maxRateAge)} seconds of the request`
      )
    )
  }
  if (request.strike_mode === "custom" && (request.target_strike === undefined || request.target_strike === null)) {
    issues.push(issue("target_strike", "target_strike is required when strike_mode is custom"))
  }
  if (!includes(request.direction, request.notional_currency)) {
    issues.push(issue("notional_currency", `notional_currency must be one of the currencies of ${request.direction}`))
  }
  return issues
}

/** Checks a decoded request against the rules, at the current time from `Clock`. */
export const check = Effect.fn("QuoteRules.check")(function* (request: QuoteRequest) {
  const now = yield* DateTime.now
  const policy = yield* QuotePolicy
  const issues = violations(request, now, policy)
  if (issues.length > 0) return yield* ValidationError.fromIssues(issues)
})
