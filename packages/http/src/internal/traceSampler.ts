/**
 * Head sampling as `OTEL_TRACES_SAMPLER` names it, on top of an exporting tracer: which new traces
 * are recorded. A span below another of this process always follows its parent, so a trace is
 * kept or dropped whole; the decision is taken where a trace starts here (a request with no
 * `traceparent`, a worker pass) or arrives (a request's `traceparent`):
 *
 * - `always_on` / `parentbased_always_on` (the default): every trace;
 * - `always_off` / `parentbased_always_off`: none;
 * - `traceidratio` / `parentbased_traceidratio`: the fraction `OTEL_TRACES_SAMPLER_ARG` (0 to 1);
 * - the `parentbased_` ones follow a caller's `traceparent` flag when a request carries one.
 *
 * An unsampled span costs what a span of Effect's built-in tracer costs: the HTTP server skips
 * its attributes, nothing is exported, and no trace context is stored with the events it writes.
 */
import { Option, Tracer } from "effect"

export const names = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const

export type Name = (typeof names)[number]

export interface Sampler {
  readonly name: Name
  /** For the ratio samplers: the fraction of traces kept. */
  readonly ratio: number
}

/** Every trace kept: nothing to decide. */
export const isAlwaysOn = (sampler: Sampler): boolean =>
  sampler.name === "always_on" ||
  sampler.name === "parentbased_always_on" ||
  (sampler.name.endsWith("traceidratio") && sampler.ratio >= 1)

/** The decision for a trace that starts here, or that a caller's `traceparent` brings. */
const decide = (sampler: Sampler, remote: Tracer.ExternalSpan | undefined): boolean => {
  if (remote !== undefined && sampler.name.startsWith("parentbased_")) return remote.sampled
  if (sampler.name.endsWith("always_on")) return true
  if (sampler.name.endsWith("always_off")) return false
  return Math.random() < sampler.ratio
}

/** `tracer`, recording only the traces `sampler` keeps. */
export const sampled = (tracer: Tracer.Tracer, sampler: Sampler): Tracer.Tracer =>
  Tracer.make({
    span: (options) => {
      const parent = Option.getOrUndefined(options.parent)
      // a local parent already decided for its whole trace (Effect passes its decision down)
      if (parent?._tag === "Span") return tracer.span(options)
      // a caller's flag counts for the parent-based samplers only (Effect applied it already)
      const sampled =
        parent !== undefined && !sampler.name.startsWith("parentbased_")
          ? decide(sampler, undefined)
          : options.sampled && decide(sampler, parent)
      return tracer.span({ ...options, sampled })
    },
    ...(tracer.context === undefined ? {} : { context: tracer.context })
  })
