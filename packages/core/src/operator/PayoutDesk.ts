/**
 * What an operator paged for "payouts are late" reads (`ratelock payouts list|show`,
 * `GET /operator/v1/payouts[/{contract_id}]`): each payout with why it waits, and for one payout
 * every version signed (hash, nonce, fees, when) beside what the chain asks now. The list reads the
 * store only; `show` asks the chain too, and still answers when the chain does not.
 */
import { DateTime, Effect, Option, Schema } from "effect"
import { Instant } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { Chain, FundsCurrency } from "../kernel/Rail.ts"
import { Environment } from "../terms/Partner.ts"
import { isStuck, PayoutWait, stuckWaits } from "../terms/PayoutWait.ts"
import { ChainGateway } from "../lifecycle/ChainGateway.ts"
import { PayoutRepo, type PayoutRecord, PayoutStatus } from "../lifecycle/PayoutRepo.ts"

/**
 * `pending`: not landed yet (not signed, or signed and not mined); `stuck`: waiting on something an
 * operator must change (fees above the cap, an empty hot wallet); `failed`: given up on.
 */
export const PayoutFilter = Schema.Literals(["pending", "stuck", "failed"])
export type PayoutFilter = typeof PayoutFilter.Type

export const PayoutView = Schema.Struct({
  contract_id: Schema.String,
  payout_id: Schema.String,
  partner_id: Schema.String,
  environment: Environment,
  chain: Chain,
  currency: FundsCurrency,
  destination: Schema.String,
  amount: Money.DecimalString,
  status: PayoutStatus,
  waiting: Schema.NullOr(PayoutWait).annotate({ description: "Why a payout not landed yet waits, as last seen" }),
  stuck: Schema.Boolean.annotate({ description: "It waits on fees above the cap or an empty hot wallet" }),
  nonce: Schema.NullOr(Schema.Int),
  transaction_hash: Schema.NullOr(Schema.String),
  replacements: Schema.Int,
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  created_at: Instant,
  updated_at: Instant,
  age_seconds: Schema.Int
}).annotate({ identifier: "PayoutView" })
export type PayoutView = typeof PayoutView.Encoded

export const PayoutVersionView = Schema.Struct({
  transaction_hash: Schema.String,
  nonce: Schema.NullOr(Schema.Int),
  kind: Schema.Literals(["transfer", "cancel"]),
  fees: Schema.Record(Schema.String, Schema.String),
  signed_at: Instant
}).annotate({ identifier: "PayoutVersionView" })

export const PayoutDetail = Schema.Struct({
  ...PayoutView.fields,
  versions: Schema.Array(PayoutVersionView),
  chain_asks: Schema.NullOr(Schema.Record(Schema.String, Schema.String)).annotate({
    description: "What a transaction signed now would pay, and the cap; null when the chain did not answer"
  }),
  chain_error: Schema.NullOr(Schema.String)
}).annotate({ identifier: "PayoutDetail" })
export type PayoutDetail = typeof PayoutDetail.Encoded

/** No payout for the contract (none yet, or no such contract). */
export class PayoutNotFound extends Schema.TaggedError<PayoutNotFound>()("PayoutNotFound", {
  contractId: Schema.String,
  message: Schema.String
}) {}

const viewOf = (p: PayoutRecord, now: DateTime.Utc): PayoutView => ({
  contract_id: p.contractId,
  payout_id: p.id,
  partner_id: p.partnerId,
  environment: p.environment,
  chain: p.chain,
  currency: p.currency,
  destination: p.destination,
  amount: Money.format(p.amount),
  status: p.status,
  waiting: p.status === "pending" || p.status === "prepared" ? p.waiting : null,
  stuck: isStuck(p),
  nonce: p.nonce,
  transaction_hash: p.transactionHash,
  replacements: p.replacements,
  attempts: p.attempts,
  last_error: p.lastError,
  created_at: DateTime.formatIso(p.createdAt),
  updated_at: DateTime.formatIso(p.updatedAt),
  age_seconds: Math.max(0, Math.floor((now.epochMilliseconds - p.createdAt.epochMilliseconds) / 1000))
})

/** Payouts not landed (default), stuck or failed, oldest first. */
export const list = Effect.fn("PayoutDesk.list")(function* (query: {
  readonly filter?: PayoutFilter | undefined
  readonly environment?: Environment | undefined
  readonly limit: number
}) {
  const filter = query.filter ?? "pending"
  const now = yield* DateTime.now
  const repo = yield* PayoutRepo
  const rows = yield* repo.list({
    statuses: filter === "failed" ? ["failed"] : ["pending", "prepared"],
    environment: query.environment,
    waiting: filter === "stuck" ? stuckWaits : undefined,
    limit: query.limit
  })
  return rows.map((p) => viewOf(p, now))
})

/** One contract's payout with its versions and what the chain asks now. */
export const show = Effect.fn("PayoutDesk.show")(function* (contractId: string) {
  const now = yield* DateTime.now
  const found = yield* (yield* PayoutRepo).findByContract(contractId)
  if (Option.isNone(found))
    return yield* new PayoutNotFound({ contractId, message: `contract ${contractId} has no payout` })
  const payout = found.value
  const view = viewOf(payout, now)
  if (payout.prepared === null || payout.transactionHash === null) {
    return { ...view, versions: [], chain_asks: null, chain_error: null } satisfies PayoutDetail
  }
  const rail = { chain: payout.chain, environment: payout.environment, token: payout.currency }
  const inspected = yield* Effect.result(
    (yield* ChainGateway).inspectPayout(rail, { transactionHash: payout.transactionHash, persisted: payout.prepared })
  )
  if (inspected._tag === "Failure") {
    const error = inspected.failure
    return { ...view, versions: [], chain_asks: null, chain_error: `${error.reason}: ${error.message}` }
  }
  return {
    ...view,
    versions: inspected.success.versions.map((v) => ({
      transaction_hash: v.transactionHash,
      nonce: v.nonce,
      kind: v.kind,
      fees: v.fees,
      signed_at: DateTime.formatIso(v.signedAt)
    })),
    chain_asks: inspected.success.chainAsks,
    chain_error: null
  } satisfies PayoutDetail
})
