/**
 * Idle worker passes are not exported. Each worker loop runs a pass every poll interval (250 ms
 * by default) and most find nothing to do: traced as they are, an idle worker process would send
 * some 50 spans a second that say nothing. So the spans of a pass's trace (a root span named
 * `worker.<pass>`) are held until the pass ends, then exported only when the pass did something:
 * it took jobs (`ratelock.jobs` above 0), it touched a contract (a job's span names its
 * `ratelock.contract_id`), or it failed. Every other span goes straight to the tracer.
 */
import { Cause, Exit, Option, type Tracer as T, Tracer } from "effect"

/** The name of a worker pass's root span (`Workers.ts`). */
const isPass = (name: string) => name.startsWith("worker.")

interface Held {
  readonly span: T.Span
  readonly endTime: bigint
  readonly exit: Exit.Exit<unknown, unknown>
}

/** One pass's trace: the spans ended so far, and whether it did something. */
class PassTrace {
  readonly held: Array<Held> = []
  worked = false
  done = false
  keep = false
}

/** A span of a pass's trace: the tracer's own span, its end held until the pass's is known. */
class HeldSpan implements T.Span {
  readonly _tag = "Span"
  status: T.SpanStatus
  readonly inner: T.Span
  readonly trace: PassTrace
  readonly root: boolean
  constructor(inner: T.Span, trace: PassTrace, root: boolean) {
    this.inner = inner
    this.trace = trace
    this.root = root
    this.status = inner.status
  }
  get name() {
    return this.inner.name
  }
  get spanId() {
    return this.inner.spanId
  }
  get traceId() {
    return this.inner.traceId
  }
  get parent() {
    return this.inner.parent
  }
  get annotations() {
    return this.inner.annotations
  }
  get attributes() {
    return this.inner.attributes
  }
  get links() {
    return this.inner.links
  }
  get sampled() {
    return this.inner.sampled
  }
  get kind() {
    return this.inner.kind
  }
  attribute(key: string, value: unknown): void {
    if (key === "ratelock.contract_id" || (key === "ratelock.jobs" && typeof value === "number" && value > 0)) {
      this.trace.worked = true
    }
    this.inner.attribute(key, value)
  }
  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    this.inner.event(name, startTime, attributes)
  }
  addLinks(links: ReadonlyArray<T.SpanLink>): void {
    this.inner.addLinks(links)
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
    const trace = this.trace
    // a span outliving its pass follows the pass's verdict
    if (trace.done) {
      if (trace.keep) this.inner.end(endTime, exit)
      return
    }
    trace.held.push({ span: this.inner, endTime, exit })
    if (!this.root) return
    trace.done = true
    trace.keep = trace.worked || (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause))
    if (trace.keep) for (const held of trace.held) held.span.end(held.endTime, held.exit)
    trace.held.length = 0
  }
}

/** `tracer`, exporting a worker pass's trace only when the pass did something. */
export const withoutIdlePasses = (tracer: T.Tracer): T.Tracer =>
  Tracer.make({
    span: (options) => {
      const parent = Option.getOrUndefined(options.parent)
      if (parent instanceof HeldSpan) {
        // its attributes are set on the span returned, so a job's contract id is seen
        return new HeldSpan(tracer.span({ ...options, parent: Option.some(parent.inner) }), parent.trace, false)
      }
      if (parent === undefined && isPass(options.name)) return new HeldSpan(tracer.span(options), new PassTrace(), true)
      return tracer.span(options)
    },
    ...(tracer.context === undefined ? {} : { context: tracer.context })
  })
