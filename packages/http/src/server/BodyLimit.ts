/**
 * The largest request body the server reads (1 MiB by default). A larger declared
 * `Content-Length` is refused before reading; a chunked body stops being read at the limit.
 * Either way the answer is 413 `payload_too_large`.
 */
import { Context } from "effect"

export interface BodyLimitShape {
  readonly maxBytes: number
}

export const BodyLimit = Context.Reference<BodyLimitShape>("@ratelock/http/BodyLimit", {
  defaultValue: () => ({ maxBytes: 1024 * 1024 })
})
