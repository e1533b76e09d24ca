/**
 * Which rails (environment and chain) this deployment has a chain for, and why not when it has
 * none. The chain gateway cannot always say: a deployment without production chains routes every
 * rail to the simulated chain, whose form check is not a production chain's payout rule. So a
 * program that must refuse a rail nothing could ever send on (a refund address) asks here first.
 * By default every rail is enabled, as the simulated chain serves them all; a host narrows it to
 * its settings and words the refusal after them.
 */
import { Context } from "effect"
import type { Chain } from "../kernel/Rail.ts"
import type { Environment } from "../terms/Partner.ts"

export interface EnabledRailsShape {
  /** Why the deployment has no chain for the rail (naming what would give it one), or undefined when it has. */
  readonly whyNot: (environment: Environment, chain: Chain) => string | undefined
}

export const everyRail: EnabledRailsShape = { whyNot: () => undefined }

export const EnabledRails = Context.Reference<EnabledRailsShape>("@ratelock/core/EnabledRails", {
  defaultValue: () => everyRail
})
