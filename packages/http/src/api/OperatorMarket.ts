/**
 * The operator API's market data: the snapshot in force with each corridor's spot, forwards and
 * ATM vols, each currency's curve and each pair's vols (`GET /operator/v1/market`, what `ratelock
 * market show --json` prints), and a snapshot document's import (`POST /operator/v1/market/snapshots`,
 * `ratelock market import`). The routes belong to the main `operator` group (`OperatorApi.ts`).
 */
import { Corridor, Fields, MarketOverview, MarketSnapshot } from "@ratelock/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { PayloadTooLarge } from "./Errors.ts"
import { OptionalIdempotencyKey } from "./Headers.ts"
import { reading } from "./OperatorDesk.ts"
import { AuditedAction, RequiredRole } from "./OperatorRoles.ts"

const MarketSnapshotInfo = Schema.Struct({
  snapshot_id: Schema.String,
  hash: Schema.String,
  as_of: Fields.Instant,
  source: Schema.String,
  imported_at: Fields.Instant,
  age_seconds: Fields.Count
})

const CorridorFigures = Schema.Struct({
  corridor: Corridor.Direction,
  spot: Schema.String,
  points: Schema.Array(
    Schema.Struct({
      tenor: Schema.Literals(MarketOverview.tenors.map((t) => t.label)),
      forward: Schema.String,
      atm_vol: Schema.String
    })
  )
})

const CurveFigures = Schema.Struct({
  currency: Schema.String,
  convention: MarketSnapshot.Convention,
  points: Schema.Array(
    Schema.Struct({
      tenor_days: Schema.Int,
      rate: Schema.String.annotate({ description: "The snapshot's rate in its convention" }),
      discount_factor: Schema.String.annotate({ description: "From as_of to the pillar, 10 significant digits" })
    })
  )
})

const PairVols = Schema.Struct({
  pair: Schema.String,
  spot: Schema.String,
  pillars: Schema.Array(
    Schema.Struct({ tenor_days: Schema.Int, atm: Schema.String, rr25: Schema.String, bf25: Schema.String })
  ),
  smiles: Schema.Array(
    Schema.Struct({
      tenor: Schema.Literals(MarketOverview.smileTenors.map((t) => t.label)),
      forward: Schema.String.annotate({ description: "The pair's forward at the tenor: the ATM strike" }),
      points: Schema.Array(
        Schema.Struct({
          point: Schema.Literals(["25d_put", "atm", "25d_call"]),
          strike: Schema.String,
          vol: Schema.String
        })
      )
    })
  )
})

/**
 * What `ratelock market show --json` prints: the snapshot in force with its corridors, each
 * currency's curve and each pair's vols, or none.
 */
export const MarketView = Schema.Union([
  Schema.Struct({
    snapshot: MarketSnapshotInfo,
    corridors: Schema.Array(CorridorFigures),
    curves: Schema.Array(CurveFigures),
    vols: Schema.Array(PairVols)
  }),
  Schema.Struct({ snapshot: Schema.Null })
]).annotate({ identifier: "OperatorMarket" })

const imported = { snapshot_id: Schema.String, hash: Schema.String, as_of: Fields.Instant, source: Schema.String }

/** What `ratelock market import --json` prints, for a document stored now: 201. */
export const CreatedSnapshot = Schema.Struct({ ...imported, created: Schema.Literal(true) }).annotate({
  identifier: "OperatorCreatedSnapshot"
})

/** The same, for a document stored already (the same snapshot id as then): 200. */
export const ExistingSnapshot = Schema.Struct({ ...imported, created: Schema.Literal(false) }).annotate({
  identifier: "OperatorExistingSnapshot"
})

export const marketEndpoint = HttpApiEndpoint.get("market", "/v1/market", { success: MarketView, error: reading })
  .annotate(RequiredRole, "viewer")
  .annotate(OpenApi.Summary, "The market snapshot in force, its age, and per corridor spot, forwards and ATM vols")

export const importSnapshotEndpoint = HttpApiEndpoint.post("importSnapshot", "/v1/market/snapshots", {
  headers: OptionalIdempotencyKey,
  // the document's text, validated whole as `ratelock market import` does (docs/market)
  payload: Schema.String.annotate({
    description:
      "A market snapshot document (docs/market/README.md, its JSON Schema docs/market/snapshot.schema.json), as JSON"
  }).pipe(HttpApiSchema.asText({ contentType: "application/json" })),
  success: [CreatedSnapshot.pipe(HttpApiSchema.status(201)), ExistingSnapshot],
  error: [...reading, PayloadTooLarge]
})
  .annotate(RequiredRole, "risk")
  .annotate(AuditedAction, { action: "market.snapshot.import", targetKind: "market_snapshot" })
  .annotate(
    OpenApi.Summary,
    "Import a market snapshot document: 201 stored, 200 the same document was stored already, 422 every rule it breaks"
  )
