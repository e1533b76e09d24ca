/** Why the service refuses to start: a message for the operator, with the setting to change. */
import { Data } from "effect"

export class HostError extends Data.TaggedError("HostError")<{ readonly message: string }> {}
