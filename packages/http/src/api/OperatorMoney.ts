/**
 * The operator API's money actions: funds that funded nothing and their refund, a payout's bump
 * or cancellation, the reconciliation run now and an inflow recorded. Each route declares its role
 * and the audited action it takes (`OperatorRoles.ts`); its JSON is what the CLI's `--json` prints
 * for the same command (`funds`, `payouts`, `treasury`). The reads of payouts and of the treasury
 * stay in the main group (`OperatorApi.ts`).
 */
import { Fields, Money, Partner, PayoutRepo, Rail, TreasuryLedger } from "@ratelock/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { OptionalIdempotencyKey } from "./Headers.ts"
import { changing, reading } from "./OperatorDesk.ts"
import { AuditedAction, RequiredRole } from "./OperatorRoles.ts"
import { OperatorAuth } from "./OperatorSecurity.ts"

/** A decimal string as core writes it (`Money.format`: the scale kept, never an exponent). */
export const Amount = Schema.String.check(Schema.isPattern(Money.decimalPattern))

/** A transfer recorded by the funding worker instead of counted (`UnmatchedFunds.list`). */
const UnmatchedTransfer = Schema.Struct({
  fx_contract_id: Schema.String,
  partner_id: Schema.String,
  environment: Schema.String.annotate({ description: "sandbox or production" }),
  chain: Schema.String,
  transaction_hash: Schema.String,
  index: Fields.Count,
  block_number: Fields.Count,
  token: Schema.String.annotate({
    description: "The settlement currency, or the token contract (mint) of a transfer of another token"
  }),
  amount: Schema.String,
  unit: Schema.String.annotate({
    description: "token: a decimal amount of the token; base_units: raw units of a token the service does not settle"
  }),
  reason: Schema.String.annotate({ description: "not_awaiting_funds, wrong_token, ..." }),
  contract_status: Schema.String,
  observed_at: Fields.Instant
})

/** What `ratelock funds unmatched --json` prints: oldest first. */
export const UnmatchedFunds = Schema.Struct({ items: Schema.Array(UnmatchedTransfer) }).annotate({
  identifier: "OperatorUnmatchedFunds"
})

/** A refund recorded (`ratelock funds refund --json`): the workers send it from the hot wallet. */
export const RefundRecorded = Schema.Struct({
  id: Schema.String,
  key: Schema.String.annotate({
    description: "What it refunds, once: transfer:<chain>:<hash>:<index> (an unmatched transfer) or surplus:<contract>"
  }),
  contract_id: Schema.String,
  amount: Amount,
  currency: Rail.SettlementCurrency,
  destination: Schema.NullOr(Schema.String).annotate({
    description: "Where it goes; null: the partner's refund address on the chain (it waits for one when none is set)"
  })
}).annotate({ identifier: "OperatorRefundRecorded" })

/** A payout's new version, stored then broadcast (`ratelock payouts bump|cancel --json`). */
export const ReplacedPayout = Schema.Struct({
  contract_id: Schema.String,
  payout_id: Schema.String,
  status: PayoutRepo.PayoutStatus,
  transaction_hash: Schema.NullOr(Schema.String).annotate({ description: "The new version's" }),
  nonce: Schema.NullOr(Schema.Int),
  replacements: Fields.Count.annotate({ description: "Versions signed after the first" })
}).annotate({ identifier: "OperatorReplacedPayout" })

/** The last reconciliation of an environment and chain. */
export const Reconciliation = Schema.Struct({
  environment: Partner.Environment,
  chain: Rail.Chain,
  at: Fields.Instant,
  checked: Fields.Count.annotate({ description: "Balances compared (addresses × currencies)" }),
  chain_calls: Fields.Count,
  error: Schema.NullOr(Schema.String).annotate({ description: "Why the chain could not be read, when it could not" }),
  differences: Schema.Array(
    Schema.Struct({
      wallet: Schema.Literals(["funding_address", "hot_wallet", "treasury"]),
      address: Schema.String,
      contract_id: Schema.NullOr(Schema.String),
      currency: Schema.String,
      ledger: Amount,
      on_chain: Amount,
      difference: Amount.annotate({ description: "on_chain - ledger" }),
      since: Fields.Instant
    })
  )
}).annotate({ identifier: "OperatorReconciliation" })

/** What `ratelock treasury reconcile --json` prints: a run per environment and chain served. */
export const Reconciled = Schema.Struct({ reconciliation: Schema.Array(Reconciliation) }).annotate({
  identifier: "OperatorReconciled"
})

export const InflowRequest = Schema.Struct({
  environment: Partner.Environment,
  chain: Rail.Chain,
  wallet: Schema.optionalKey(Schema.Literals(["hot_wallet", "treasury"])).annotate({
    description: "Where it arrived (default hot_wallet)"
  }),
  currency: TreasuryLedger.TreasuryCurrency.annotate({
    description: "A token (USDC, USDT, EURC, BRLA) or the chain's own currency (ETH, POL, SOL)"
  }),
  amount: Schema.String.annotate({ description: "The exact amount received: a decimal above 0" }),
  as: Schema.Literals(["topup", "unmatched"]).annotate({
    description: "topup: the operator's own money (a treasury top-up); unmatched: someone's, owed back"
  })
}).annotate({ identifier: "OperatorInflowRequest" })

/** An inflow booked (`ratelock treasury record-inflow --json`): its entries sum to zero. */
export const InflowRecorded = Schema.Struct({
  source: Schema.String.annotate({ description: "inflow:<id>, the entries' source in the treasury ledger" }),
  entries: Schema.Array(Schema.Struct({ account: Schema.String, currency: Schema.String, amount: Amount }))
}).annotate({ identifier: "OperatorInflowRecorded" })

const contract = { contract_id: Schema.String }

export class MoneyGroup extends HttpApiGroup.make("money")
  .add(
    HttpApiEndpoint.get("unmatchedFunds", "/v1/funds/unmatched", {
      query: {
        contract_id: Schema.optionalKey(Schema.String).annotate({ description: "Only this contract's" }),
        limit: Schema.optionalKey(
          Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1000 }))
        ).annotate({ description: "At most this many (100)" })
      },
      success: UnmatchedFunds,
      error: reading
    })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "Funds that funded no contract (arrived after it stopped awaiting funds, or of another token), oldest first"
      ),
    HttpApiEndpoint.post("refund", "/v1/funds/refunds", {
      headers: OptionalIdempotencyKey,
      payload: Schema.Struct({
        transfer_id: Schema.String.annotate({
          description: "The transfer: its transaction hash, or HASH:INDEX (as the unmatched funds list it)"
        }),
        to: Schema.optionalKey(Schema.String).annotate({
          description: "Where to send it (default: the partner's refund address on the chain)"
        })
      }),
      success: RefundRecorded.pipe(HttpApiSchema.status(201)),
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "funds.refund", targetKind: "transfer" })
      .annotate(
        OpenApi.Summary,
        "Refund from the hot wallet, once: an unmatched transfer whole, or what the books still owe on the contract a transfer funded"
      ),
    HttpApiEndpoint.post("bumpPayout", "/v1/payouts/:contract_id/bump", {
      params: contract,
      headers: OptionalIdempotencyKey,
      success: ReplacedPayout,
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "payout.bump", targetKind: "contract" })
      .annotate(
        OpenApi.Summary,
        "Replace a payout not mined yet now, at a higher fee within the cap (its version stored, then broadcast)"
      ),
    HttpApiEndpoint.post("cancelPayout", "/v1/payouts/:contract_id/cancel", {
      params: contract,
      headers: OptionalIdempotencyKey,
      success: ReplacedPayout,
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "payout.cancel", targetKind: "contract" })
      .annotate(
        OpenApi.Summary,
        "Cancel a payout not mined yet (EVM: a 0-value transaction at its nonce); once mined, the payout is sent again"
      ),
    HttpApiEndpoint.post("reconcile", "/v1/treasury/reconcile", {
      headers: OptionalIdempotencyKey,
      payload: Schema.Struct({
        environment: Schema.optionalKey(Partner.Environment).annotate({ description: "Only this one (default: both)" })
      }),
      success: Reconciled,
      error: changing
    })
      .annotate(RequiredRole, "risk")
      .annotate(AuditedAction, { action: "treasury.reconcile", targetKind: "environment" })
      .annotate(OpenApi.Summary, "Set the books against the chain now: every difference, with when it was first seen"),
    HttpApiEndpoint.post("recordInflow", "/v1/treasury/inflows", {
      headers: OptionalIdempotencyKey,
      payload: InflowRequest,
      success: InflowRecorded.pipe(HttpApiSchema.status(201)),
      error: changing
    })
      .annotate(RequiredRole, "admin")
      .annotate(AuditedAction, { action: "treasury.inflow.record", targetKind: "rail" })
      .annotate(
        OpenApi.Summary,
        "Book an inflow the reconciliation found and nobody expected: the operator's top-up, or someone's funds owed back"
      )
  )
  .middleware(OperatorAuth)
  .prefix("/operator")
  .annotate(OpenApi.Description, "Money: unmatched funds and refunds, payouts by hand, the books against the chain") {}
