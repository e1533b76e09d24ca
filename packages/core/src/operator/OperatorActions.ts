/**
 * Every action an operator takes that changes something, each one core program run under
 * `Audit.act`: its audit record (who, what, on what, before and after) is written in the
 * transaction of its change. The operator API's write routes and the CLI (on the database) call
 * these and nothing else, so an action is recorded however it is taken.
 *
 * What is recorded of each result is chosen here, never a secret: a key or a webhook secret is
 * recorded as issued or rotated, not written.
 */
import { type Context, DateTime, Effect, Option, Result } from "effect"
import { ValidationError } from "../kernel/ApiError.ts"
import type { Direction } from "../kernel/Corridor.ts"
import type * as Money from "../kernel/Money.ts"
import type { Chain } from "../kernel/Rail.ts"
import type * as CorridorLimit from "../limits/CorridorLimit.ts"
import { CorridorLimitRepo } from "../limits/CorridorLimitRepo.ts"
import * as CorridorLimits from "../limits/CorridorLimits.ts"
import * as MarketSnapshots from "../market/MarketSnapshots.ts"
import * as PartnerRepo from "../partners/PartnerRepo.ts"
import type { Environment } from "../terms/Partner.ts"
import * as DailyCloses from "../finance/DailyCloses.ts"
import * as HedgeDesk from "../hedging/HedgeDesk.ts"
import * as HedgeOrder from "../hedging/HedgeOrder.ts"
import { HedgeOrderRepo } from "../hedging/HedgeOrderRepo.ts"
import * as HedgePolicy from "../hedging/HedgePolicy.ts"
import { HedgePolicyRepo } from "../hedging/HedgePolicyRepo.ts"
import * as SimulatedVenueControl from "../hedging/SimulatedVenueControl.ts"
import * as Payouts from "../lifecycle/Payouts.ts"
import { PayoutRepo } from "../lifecycle/PayoutRepo.ts"
import * as Refunds from "../lifecycle/Refunds.ts"
import * as RiskDesk from "../risk/RiskDesk.ts"
import * as RiskScenario from "../risk/RiskScenario.ts"
import { RiskScenarioRepo } from "../risk/RiskScenarioRepo.ts"
import { act } from "./Audit.ts"
import { OperatorActor } from "./OperatorActor.ts"
import type { OperatorRole } from "./OperatorRole.ts"
import * as OperatorTokens from "./OperatorTokens.ts"
import { OperatorTokenRepo } from "./OperatorTokenRepo.ts"
import * as Partners from "./Partners.ts"
import * as Reconciliation from "./Reconciliation.ts"

const iso = (at: DateTime.Utc | null) => (at === null ? null : DateTime.formatIso(at))

/** What a revocation (a partner's API key, an operator's token) records after it: when, and whether it was new. */
const revocation = (revoked: { readonly revoked_at: string | null; readonly already_revoked: boolean }) => ({
  revoked_at: revoked.revoked_at,
  already_revoked: revoked.already_revoked
})

/** What a record's `before` reads: one call of a repository. */
const read = <I, S, A, E>(tag: Context.Service<I, S>, f: (repo: S) => Effect.Effect<A, E>) => Effect.flatMap(tag, f)

// partners, keys, webhooks and refund addresses (admin)

export const createPartner = (input: Parameters<typeof Partners.createPartner>[0]) =>
  act(
    {
      action: "partner.create",
      target: { kind: "partner", id: input.id ?? null },
      targetOf: (created) => ({ kind: "partner", id: created.partner_id }),
      after: (created: Partners.CreatedPartner) => ({
        partner_id: created.partner_id,
        name: created.name,
        environments: Object.fromEntries(
          Object.entries(created.environments).map(([environment, c]) => [
            environment,
            { api_key_id: c?.api_key_id, api_key_issued: true, webhook_url: c?.webhook_url ?? null }
          ])
        )
      })
    },
    Partners.createPartner(input)
  )

export const createKey = (partnerId: string, environment: Environment) =>
  act(
    {
      action: "key.create",
      target: { kind: "partner", id: partnerId },
      after: (key: Partners.IssuedKey) => ({
        api_key_id: key.api_key_id,
        environment: key.environment,
        api_key_issued: true
      })
    },
    Partners.createKey(partnerId, environment)
  )

const keyState = (keyId: string) =>
  Effect.map(
    read(PartnerRepo.PartnerRepo, (repo) => repo.findApiKey(keyId)),
    (found) =>
      Option.match(found, {
        onNone: () => null,
        onSome: (key) => ({ partner_id: key.partnerId, environment: key.environment, revoked_at: iso(key.revokedAt) })
      })
  )

export const revokeKey = (keyId: string) =>
  act(
    {
      action: "key.revoke",
      target: { kind: "api_key", id: keyId },
      before: keyState(keyId),
      after: revocation
    },
    Partners.revokeKey(keyId)
  )

const webhookState = (partnerId: string, environment: Environment) =>
  Effect.map(
    read(PartnerRepo.PartnerRepo, (repo) => repo.findWebhookEndpoint({ partnerId, environment })),
    (found) => ({ environment, webhook_url: Option.match(found, { onNone: () => null, onSome: (e) => e.url }) })
  )

export const setWebhook = (partnerId: string, environment: Environment, url: string) =>
  act(
    {
      action: "webhook.set",
      target: { kind: "partner", id: partnerId },
      before: webhookState(partnerId, environment),
      after: (set) => ({ environment, webhook_url: set.webhook_url, webhook_secret_rotated: true })
    },
    Partners.setWebhook(partnerId, environment, url)
  )

const refundAddressState = (partnerId: string, environment: Environment, chain: Chain) =>
  Effect.map(
    read(PartnerRepo.PartnerRepo, (repo) => repo.listRefundAddresses(partnerId)),
    (all) => ({
      environment,
      chain,
      address: all.find((r) => r.environment === environment && r.chain === chain)?.address ?? null
    })
  )

export const setRefundAddress = (partnerId: string, environment: Environment, chain: Chain, address: string) =>
  act(
    {
      action: "partner.refund_address.set",
      target: { kind: "partner", id: partnerId },
      before: refundAddressState(partnerId, environment, chain),
      after: (set: Partners.RefundAddressSet) => ({ environment, chain, address: set.address })
    },
    Partners.setRefundAddress(partnerId, environment, chain, address)
  )

// operator tokens (admin)

export const createToken = (input: {
  readonly name: string
  readonly role: OperatorRole
  readonly expiresIn?: string | undefined
}) =>
  act(
    {
      action: "operator.token.create",
      target: { kind: "operator_token", id: null },
      targetOf: (created) => ({ kind: "operator_token", id: created.token_id }),
      after: (created: OperatorTokens.CreatedToken) => ({
        name: created.name,
        role: created.role,
        expires_at: created.expires_at,
        token_issued: true
      })
    },
    OperatorTokens.create(input)
  )

const tokenState = (tokenId: string) =>
  Effect.map(
    read(OperatorTokenRepo, (repo) => repo.find(tokenId)),
    Option.match({ onNone: () => null, onSome: (t) => ({ name: t.name, role: t.role, revoked_at: iso(t.revokedAt) }) })
  )

export const revokeToken = (tokenId: string) =>
  act(
    {
      action: "operator.token.revoke",
      target: { kind: "operator_token", id: tokenId },
      before: tokenState(tokenId),
      after: revocation
    },
    OperatorTokens.revoke(tokenId)
  )

// market data, limits, hedge policies and scenarios (risk)

export const importSnapshot = (text: string) =>
  act(
    {
      action: "market.snapshot.import",
      target: { kind: "market_snapshot", id: null },
      targetOf: (stored) => ({ kind: "market_snapshot", id: stored.snapshot.id }),
      after: (stored) => ({
        snapshot_id: stored.snapshot.id,
        hash: stored.snapshot.hash,
        as_of: stored.snapshot.asOf,
        source: stored.snapshot.source,
        created: stored.created
      })
    },
    MarketSnapshots.importJson(text)
  )

const corridorId = (environment: Environment, direction: Direction) => `${environment}:${direction}`

export const setLimits = (environment: Environment, direction: Direction, change: CorridorLimit.LimitChange) =>
  act(
    {
      action: "limits.set",
      target: { kind: "corridor", id: corridorId(environment, direction) },
      before: Effect.map(
        read(CorridorLimitRepo, (repo) => repo.find(environment, direction)),
        (limit) => CorridorLimits.listing(limit)
      ),
      after: (set) => set
    },
    CorridorLimits.set(environment, direction, change)
  )

export const setHedgePolicy = (input: HedgeDesk.PolicyInput) =>
  act(
    {
      action: "hedge.policy.set",
      target: { kind: "hedge_policy", id: `${input.environment}:${input.pair}` },
      before: Effect.map(
        read(HedgePolicyRepo, (repo) => repo.find(input.environment, input.pair)),
        Option.match({ onNone: () => null, onSome: HedgePolicy.view })
      ),
      after: HedgePolicy.view
    },
    HedgeDesk.setPolicy(input)
  )

/** A scenario document's JSON text (one scenario or an array), validated whole inside the action: a refusal is recorded. */
export const setScenarios = (text: string) => {
  const validated = RiskScenario.validateJson(text)
  const names = Result.isSuccess(validated) ? validated.success.map((s) => s.name) : []
  return act(
    {
      action: "risk.scenarios.set",
      target: { kind: "risk_scenario", id: null },
      targetOf: (stored) => ({ kind: "risk_scenario", id: stored.map((s) => s.name).join(",") }),
      before: Effect.map(
        read(RiskScenarioRepo, (repo) => repo.list()),
        (stored) => stored.filter((s) => names.includes(s.scenario.name)).map((s) => RiskScenario.encode(s.scenario))
      ),
      after: (stored) => stored.map((s) => RiskScenario.encode(s))
    },
    Effect.gen(function* () {
      if (Result.isFailure(validated)) return yield* ValidationError.fromIssues(validated.failure)
      return yield* RiskDesk.setScenarios(validated.success)
    })
  )
}

// hedge orders (trader)

const orderState = (orderId: string) =>
  Effect.map(
    read(HedgeOrderRepo, (repo) => repo.find(orderId)),
    (found) => Option.match(found, { onNone: () => null, onSome: HedgeOrder.view })
  )

export const fillHedgeOrder = (
  orderId: string,
  rate: Money.Decimal,
  amount?: Money.Decimal | undefined,
  options: { readonly overrideVenue?: boolean } = {}
) =>
  act(
    {
      action: "hedge.order.fill",
      target: { kind: "hedge_order", id: orderId },
      before: orderState(orderId),
      after: HedgeOrder.view
    },
    HedgeDesk.fill(orderId, rate, amount, options)
  )

export const rejectHedgeOrder = (orderId: string, reason: string, options: { readonly overrideVenue?: boolean } = {}) =>
  act(
    {
      action: "hedge.order.reject",
      target: { kind: "hedge_order", id: orderId },
      before: orderState(orderId),
      after: HedgeOrder.view
    },
    HedgeDesk.reject(orderId, reason, options)
  )

/**
 * What the simulated venue does to the next new order. The trader's: it decides an order's outcome
 * at a venue, as a fill or a rejection does at the manual one, and sets no policy, limit or market.
 */
export const armSimulatedVenue = (action: SimulatedVenueControl.Action) =>
  act(
    {
      action: "hedge.simulated_venue.arm",
      target: { kind: "hedge_venue", id: "simulated" },
      after: () => ({ armed: action })
    },
    Effect.flatMap(SimulatedVenueControl.SimulatedVenueControl, (control) => control.arm(action))
  )

// money (admin)

/** A refund from the hot wallet, requested by the actor (recorded on the movement too). */
export const refund = (input: { readonly transferId: string; readonly to?: string | undefined }) =>
  Effect.flatMap(OperatorActor, (actor) =>
    act(
      {
        action: "funds.refund",
        target: { kind: "transfer", id: input.transferId },
        after: (movement) => ({
          id: movement.id,
          key: movement.key,
          contract_id: movement.contractId,
          amount: movement.amount,
          currency: movement.currency,
          destination: movement.destination
        })
      },
      Refunds.refundTransfer({ ...input, requestedBy: actor.name })
    )
  )

const payoutState = (contractId: string) =>
  Effect.map(
    read(PayoutRepo, (repo) => repo.findByContract(contractId)),
    (found) =>
      Option.match(found, {
        onNone: () => null,
        onSome: (p) => ({
          status: p.status,
          transaction_hash: p.transactionHash,
          nonce: p.nonce,
          replacements: p.replacements
        })
      })
  )

/** A payout's bump or cancellation: its new version stored with the record, then broadcast. */
export const replacePayout = (contractId: string, mode: "bump" | "cancel") =>
  act(
    {
      action: `payout.${mode}`,
      target: { kind: "contract", id: contractId },
      before: payoutState(contractId),
      external: true,
      after: (p) => ({ transaction_hash: p.transactionHash, nonce: p.nonce, replacements: p.replacements })
    },
    Payouts.replaceNow(contractId, mode)
  )

export const recordInflow = (inflow: Reconciliation.Inflow) =>
  act(
    {
      action: "treasury.inflow.record",
      target: { kind: "rail", id: `${inflow.environment}:${inflow.chain}` },
      after: (booked) => ({ source: booked.source, entries: booked.entries })
    },
    Reconciliation.recordInflow(inflow)
  )

/** Not a change of anyone's money: the books set against the chain now, its runs recorded. */
export const reconcile = (options: { readonly environment?: Environment | undefined } = {}) =>
  act(
    {
      action: "treasury.reconcile",
      target: { kind: "environment", id: options.environment ?? null },
      after: (runs) =>
        runs.map((r) => ({ environment: r.environment, chain: r.chain, differences: r.differences.length }))
    },
    Reconciliation.reconcile(options)
  )

/**
 * A close of the book now (a backfill, a test, a second close in a day): a record of what the book stood at. External:
 * the close waits for the one under way under the close lease, outside any transaction (inside one it would hold
 * the connection and the lease's row the close under way needs to end); its record is written with the close.
 */
export const closeBook = (environment: Environment) =>
  act(
    {
      action: "finance.close",
      target: { kind: "environment", id: environment },
      external: true,
      after: DailyCloses.recorded
    },
    DailyCloses.closeNow(environment)
  )
