/**
 * Trace context kept with webhook events (core's `TraceContext`): the W3C `traceparent` of the
 * span that recorded an incoming event or committed the transition that queued an outgoing one,
 * null when the service was not traced. A delivery attempt's span links to it.
 */
import { statements } from "./statements.ts"

export const eventTraceContext = statements([
  `ALTER TABLE webhook_events ADD COLUMN trace_context text
    CHECK (trace_context ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$')`
])
