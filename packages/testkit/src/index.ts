/**
 * @ratelock/testkit: the in-memory Ratelock. The whole service in one layer (`Ratelock.layer`),
 * time and workers under the test's control (`Simulation`), a partner's webhook endpoint in memory
 * (`WebhookInbox`), what a partner does as typed programs (`Scenario`), valid requests to vary
 * (`Requests`, core's, re-exported), locks simulated (`Simulate`, over core's `LockSimulation`, re-exported).
 * Without Effect: `@ratelock/testkit/promise`.
 */
export * as ApiFailure from "./ApiFailure.ts"
export * as Ratelock from "./Ratelock.ts"
export { LockSimulation, Requests } from "@ratelock/core"
export * as Scenario from "./Scenario.ts"
export * as Simulate from "./Simulate.ts"
export * as Simulation from "./Simulation.ts"
export * as TestPartner from "./TestPartner.ts"
export * as WebhookInbox from "./WebhookInbox.ts"
