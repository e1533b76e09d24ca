/**
 * The operator API's finance: the P&L between an environment's daily closes (core's `PnlReport`: per day, market
 * pair and partner, explained line by line), the closes themselves, and an operator's close of the book now (core's
 * audited `finance.close`). Each route declares its role (`OperatorRoles.ts`); its JSON is what the CLI's `--json`
 * prints for the same command (`ratelock finance pnl|closes|close`), and what the console's P&L section draws.
 */
import { DailyClose, Partner, PnlReport } from "@ratelock/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { OptionalIdempotencyKey } from "./Headers.ts"
import { changing, reading } from "./OperatorDesk.ts"
import { AuditedAction, RequiredRole } from "./OperatorRoles.ts"
import { OperatorAuth } from "./OperatorSecurity.ts"

/** A span of UTC days, either end left to its default. */
export interface Span {
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** A span whose `from` is after its `to` holds no day: refused, not answered empty. */
export const inOrder = (span: Span): boolean => span.from === undefined || span.to === undefined || span.from <= span.to

export const spanOutOfOrder = "from must be on or before to"

const spanFields = {
  environment: Partner.Environment,
  from: Schema.optionalKey(PnlReport.Day).annotate({
    description: "The first UTC day, YYYY-MM-DD (default: 30 days before to)"
  }),
  to: Schema.optionalKey(PnlReport.Day).annotate({ description: "The last UTC day, YYYY-MM-DD (default: today)" })
}

const ordered = Schema.makeFilter((span: Span) => inOrder(span) || spanOutOfOrder)

/** `?environment=&from=&to=` of the closes; the CLI checks its flags with it before calling either way. */
export const ClosesQuery = Schema.Struct(spanFields).check(ordered)

/** `?environment=&from=&to=&by=` of the P&L; the CLI checks its flags with it before calling either way. */
export const PnlQuery = Schema.Struct({
  ...spanFields,
  by: Schema.optionalKey(PnlReport.By).annotate({
    description: "The rows the CLI's table shows (day by default); every view is in the answer"
  })
}).check(ordered)

/** What `ratelock finance pnl --json` prints. */
export const Pnl = Schema.toEncoded(PnlReport.PnlReport)

/** A close without its locks and snapshot (`ratelock finance close --json`). */
export const Close = Schema.toEncoded(DailyClose.CloseSummary)

/** What `ratelock finance closes --json` prints: oldest first. */
export const Closes = Schema.Struct({ items: Schema.Array(Close) }).annotate({ identifier: "OperatorCloses" })

export const CloseRequest = Schema.Struct({ environment: Partner.Environment }).annotate({
  identifier: "OperatorCloseRequest"
})

export class FinanceGroup extends HttpApiGroup.make("finance")
  .add(
    HttpApiEndpoint.get("pnl", "/v1/finance/pnl", { query: PnlQuery, success: Pnl, error: reading })
      // a read of the book, as the risk report: the console, which a viewer signs in to, draws it
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "The P&L of the periods between daily closes that end in the days asked, USD: realised and unrealised, explained line by line, per day, market pair and partner"
      ),
    HttpApiEndpoint.get("closes", "/v1/finance/closes", { query: ClosesQuery, success: Closes, error: reading })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "The daily closes of an environment in the days asked, oldest first: the book, hedges and ledger balances each recorded, and its P&L since the one before"
      ),
    HttpApiEndpoint.post("close", "/v1/finance/closes", {
      headers: OptionalIdempotencyKey,
      payload: CloseRequest,
      success: Close.pipe(HttpApiSchema.status(201)),
      error: changing
    })
      .annotate(RequiredRole, "risk")
      .annotate(AuditedAction, { action: "finance.close", targetKind: "environment" })
      .annotate(
        OpenApi.Summary,
        "Close the book of an environment now, at the market data in force (409 no_market_data without any): the close recorded, with its P&L since the one before"
      )
  )
  .middleware(OperatorAuth)
  .prefix("/operator")
  .annotate(OpenApi.Description, "Finance: the daily closes and the P&L explained between them") {}
