/**
 * The operator API's status (`GET /operator/v1/status`): the service at a glance for whoever is on
 * call: whether it is degraded and why (the alerts that stand), its versions and database, the
 * market data in force and its age, each environment's backlogs and last close, and the workers'
 * passes. The route belongs to the main `operator` group (`OperatorApi.ts`), which adds it first.
 */
import { Fields, HotWalletRepo, Partner, Rail } from "@ratelock/core"
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { reading } from "./OperatorDesk.ts"
import { RequiredRole } from "./OperatorRoles.ts"

export const MarketStatus = Schema.Struct({
  snapshot_id: Schema.String,
  as_of: Fields.Instant,
  source: Schema.String,
  imported_at: Fields.Instant,
  age_seconds: Fields.Count,
  max_age_seconds: Fields.Count,
  fresh: Schema.Boolean.annotate({ description: "Whether production may price from it now" })
}).annotate({ identifier: "OperatorMarketStatus" })

export const EnvironmentStatus = Schema.Struct({
  environment: Partner.Environment,
  served: Schema.Boolean.annotate({
    description:
      "Whether this deployment serves the environment (RATELOCK_SANDBOX, RATELOCK_PRODUCTION_CHAINS); partners' calls to one that is not are refused 403 environment_disabled"
  }),
  outbox: Schema.Struct({ undelivered: Fields.Count, oldest_undelivered_age_seconds: Schema.NullOr(Fields.Count) }),
  payouts: Schema.Struct({
    awaiting_confirmation: Fields.Count,
    oldest_awaiting_age_seconds: Schema.NullOr(Fields.Count),
    failed: Fields.Count
  }),
  unmatched_funds: Fields.Count,
  last_close: Schema.NullOr(
    Schema.Struct({
      id: Schema.String,
      closed_at: Fields.Instant,
      scheduled_for: Schema.NullOr(Fields.Instant),
      age_seconds: Fields.Count
    })
  ).annotate({
    description:
      "The environment's latest daily close in the last two days (null: none; production closes only on fresh market data)"
  })
}).annotate({ identifier: "OperatorEnvironmentStatus" })

export const WorkerStatus = Schema.Struct({
  owner: Schema.String,
  last_seen_at: Fields.Instant,
  age_seconds: Fields.Count,
  passes: Schema.Array(
    Schema.Struct({ pass: Schema.String, last_pass_at: Fields.Instant, age_seconds: Fields.Count, ok: Schema.Boolean })
  )
}).annotate({ identifier: "OperatorWorkerStatus" })

/** Something that needs an operator now (`Treasury.alerts`). */
export const Alert = Schema.Struct({
  kind: Schema.Literals(["hot_wallet_low", "payouts_stuck", "reconciliation_differences"]).annotate({
    description:
      "hot_wallet_low: a hot wallet under its threshold; payouts_stuck: payouts waiting on the fee cap or on funds; reconciliation_differences: the books and the chain disagree"
  }),
  environment: Partner.Environment,
  chain: Rail.Chain,
  asset: Schema.optionalKey(HotWalletRepo.HotWalletAsset).annotate({ description: "The asset under its threshold" }),
  message: Schema.String
}).annotate({ identifier: "OperatorAlert" })

export const Status = Schema.Struct({
  checked_at: Fields.Instant,
  degraded: Schema.Boolean.annotate({ description: "Whether any alert stands" }),
  alerts: Schema.Array(Alert),
  versions: Schema.Struct({ ratelock: Schema.String, node: Schema.String, effect: Schema.String }),
  process: Schema.Struct({
    name: Schema.String,
    role: Schema.Literals(["api", "worker"]),
    started_at: Fields.Instant,
    uptime_seconds: Fields.Count
  }),
  database: Schema.Struct({
    kind: Schema.Literals(["postgresql", "embedded", "memory"]),
    migrations: Schema.Array(Schema.String)
  }),
  market: Schema.NullOr(MarketStatus),
  environments: Schema.Array(EnvironmentStatus),
  workers: Schema.Array(WorkerStatus)
}).annotate({ identifier: "OperatorStatus" })

export const statusEndpoint = HttpApiEndpoint.get("status", "/v1/status", { success: Status, error: reading })
  .annotate(RequiredRole, "viewer")
  .annotate(
    OpenApi.Summary,
    "The service at a glance: degraded and why, versions, database, market data in force, backlogs per environment, workers"
  )
