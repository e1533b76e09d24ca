/**
 * Which environments have a chain configuration on this deployment (api-decisions.md: a call to a
 * disabled environment is 403 `environment_disabled`). Production is off unless the host turns it
 * on, e.g. once its RPC endpoints are configured.
 */
import type { Partner } from "@ratelock/core"
import { Context } from "effect"

export type ChainAvailabilityShape = Readonly<Record<Partner.Environment, boolean>>

export const ChainAvailability = Context.Reference<ChainAvailabilityShape>("@ratelock/http/ChainAvailability", {
  defaultValue: () => ({ sandbox: true, production: false })
})
