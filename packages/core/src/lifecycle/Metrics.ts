/**
 * The metrics core's programs record (Effect `Metric`: the host exports them on `/metrics` and,
 * with OTLP, pushes them). The host's own metrics (HTTP requests, the rate limiter, sampled
 * backlogs) are in `@ratelock/http`'s `Metrics.ts`; its README lists them all.
 *
 * Labels name a partner by id at most: never a key, a secret, a customer reference, an address
 * or an amount. Every label takes a handful of values (statuses, chains, reasons, environments),
 * except `partner_id`, which takes one per partner.
 */
import { Clock, Effect, Exit, Metric, Option } from "effect"
import type { ChainError, ChainGatewayShape, Rail } from "./ChainGateway.ts"
import type { ContractStatus } from "../terms/Contract.ts"
import type { Environment } from "../terms/Partner.ts"

const counter = (name: string, description: string) => Metric.counter(name, { description, incremental: true })

/** Seconds, from a millisecond to a minute: database round trips to slow RPC nodes. */
export const secondsBoundaries: ReadonlyArray<number> = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60
]

export const transitions = counter(
  "ratelock_contract_transitions_total",
  "Contract transitions committed, by from and to status (a new contract: from none)"
)

export const transition = (from: ContractStatus | "none", to: ContractStatus) =>
  Metric.update(Metric.withAttributes(transitions, { from, to }), 1)

export const deliveryAttempts = counter(
  "ratelock_webhook_delivery_attempts_total",
  "Outbound webhook delivery attempts, by partner and environment"
)

export const deliveryFailures = counter(
  "ratelock_webhook_delivery_failures_total",
  "Outbound webhook attempts that failed, by partner and environment; outcome retrying (another attempt is scheduled) or failed (given up)"
)

/** One delivery attempt and, when it failed, its failure. */
export const delivery = (
  event: { readonly partnerId: string; readonly environment: Environment },
  outcome: "delivered" | "retrying" | "failed"
) => {
  const labels = { partner_id: event.partnerId, environment: event.environment }
  return Effect.andThen(
    Metric.update(Metric.withAttributes(deliveryAttempts, labels), 1),
    outcome === "delivered"
      ? Effect.void
      : Metric.update(Metric.withAttributes(deliveryFailures, { ...labels, outcome }), 1)
  )
}

export const payouts = counter(
  "ratelock_payouts_total",
  "Payout steps by outcome (sent: broadcast; confirmed: settled; retrying: failed, retry scheduled; failed: given up), chain and environment"
)

export const payoutFailures = counter(
  "ratelock_payout_failures_total",
  "Failed payout attempts by chain, environment and failure code"
)

export const payout = (
  p: { readonly chain: Rail["chain"]; readonly environment: Environment },
  outcome: "sent" | "confirmed" | "retrying" | "failed"
) => Metric.update(Metric.withAttributes(payouts, { outcome, chain: p.chain, environment: p.environment }), 1)

export const payoutFailure = (
  p: { readonly chain: Rail["chain"]; readonly environment: Environment },
  reason: string
) => Metric.update(Metric.withAttributes(payoutFailures, { chain: p.chain, environment: p.environment, reason }), 1)

export const payoutReplacements = counter(
  "ratelock_payout_replacements_total",
  "New versions of payouts already signed, by chain, environment and kind (replacement: the workers' fee replacement or a re-signing after expiry; bump: an operator's; cancel: an operator's cancellation)"
)

export const payoutReplacement = (
  p: { readonly chain: Rail["chain"]; readonly environment: Environment },
  kind: "replacement" | "bump" | "cancel"
) => Metric.update(Metric.withAttributes(payoutReplacements, { chain: p.chain, environment: p.environment, kind }), 1)

export const fundingWatches = counter(
  "ratelock_funding_watches_total",
  "Funding addresses observed by the funding passes, by chain, environment and token"
)

export const fundingWatched = (rail: Rail, count: number) =>
  Metric.update(
    Metric.withAttributes(fundingWatches, { chain: rail.chain, environment: rail.environment, token: rail.token }),
    count
  )

export const hedgeOrders = counter(
  "ratelock_hedge_orders_total",
  "Hedge orders by outcome (placed: stored and sent to the venue; filled; rejected), venue, pair and environment"
)

export const hedgeOrder = (
  order: { readonly venue: string; readonly pair: string; readonly environment: Environment },
  outcome: "placed" | "filled" | "rejected"
) =>
  Metric.update(
    Metric.withAttributes(hedgeOrders, {
      outcome,
      venue: order.venue,
      pair: order.pair,
      environment: order.environment
    }),
    1
  )

export const quotes = counter(
  "ratelock_quotes_total",
  "Quote requests by environment and outcome (created, failed: priced as failed, refused: invalid request) with the failure reason (none when created)"
)

export const quote = (environment: Environment, outcome: "created" | "failed" | "refused", reason: string) =>
  Metric.update(Metric.withAttributes(quotes, { environment, outcome, reason }), 1)

export const operatorActions = counter(
  "ratelock_operator_actions_total",
  "Operator actions (through the operator API or the CLI) by action and outcome (ok, refused by a rule, forbidden to the role, failed)"
)

export const operatorAction = (action: string, outcome: "ok" | "refused" | "forbidden" | "failed") =>
  Metric.update(Metric.withAttributes(operatorActions, { action, outcome }), 1)

export const chainCalls = Metric.histogram("ratelock_chain_call_duration_seconds", {
  description:
    "Calls to a chain gateway (RPC node, or the sandbox's simulated chain), by rail (chain, environment, token), operation and outcome (ok or the failure code)",
  boundaries: secondsBoundaries
})

/** `gateway` with every call timed into `chainCalls`; what it answers is unchanged. */
export const measuredGateway = (gateway: ChainGatewayShape): ChainGatewayShape => {
  const timed =
    (operation: string, rail: Omit<Rail, "token"> & { readonly token?: Rail["token"] }) =>
    <A, R>(call: Effect.Effect<A, ChainError, R>): Effect.Effect<A, ChainError, R> =>
      Effect.flatMap(Clock.currentTimeNanos, (start) =>
        Effect.onExit(call, (exit) =>
          Effect.flatMap(Clock.currentTimeNanos, (end) =>
            Metric.update(
              Metric.withAttributes(chainCalls, {
                chain: rail.chain,
                environment: rail.environment,
                token: rail.token ?? "none",
                operation,
                outcome: Exit.isSuccess(exit)
                  ? "ok"
                  : Option.match(Exit.findErrorOption(exit), { onNone: () => "defect", onSome: (e) => e.reason })
              }),
              Number(end - start) / 1e9
            )
          )
        )
      )
  return {
    checkAddress: (rail, address) => timed("check_address", rail)(gateway.checkAddress(rail, address)),
    fundingAddress: (rail, index) => timed("funding_address", rail)(gateway.fundingAddress(rail, index)),
    observeFunding: (rail, address, cursor) =>
      timed("observe_funding", rail)(gateway.observeFunding(rail, address, cursor)),
    observeFundingBatch: (rail, targets) => timed("observe_funding", rail)(gateway.observeFundingBatch(rail, targets)),
    // the draft only: its signing runs in the store's transaction, timed by the store's own spans
    draftPayout: (order) => timed("draft_payout", order.rail)(gateway.draftPayout(order)),
    preparePayout: (order) => timed("prepare_payout", order.rail)(gateway.preparePayout(order)),
    broadcastPayout: (rail, prepared) => timed("broadcast_payout", rail)(gateway.broadcastPayout(rail, prepared)),
    lookupPayout: (rail, prepared) => timed("lookup_payout", rail)(gateway.lookupPayout(rail, prepared)),
    replacePayout: (rail, prepared, mode) => timed("replace_payout", rail)(gateway.replacePayout(rail, prepared, mode)),
    inspectPayout: (rail, prepared) => timed("inspect_payout", rail)(gateway.inspectPayout(rail, prepared)),
    balances: (rail, addresses) => timed("balances", rail)(gateway.balances(rail, addresses)),
    nativeBalances: (rail, addresses) => timed("native_balances", rail)(gateway.nativeBalances(rail, addresses)),
    fundingKeys: (rail) => timed("funding_keys", rail)(gateway.fundingKeys(rail)),
    draftSweep: (order) => timed("draft_sweep", order.rail)(gateway.draftSweep(order)),
    hotWallet: (rail) => timed("hot_wallet", rail)(gateway.hotWallet(rail))
  }
}
