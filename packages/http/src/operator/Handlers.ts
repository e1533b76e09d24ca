/**
 * The operator API's handlers, each over one core program: the status (`OperatorStatus`, plus what
 * only this host knows), the hot wallets (`Treasury`, the same JSON as `ratelock treasury show --json`), the market in force and its import (`MarketSnapshots`, the same JSON as
 * `ratelock market show --json` / `market import --json`), Prometheus metrics (the store's gauges
 * sampled first, then Effect's `PrometheusMetrics` text) and this API's OpenAPI document.
 */
import {
  type BacklogRepo,
  type ChainGateway,
  PayoutDesk,
  type ContractRepo,
  type CorridorLimitRepo,
  HedgeDesk,
  HedgeOrder,
  type HedgeOrderRepo,
  type HedgePolicyRepo,
  type HotWalletRepo,
  type MovementRepo,
  type PayoutRepo,
  type ReconciliationRepo,
  type DailyCloseRepo,
  RiskDesk,
  RiskDeskReport,
  type RiskRevaluationRepo,
  type RiskScenarioRepo,
  type IdGenerator,
  type MarketSnapshotRepo,
  MarketSnapshots,
  OperatorActions,
  OperatorStatus,
  Treasury,
  type WorkerHeartbeatRepo
} from "@ratelock/core"
import { DateTime, Effect, Layer, Option, Schema, Version } from "effect"
import type { Digest } from "effect/crypto"
import { type HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup, OpenApi } from "effect/http-api"
import { PrometheusMetrics } from "effect/observability"
import { envelope, NotFound } from "../api/Errors.ts"
import { CreatedSnapshot, ExistingSnapshot, OperatorApi } from "../api/OperatorApi.ts"
import type { OperatorAuth } from "../api/OperatorSecurity.ts"
import type { RequestValidation } from "../api/Validation.ts"
import * as Format from "../internal/operatorFormat.ts"
import * as Metrics from "../Metrics.ts"
import { hideInternal, mapErrors } from "../server/HttpErrors.ts"
import { ChainAvailability } from "../server/ChainAvailability.ts"
import { Readiness } from "../server/Readiness.ts"
import { version } from "../Version.ts"
import { OperatorInfo } from "./OperatorInfo.ts"
import { type ChangeRequirements, post } from "./OperatorPost.ts"

const status = Effect.gen(function* () {
  const info = yield* OperatorInfo
  const migrations = yield* (yield* Readiness).migrations
  const current = yield* OperatorStatus.status({ marketMaxAge: info.marketMaxAge })
  const served = yield* ChainAvailability
  const now = yield* DateTime.now
  return {
    checked_at: current.checked_at,
    degraded: current.degraded,
    alerts: current.alerts,
    versions: { ratelock: version, node: process.version, effect: Version.getCurrentVersion() },
    process: {
      name: info.processName,
      role: info.role,
      started_at: DateTime.formatIso(DateTime.makeUnsafe(info.startedAt)),
      uptime_seconds: Math.max(0, Math.floor((now.epochMilliseconds - info.startedAt) / 1000))
    },
    database: { kind: info.database, migrations },
    market: current.market,
    // which environments this host serves: the console opens on one of them, not on an empty one that is off
    environments: current.environments.map((e) => ({ ...e, served: served[e.environment] })),
    workers: current.workers
  }
})

/** The document, its `servers` the origin the request reached (as the partner API's `/openapi.json`). */
const openApiDocument = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const document = OpenApi.fromApi(OperatorApi)
  const servers = Option.match(HttpServerRequest.toURL(request), {
    onNone: () => document.servers,
    onSome: (url) => [{ url: url.origin }]
  })
  return HttpServerResponse.jsonUnsafe({ ...document, servers })
})

/** What the operator routes read: the store's repositories and the crypto of an import. */
export type Requirements =
  | MarketSnapshotRepo.MarketSnapshotRepo
  | BacklogRepo.BacklogRepo
  | WorkerHeartbeatRepo.WorkerHeartbeatRepo
  | IdGenerator.IdGenerator
  | Digest.Digest
  | Readiness
  | ContractRepo.ContractRepo
  | PayoutRepo.PayoutRepo
  | CorridorLimitRepo.CorridorLimitRepo
  | HedgePolicyRepo.HedgePolicyRepo
  | HedgeOrderRepo.HedgeOrderRepo
  | RiskScenarioRepo.RiskScenarioRepo
  | RiskRevaluationRepo.RiskRevaluationRepo
  | ChainGateway.ChainGateway
  | HotWalletRepo.HotWalletRepo
  | MovementRepo.MovementRepo
  | ReconciliationRepo.ReconciliationRepo
  | DailyCloseRepo.DailyCloseRepo
  | ChangeRequirements

/** One payout, or 404 `payout_not_found`. */
const payout = (contractId: string) =>
  Effect.catch(PayoutDesk.show(contractId), (e) =>
    e._tag === "PayoutNotFound" ? Effect.fail(new NotFound(envelope("payout_not_found", e.message))) : hideInternal(e)
  )

export const layer: Layer.Layer<
  HttpApiGroup.Service<"ratelock-operator", "operator"> | HttpApiGroup.Service<"ratelock-operator", "metrics">,
  never,
  OperatorAuth | RequestValidation | HttpRouter.Request.From<"Requires", Requirements>
> = Layer.merge(
  HttpApiBuilder.group(OperatorApi, "operator", (handlers) =>
    handlers
      .handle("status", () => mapErrors(status))
      .handle("market", () => mapErrors(Effect.map(MarketSnapshots.inForce(), Format.marketJson)))
      .handle("importSnapshot", (call) =>
        post(
          call,
          Schema.Union([CreatedSnapshot, ExistingSnapshot]),
          (imported) => (imported.created ? 201 : 200),
          Effect.map(OperatorActions.importSnapshot(call.payload), Format.importedSnapshotJson)
        )
      )
      .handle("risk", ({ query }) =>
        mapErrors(
          Effect.map(
            RiskDesk.report(query.environment ?? "production", { fresh: query.fresh === "true" }),
            RiskDeskReport.encode
          )
        )
      )
      .handle("hedgeOrders", ({ query }) =>
        mapErrors(
          Effect.map(
            HedgeDesk.orders({ environment: query.environment, status: query.status, limit: query.limit ?? 100 }),
            (orders) => ({ items: orders.map(HedgeOrder.view) })
          )
        )
      )
      .handle("payouts", ({ query }) =>
        mapErrors(
          Effect.map(
            PayoutDesk.list({ filter: query.status, environment: query.environment, limit: query.limit ?? 100 }),
            (items) => ({ items })
          )
        )
      )
      .handle("payout", ({ params }) => payout(params.contract_id))
      .handle("deliveries", ({ query }) => mapErrors(OperatorStatus.deliveries(query.environment ?? "production")))
      .handle("treasury", ({ query }) => mapErrors(Treasury.view({ environment: query.environment })))
      .handle("openapi", () => openApiDocument)
  ),
  HttpApiBuilder.group(OperatorApi, "metrics", (handlers) =>
    handlers.handle("metrics", () =>
      Metrics.sample.pipe(
        // a store that cannot be read leaves the gauges as last sampled: the counters still matter
        Effect.catchCause((cause) => Effect.logWarning("metrics: sampling the store failed", cause)),
        Effect.andThen(PrometheusMetrics.format())
      )
    )
  )
)
