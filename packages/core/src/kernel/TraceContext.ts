/**
 * Trace context kept with a record, so that work done later, in another process or trace, can
 * link back to the span that wrote it: the W3C `traceparent` of the current span (the header
 * Effect's HTTP tracing reads and writes). A transition's outbound event keeps the context of the
 * span that committed it; the delivery of that event links to it.
 *
 * Nothing is kept while no exporting tracer is installed: Effect's built-in tracer exports
 * nothing, so a link to one of its spans would lead nowhere.
 */
import { Effect, Option, Tracer } from "effect"
import { Headers, HttpTraceContext } from "effect/http"

/** Whether the current tracer exports spans (one is installed, and tracing is not turned off here). */
export const recording: Effect.Effect<boolean> = Effect.withFiber((fiber) =>
  Effect.succeed(fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer && fiber.cache.tracerEnabled)
)

/** The `traceparent` of the current span when it is recorded and sampled; `null` otherwise. */
export const current: Effect.Effect<string | null> = Effect.flatMap(recording, (on) =>
  on
    ? Effect.match(Effect.currentSpan, {
        onFailure: () => null,
        onSuccess: (span) => (span.sampled ? HttpTraceContext.toHeaders(span).traceparent! : null)
      })
    : Effect.succeed(null)
)

/** Span links to the spans the stored contexts name; a missing or malformed one links nothing. */
export const links = (
  traceparents: ReadonlyArray<string | null>,
  attributes: Readonly<Record<string, unknown>> = {}
): Array<Tracer.SpanLink> =>
  traceparents.flatMap((traceparent) =>
    traceparent === null
      ? []
      : Option.match(HttpTraceContext.w3c(Headers.fromInput({ traceparent })), {
          onNone: () => [],
          onSome: (span) => [{ span, attributes }]
        })
  )

/** Links the current span to the spans the stored contexts name. */
export const linkCurrent = (
  traceparents: ReadonlyArray<string | null>,
  attributes?: Readonly<Record<string, unknown>>
): Effect.Effect<void> =>
  Effect.match(Effect.currentSpan, {
    onFailure: () => undefined,
    onSuccess: (span) => {
      const found = links(traceparents, attributes)
      if (found.length > 0) span.addLinks(found)
    }
  })

/** Who a job or request is for, as span attributes: ids only, never a secret, a body or a customer's reference. */
export const attributes = (of: {
  readonly partnerId: string
  readonly environment: string
  readonly contractId?: string | undefined
}): Record<string, string> => ({
  "ratelock.partner_id": of.partnerId,
  "ratelock.environment": of.environment,
  ...(of.contractId === undefined ? {} : { "ratelock.contract_id": of.contractId })
})

/** A contract's ids under the names `attributes` takes. */
export const contractIds = (contract: {
  readonly id: string
  readonly partnerId: string
  readonly environment: string
}) => ({ partnerId: contract.partnerId, environment: contract.environment, contractId: contract.id })
