/**
 * The operator API (issue 16), served on its own listener (`RATELOCK_OPERATOR_PORT`), never on the
 * partner API's: the service's health for whoever is on call (`/operator/v1/status`), the market
 * data in force and its import, Prometheus metrics (`/metrics`), and this API's OpenAPI document
 * (`/operator/openapi.json`). Every route needs `Authorization: Bearer <operator token>`
 * (`ratelock operator token create`); errors have the partner API's `error: {code, message}` envelope.
 * The main group's status and market routes are declared in `OperatorStatus.ts` and `OperatorMarket.ts`,
 * the other groups in their own modules (`OperatorDesk.ts`, `OperatorMoney.ts`, ...).
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  RequestDecoding,
  Fields,
  HedgeOrder,
  HotWalletRepo,
  Partner,
  PayoutDesk,
  Rail,
  RiskDeskReport
} from "@ratelock/core"
import { Forbidden, InternalError, NotFound, Unauthorized, ValidationFailed } from "./Errors.ts"
import { AccessGroup } from "./OperatorAccess.ts"
import { DeskGroup } from "./OperatorDesk.ts"
import { FinanceGroup } from "./OperatorFinance.ts"
import { importSnapshotEndpoint, marketEndpoint } from "./OperatorMarket.ts"
import { Amount, MoneyGroup, Reconciliation } from "./OperatorMoney.ts"
import { PartnersGroup } from "./OperatorPartners.ts"
import { RequiredRole } from "./OperatorRoles.ts"
import { OperatorAuth } from "./OperatorSecurity.ts"
import { statusEndpoint } from "./OperatorStatus.ts"
import { RequestValidation } from "./Validation.ts"

// declared with their routes; still read from here (the handlers, the tests, the package's `OperatorApi`)
export { CreatedSnapshot, ExistingSnapshot, MarketView } from "./OperatorMarket.ts"
export { Alert, EnvironmentStatus, MarketStatus, Status, WorkerStatus } from "./OperatorStatus.ts"

const always = [Unauthorized, Forbidden, ValidationFailed, InternalError] as const

/** `?environment=` of the book's and the deliveries' routes: production unless named. */
const BookQuery = {
  environment: Schema.optionalKey(Partner.Environment).annotate({ description: "sandbox or production (default)" })
}

/** The partners whose webhook deliveries retry or were given up on (`OperatorStatus.deliveries`). */
export const Deliveries = Schema.Struct({
  checked_at: Fields.Instant,
  environment: Partner.Environment,
  partners: Schema.Array(
    Schema.Struct({
      partner_id: Schema.String,
      partner_name: Schema.String,
      retrying: Fields.Count.annotate({ description: "Events whose last attempt failed, to be tried again" }),
      oldest_retrying_age_seconds: Schema.NullOr(Fields.Count),
      failed: Fields.Count.annotate({ description: "Events given up on after the retry schedule" }),
      last_error: Schema.NullOr(Schema.String)
    })
  )
}).annotate({ identifier: "OperatorDeliveries" })

/** What `ratelock treasury show --json` prints (`Treasury.view`). */
export const Treasury = Schema.Struct({
  checked_at: Fields.Instant,
  wallets: Schema.Array(
    Schema.Struct({
      environment: Partner.Environment,
      chain: Rail.Chain,
      asset: HotWalletRepo.HotWalletAsset,
      address: Schema.NullOr(Schema.String).annotate({ description: "The hot wallet; null when none was read" }),
      balance: Schema.NullOr(Amount).annotate({ description: "At the workers' last reading; null when none" }),
      read_at: Schema.NullOr(Fields.Instant),
      age_seconds: Schema.NullOr(Fields.Count),
      min_balance: Schema.NullOr(Amount).annotate({
        description: "The low threshold, RATELOCK_<CHAIN>_HOT_WALLET_MIN_<ASSET>; null when not set"
      }),
      below_min: Schema.NullOr(Schema.Boolean).annotate({
        description: "The balance is under the threshold; null without a threshold or a reading"
      }),
      payouts_due: Fields.Count.annotate({
        description:
          "Payouts pending or prepared in this token on this chain (NATIVE: all of the chain's, each pays a fee)"
      }),
      payouts_due_amount: Amount.annotate({ description: "What they add up to in this token (NATIVE: 0)" }),
      can_pay: Schema.NullOr(Schema.Boolean).annotate({
        description:
          "A token: the balance covers the payouts due. NATIVE: nothing is due, or the balance is above 0 and not under its threshold. Null without a reading"
      })
    })
  ),
  stuck_payouts: Schema.Array(
    Schema.Struct({
      environment: Partner.Environment,
      chain: Rail.Chain,
      stuck: Fields.Count,
      fee_cap: Fields.Count.annotate({ description: "Waiting for the chain's fees to fall under the operator's cap" }),
      insufficient_funds: Fields.Count.annotate({ description: "Waiting for the hot wallet to be funded" }),
      oldest_stuck_age_seconds: Fields.Count
    })
  ),
  // in the order `ratelock treasury show --json` prints (core's `Treasury.view`)
  reconciliation: Schema.Array(Reconciliation),
  sweeps: Schema.Array(
    Schema.Struct({
      environment: Partner.Environment,
      chain: Rail.Chain,
      token: Rail.SettlementCurrency,
      funding_keys: Schema.NullOr(Schema.Literals(["held", "watch_only"])).annotate({
        description: "watch_only: only an xpub is configured, so nothing can sign a sweep; null: no gateway answered"
      }),
      awaiting_sweep: Fields.Count.annotate({
        description: "Funding addresses no longer awaiting funds that hold at least the sweep minimum"
      }),
      awaiting_sweep_amount: Amount,
      sweep_min: Amount.annotate({ description: "RATELOCK_<CHAIN>_SWEEP_MIN_<TOKEN> (default 10)" }),
      hot_wallet_float: Schema.NullOr(Amount).annotate({ description: "RATELOCK_<CHAIN>_HOT_WALLET_FLOAT_<TOKEN>" }),
      treasury_address: Schema.NullOr(Schema.String).annotate({ description: "RATELOCK_<CHAIN>_TREASURY_ADDRESS" }),
      treasury_balance: Amount.annotate({ description: "The treasury's balance by the books" }),
      swept_today: Amount.annotate({ description: "Swept off funding addresses today (UTC)" }),
      refunded_today: Amount.annotate({ description: "Refunded from the hot wallet today (UTC)" })
    })
  ),
  fees: Schema.Array(
    Schema.Struct({
      environment: Partner.Environment,
      chain: Rail.Chain,
      currency: Schema.String,
      fees_today: Amount.annotate({ description: "Network fees paid today (UTC), in the chain's own currency" })
    })
  ),
  refunds_waiting: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      environment: Partner.Environment,
      chain: Rail.Chain,
      token: Rail.SettlementCurrency,
      partner_id: Schema.String,
      contract_id: Schema.String,
      purpose: Schema.String.annotate({ description: "deposit, surplus or unmatched" }),
      amount: Amount,
      status: Schema.String,
      waiting: Schema.NullOr(Schema.String).annotate({
        description: "Why it waits (no_refund_address, insufficient_funds, mining, ...)"
      }),
      last_error: Schema.NullOr(Schema.String),
      created_at: Fields.Instant
    })
  )
}).annotate({ identifier: "OperatorTreasury" })

/** The hedge orders, newest first (`ratelock hedge orders --json`). */
export const HedgeOrders = Schema.Struct({
  items: Schema.Array(Schema.toEncoded(HedgeOrder.HedgeOrderView))
}).annotate({ identifier: "OperatorHedgeOrders" })

/** The payouts not landed, stuck or failed, oldest first (`ratelock payouts list --json`). */
export const Payouts = Schema.Struct({ items: Schema.Array(Schema.toEncoded(PayoutDesk.PayoutView)) }).annotate({
  identifier: "OperatorPayouts"
})

export class OperatorGroup extends HttpApiGroup.make("operator")
  .add(
    statusEndpoint,
    marketEndpoint,
    importSnapshotEndpoint,
    HttpApiEndpoint.get("risk", "/v1/risk", {
      query: {
        ...BookQuery,
        fresh: Schema.optionalKey(Schema.Literals(["true", "false"])).annotate({
          description: "true: revalue the book now instead of reading the workers' latest revaluation"
        })
      },
      success: Schema.toEncoded(RiskDeskReport.DeskReport),
      error: always
    })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "The book of an environment: per pair mtm, greeks and hedge; currency exposure; stress; payouts due; limits"
      ),
    HttpApiEndpoint.get("hedgeOrders", "/v1/hedge/orders", {
      query: {
        ...BookQuery,
        status: Schema.optionalKey(Schema.Literals(["pending", ...HedgeOrder.HedgeOrderStatus.literals])),
        limit: Schema.optionalKey(
          Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1000 }))
        )
      },
      success: HedgeOrders,
      error: always
    })
      .annotate(RequiredRole, "viewer")
      .annotate(OpenApi.Summary, "Hedge orders, newest first (pending: intended or sent)"),
    HttpApiEndpoint.get("payouts", "/v1/payouts", {
      query: {
        status: Schema.optionalKey(PayoutDesk.PayoutFilter).annotate({
          description: "pending (not landed: the default), stuck (fees above the cap, an empty hot wallet) or failed"
        }),
        environment: Schema.optionalKey(Partner.Environment).annotate({ description: "Only this environment's" }),
        limit: Schema.optionalKey(
          Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1000 }))
        )
      },
      success: Payouts,
      error: always
    })
      .annotate(RequiredRole, "viewer")
      .annotate(OpenApi.Summary, "Payouts not landed yet (or stuck, or failed), oldest first, with why each waits"),
    HttpApiEndpoint.get("payout", "/v1/payouts/:contract_id", {
      params: { contract_id: Schema.String },
      success: Schema.toEncoded(PayoutDesk.PayoutDetail),
      error: [...always, NotFound]
    })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "A contract's payout: every version signed (hash, nonce, fees) and what the chain asks now"
      ),
    HttpApiEndpoint.get("deliveries", "/v1/deliveries", {
      query: BookQuery,
      success: Deliveries,
      error: always
    })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "Partners whose webhook deliveries are retrying or were given up on, most retrying first"
      ),
    HttpApiEndpoint.get("treasury", "/v1/treasury", {
      query: {
        environment: Schema.optionalKey(Partner.Environment).annotate({
          description: "sandbox or production (default: both)"
        })
      },
      success: Treasury,
      error: always
    })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "The hot wallets: per environment, chain and asset the balance last read, its threshold, the payouts due and whether the wallet can pay them; stuck payouts"
      ),
    HttpApiEndpoint.get("openapi", "/openapi.json", { success: Schema.Json, error: always })
      .annotate(RequiredRole, "viewer")
      .annotate(OpenApi.Summary, "This API's OpenAPI document")
  )
  .middleware(OperatorAuth)
  .prefix("/operator")
  .annotate(OpenApi.Description, "The operator's view of the service") {}

export class MetricsGroup extends HttpApiGroup.make("metrics", { topLevel: true })
  .add(
    HttpApiEndpoint.get("metrics", "/metrics", {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain; version=0.0.4; charset=utf-8" })),
      error: always
    })
      .annotate(RequiredRole, "viewer")
      .annotate(OpenApi.Summary, "Prometheus metrics (text exposition format)")
  )
  .middleware(OperatorAuth)
  .annotate(OpenApi.Description, "Prometheus scrapes this, with an operator token") {}

export class OperatorApi extends HttpApi.make("ratelock-operator")
  .add(OperatorGroup)
  .add(DeskGroup)
  .add(MoneyGroup)
  .add(FinanceGroup)
  .add(PartnersGroup)
  .add(AccessGroup)
  .add(MetricsGroup)
  // after the groups, as the partner API: a request that does not decode is a 422 naming each field
  .middleware(RequestValidation)
  .annotate(HttpApi.ParseOptions, { errors: "all" })
  .annotate(HttpApi.PayloadParseOptions, RequestDecoding.parseOptions)
  .annotateMerge(
    OpenApi.annotations({
      title: "Ratelock Operator API",
      version: "0.1.0",
      description:
        "The operator's side of Ratelock, on its own listener: status, market data, metrics. Every route needs Authorization: Bearer <operator token>.",
      servers: [{ url: "/" }]
    })
  ) {}
