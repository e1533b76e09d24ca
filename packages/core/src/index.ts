/**
 * @ratelock/core: the FX rate-lock domain as pure, typed Effect programs.
 *
 * One section per folder, in the layer order: a folder imports only the folders above it here
 * (`pnpm lint` enforces it). The engines' stages (`risk/internal/`, `pricing/internal/`) are not exported.
 */

// The kernel: exact money, corridors and rails, environments, fields and errors, ids, leases, cursors, tracing,
// the store transaction and the audited change
export * as ApiError from "./kernel/ApiError.ts"
export * as AuditedChange from "./kernel/AuditedChange.ts"
export * as Corridor from "./kernel/Corridor.ts"
export * as Cursor from "./kernel/Cursor.ts"
export * as Environment from "./kernel/Environment.ts"
export * as Fields from "./kernel/Fields.ts"
export * as IdGenerator from "./kernel/IdGenerator.ts"
export * as IssueDetail from "./kernel/IssueDetail.ts"
export * as Lease from "./kernel/Lease.ts"
export * as Money from "./kernel/Money.ts"
export * as Rail from "./kernel/Rail.ts"
export * as RequestDecoding from "./kernel/RequestDecoding.ts"
export * as StoreError from "./kernel/StoreError.ts"
export * as StoreTransaction from "./kernel/StoreTransaction.ts"
export * as TraceContext from "./kernel/TraceContext.ts"

// The terms: wire schemas of quotes, contracts, events and partners, and the settlement rule
export * as Contract from "./terms/Contract.ts"
export * as ContractRequest from "./terms/ContractRequest.ts"
export * as InboundEvent from "./terms/InboundEvent.ts"
export * as ListQuery from "./terms/ListQuery.ts"
export * as OutboundEvent from "./terms/OutboundEvent.ts"
export * as Page from "./terms/Page.ts"
export * as Partner from "./terms/Partner.ts"
export * as PayoutFailure from "./terms/PayoutFailure.ts"
export * as PayoutWait from "./terms/PayoutWait.ts"
export * as PricingInputs from "./terms/PricingInputs.ts"
export * as Quote from "./terms/Quote.ts"
export * as QuoteRequest from "./terms/QuoteRequest.ts"
export * as Requests from "./terms/Requests.ts"
export * as Settlement from "./terms/Settlement.ts"
export * as WebhookEventRecord from "./terms/WebhookEventRecord.ts"

// Market data: snapshots, curves, smiles, freshness
export * as CorridorMarket from "./market/CorridorMarket.ts"
export * as DiscountCurve from "./market/DiscountCurve.ts"
export * as MarketData from "./market/MarketData.ts"
export * as MarketFreshness from "./market/MarketFreshness.ts"
export * as MarketOverview from "./market/MarketOverview.ts"
export * as MarketSnapshot from "./market/MarketSnapshot.ts"
export * as MarketSnapshotRepo from "./market/MarketSnapshotRepo.ts"
export * as MarketSnapshots from "./market/MarketSnapshots.ts"
export * as RateCurve from "./market/RateCurve.ts"
export * as VolSurface from "./market/VolSurface.ts"

// Corridor limits
export * as CorridorLimit from "./limits/CorridorLimit.ts"
export * as CorridorLimitRepo from "./limits/CorridorLimitRepo.ts"
export * as CorridorLimits from "./limits/CorridorLimits.ts"

// Pricing: the window-option engine and the quote pricer
export * as Pricing from "./pricing/Pricing.ts"
export * as QuotePolicy from "./pricing/QuotePolicy.ts"
export * as QuotePricer from "./pricing/QuotePricer.ts"
export * as QuoteRules from "./pricing/QuoteRules.ts"

// Simulation: what a lock is likely to pay (Monte Carlo) and what locks would have paid (backtest)
export * as LockSimulation from "./simulation/LockSimulation.ts"

// Partners: their store and their secrets
export * as ApiKeySecret from "./partners/ApiKeySecret.ts"
export * as PartnerRepo from "./partners/PartnerRepo.ts"

// The contract lifecycle: the state machine, the ledger, the lifecycle programs and their ports
export * as ChainGateway from "./lifecycle/ChainGateway.ts"
export * as ContractMachine from "./lifecycle/ContractMachine.ts"
export * as ContractRepo from "./lifecycle/ContractRepo.ts"
export * as Contracts from "./lifecycle/Contracts.ts"
export * as Deliveries from "./lifecycle/Deliveries.ts"
export * as EventRepo from "./lifecycle/EventRepo.ts"
export * as Expiry from "./lifecycle/Expiry.ts"
export * as Funding from "./lifecycle/Funding.ts"
export * as Idempotency from "./lifecycle/Idempotency.ts"
export * as IdempotencyFingerprint from "./lifecycle/IdempotencyFingerprint.ts"
export * as IdempotencyRepo from "./lifecycle/IdempotencyRepo.ts"
export * as Inbound from "./lifecycle/Inbound.ts"
export * as Ledger from "./lifecycle/Ledger.ts"
export * as Metrics from "./lifecycle/Metrics.ts"
export * as MovementRepo from "./lifecycle/MovementRepo.ts"
export * as Movements from "./lifecycle/Movements.ts"
export * as PayoutRepo from "./lifecycle/PayoutRepo.ts"
export * as Payouts from "./lifecycle/Payouts.ts"
export * as QuoteRepo from "./lifecycle/QuoteRepo.ts"
export * as Refunds from "./lifecycle/Refunds.ts"
export * as Quotes from "./lifecycle/Quotes.ts"
export * as RetryPolicy from "./lifecycle/RetryPolicy.ts"
export * as SandboxRules from "./lifecycle/SandboxRules.ts"
export * as SettlementRails from "./lifecycle/SettlementRails.ts"
export * as EnabledRails from "./lifecycle/EnabledRails.ts"
export * as TreasuryLedger from "./lifecycle/TreasuryLedger.ts"
export * as WebhookEvents from "./lifecycle/WebhookEvents.ts"
export * as WebhookInbox from "./lifecycle/WebhookInbox.ts"
export * as WebhookInboxRepo from "./lifecycle/WebhookInboxRepo.ts"
export * as WebhookSignature from "./lifecycle/WebhookSignature.ts"
export * as WebhookTransport from "./lifecycle/WebhookTransport.ts"
export * as WebhookUrlCheck from "./lifecycle/WebhookUrlCheck.ts"

// Hedging the book
export * as BookDelta from "./hedging/BookDelta.ts"
export * as HedgeDesk from "./hedging/HedgeDesk.ts"
export * as HedgeLedger from "./hedging/HedgeLedger.ts"
export * as HedgeMarks from "./hedging/HedgeMarks.ts"
export * as HedgeOrder from "./hedging/HedgeOrder.ts"
export * as HedgeOrderRepo from "./hedging/HedgeOrderRepo.ts"
export * as HedgePolicy from "./hedging/HedgePolicy.ts"
export * as HedgePolicyRepo from "./hedging/HedgePolicyRepo.ts"
export * as HedgeRealised from "./hedging/HedgeRealised.ts"
export * as HedgeVenue from "./hedging/HedgeVenue.ts"
export * as Hedging from "./hedging/Hedging.ts"
export * as ManualHedgeVenue from "./hedging/ManualHedgeVenue.ts"
export * as SimulatedVenueControl from "./hedging/SimulatedVenueControl.ts"

// The book's risk: revaluation, reports, scenarios
export * as NetExposure from "./risk/NetExposure.ts"
export * as Revaluation from "./risk/Revaluation.ts"
export * as Risk from "./risk/Risk.ts"
export * as RiskDesk from "./risk/RiskDesk.ts"
export * as RiskDeskReport from "./risk/RiskDeskReport.ts"
export * as RiskReport from "./risk/RiskReport.ts"
export * as RiskRevaluationRepo from "./risk/RiskRevaluationRepo.ts"
export * as RiskScenario from "./risk/RiskScenario.ts"
export * as RiskScenarioRepo from "./risk/RiskScenarioRepo.ts"

// Finance: the daily closes and the P&L explained between them
export * as DailyClose from "./finance/DailyClose.ts"
export * as DailyCloseRepo from "./finance/DailyCloseRepo.ts"
export * as DailyCloses from "./finance/DailyCloses.ts"
export * as PeriodPnl from "./finance/PeriodPnl.ts"
export * as PnlExplain from "./finance/PnlExplain.ts"
export * as PnlReport from "./finance/PnlReport.ts"

// The operator's programs
export * as Audit from "./operator/Audit.ts"
export * as AuditLog from "./operator/AuditLog.ts"
export * as AuditRepo from "./operator/AuditRepo.ts"
export * as BacklogRepo from "./operator/BacklogRepo.ts"
export * as HotWalletRepo from "./operator/HotWalletRepo.ts"
export * as HotWallets from "./operator/HotWallets.ts"
export * as OperatorActions from "./operator/OperatorActions.ts"
export * as OperatorActor from "./operator/OperatorActor.ts"
export * as OperatorRole from "./operator/OperatorRole.ts"
export * as OperatorStatus from "./operator/OperatorStatus.ts"
export * as OperatorTokenRepo from "./operator/OperatorTokenRepo.ts"
export * as OperatorTokens from "./operator/OperatorTokens.ts"
export * as Partners from "./operator/Partners.ts"
export * as PayoutDesk from "./operator/PayoutDesk.ts"
export * as QuoteExplain from "./operator/QuoteExplain.ts"
export * as StoredQuote from "./operator/StoredQuote.ts"
export * as Reconciliation from "./operator/Reconciliation.ts"
export * as ReconciliationRepo from "./operator/ReconciliationRepo.ts"
export * as Sweeps from "./operator/Sweeps.ts"
export * as Treasury from "./operator/Treasury.ts"
export * as TreasuryFlows from "./operator/TreasuryFlows.ts"
export * as UnmatchedFunds from "./operator/UnmatchedFunds.ts"
export * as WorkerHeartbeatRepo from "./operator/WorkerHeartbeatRepo.ts"

// Every background pass, in order
export * as WorkerPasses from "./WorkerPasses.ts"
