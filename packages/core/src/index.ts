/**
 * @ratelock/core: the FX rate-lock domain as pure, typed Effect programs.
 */

// Money, corridors and rails
export * as Corridor from "./kernel/Corridor.ts"
export * as Money from "./kernel/Money.ts"
export * as Rail from "./kernel/Rail.ts"

// Wire schemas
export * as ApiError from "./kernel/ApiError.ts"
export * as Contract from "./terms/Contract.ts"
export * as ContractRequest from "./terms/ContractRequest.ts"
export * as Fields from "./kernel/Fields.ts"
export * as IssueDetail from "./kernel/IssueDetail.ts"
export * as InboundEvent from "./terms/InboundEvent.ts"
export * as ListQuery from "./terms/ListQuery.ts"
export * as OutboundEvent from "./terms/OutboundEvent.ts"
export * as Page from "./terms/Page.ts"
export * as Partner from "./terms/Partner.ts"
export * as Quote from "./terms/Quote.ts"
export * as QuoteRequest from "./terms/QuoteRequest.ts"
export * as RequestDecoding from "./kernel/RequestDecoding.ts"
export * as Requests from "./terms/Requests.ts"
export * as WebhookEventRecord from "./terms/WebhookEventRecord.ts"

// Market data
export * as CorridorLimit from "./limits/CorridorLimit.ts"
export * as CorridorMarket from "./market/CorridorMarket.ts"
export * as DiscountCurve from "./market/DiscountCurve.ts"
export * as MarketSnapshot from "./market/MarketSnapshot.ts"
export * as VolSurface from "./market/VolSurface.ts"

// Pricing and settlement
export * as Pricing from "./pricing/Pricing.ts"
export * as QuotePolicy from "./pricing/QuotePolicy.ts"
export * as PricingInputs from "./terms/PricingInputs.ts"
export * as MarketFreshness from "./market/MarketFreshness.ts"
export * as QuotePricer from "./pricing/QuotePricer.ts"
export * as QuoteRules from "./pricing/QuoteRules.ts"
export * as RetryPolicy from "./lifecycle/RetryPolicy.ts"
export * as RateCurve from "./market/RateCurve.ts"
export * as Settlement from "./terms/Settlement.ts"
export * as SettlementRails from "./lifecycle/SettlementRails.ts"

// The book: revaluation, greeks and stress
export * as LockRisk from "./risk/internal/LockRisk.ts"
export * as NetExposure from "./risk/NetExposure.ts"
export * as Risk from "./risk/Risk.ts"
export * as RiskBook from "./risk/internal/RiskBook.ts"
export * as RiskDesk from "./risk/RiskDesk.ts"
export * as RiskDeskReport from "./risk/RiskDeskReport.ts"
export * as RiskFigures from "./risk/internal/RiskFigures.ts"
export * as RiskPlan from "./risk/internal/RiskPlan.ts"
export * as RiskReport from "./risk/RiskReport.ts"
export * as RiskRevaluationRepo from "./risk/RiskRevaluationRepo.ts"
export * as RiskScenario from "./risk/RiskScenario.ts"
export * as RiskScenarioRepo from "./risk/RiskScenarioRepo.ts"
export * as HedgeMarks from "./hedging/HedgeMarks.ts"
export * as RiskSums from "./risk/internal/RiskSums.ts"

// Contract lifecycle
export * as ContractMachine from "./lifecycle/ContractMachine.ts"
export * as Ledger from "./lifecycle/Ledger.ts"

// Observability
export * as Metrics from "./lifecycle/Metrics.ts"

// Signing, idempotency and pagination
export * as Cursor from "./kernel/Cursor.ts"
export * as ApiKeySecret from "./partners/ApiKeySecret.ts"
export * as IdempotencyFingerprint from "./lifecycle/IdempotencyFingerprint.ts"
export * as WebhookSignature from "./lifecycle/WebhookSignature.ts"

// Ports
export * as ChainGateway from "./lifecycle/ChainGateway.ts"
export * as ContractRepo from "./lifecycle/ContractRepo.ts"
export * as CorridorLimitRepo from "./limits/CorridorLimitRepo.ts"
export * as EventRepo from "./lifecycle/EventRepo.ts"
export * as IdempotencyRepo from "./lifecycle/IdempotencyRepo.ts"
export * as IdGenerator from "./kernel/IdGenerator.ts"
export * as Lease from "./kernel/Lease.ts"
export * as MarketData from "./market/MarketData.ts"
export * as MarketOverview from "./market/MarketOverview.ts"
export * as MarketSnapshotRepo from "./market/MarketSnapshotRepo.ts"
export * as BacklogRepo from "./operator/BacklogRepo.ts"
export * as OperatorTokenRepo from "./operator/OperatorTokenRepo.ts"
export * as WorkerHeartbeatRepo from "./operator/WorkerHeartbeatRepo.ts"
export * as PartnerRepo from "./partners/PartnerRepo.ts"
export * as PayoutRepo from "./lifecycle/PayoutRepo.ts"
export * as QuoteRepo from "./lifecycle/QuoteRepo.ts"
export * as WebhookInboxRepo from "./lifecycle/WebhookInboxRepo.ts"
export * as StoreError from "./kernel/StoreError.ts"
export * as WebhookTransport from "./lifecycle/WebhookTransport.ts"
export * as WebhookUrlCheck from "./lifecycle/WebhookUrlCheck.ts"

// Lifecycle programs
export * as Contracts from "./lifecycle/Contracts.ts"
export * as CorridorLimits from "./limits/CorridorLimits.ts"
export * as Deliveries from "./lifecycle/Deliveries.ts"
export * as Expiry from "./lifecycle/Expiry.ts"
export * as Funding from "./lifecycle/Funding.ts"
export * as Idempotency from "./lifecycle/Idempotency.ts"
export * as Inbound from "./lifecycle/Inbound.ts"
export * as MarketSnapshots from "./market/MarketSnapshots.ts"
export * as OperatorStatus from "./operator/OperatorStatus.ts"
export * as OperatorTokens from "./operator/OperatorTokens.ts"
export * as Partners from "./operator/Partners.ts"
export * as Payouts from "./lifecycle/Payouts.ts"
export * as QuoteExplain from "./operator/QuoteExplain.ts"
export * as Quotes from "./lifecycle/Quotes.ts"
export * as SandboxRules from "./lifecycle/SandboxRules.ts"
export * as WebhookEvents from "./lifecycle/WebhookEvents.ts"
export * as WebhookInbox from "./lifecycle/WebhookInbox.ts"
export * as WorkerPasses from "./WorkerPasses.ts"

// Hedging the book
export * as BookDelta from "./hedging/BookDelta.ts"
export * as HedgeDesk from "./hedging/HedgeDesk.ts"
export * as HedgeOrder from "./hedging/HedgeOrder.ts"
export * as HedgeOrderRepo from "./hedging/HedgeOrderRepo.ts"
export * as HedgePolicy from "./hedging/HedgePolicy.ts"
export * as HedgePolicyRepo from "./hedging/HedgePolicyRepo.ts"
export * as HedgeVenue from "./hedging/HedgeVenue.ts"
export * as Hedging from "./hedging/Hedging.ts"
export * as ManualHedgeVenue from "./hedging/ManualHedgeVenue.ts"

// Tracing across the outbox
export * as TraceContext from "./kernel/TraceContext.ts"
