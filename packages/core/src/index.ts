/**
 * @ratelock/core: the FX rate-lock domain as pure, typed Effect programs.
 */

// Money, corridors and rails
export * as Corridor from "./Corridor.ts"
export * as Money from "./Money.ts"
export * as Rail from "./Rail.ts"

// Wire schemas
export * as ApiError from "./ApiError.ts"
export * as Contract from "./Contract.ts"
export * as ContractRequest from "./ContractRequest.ts"
export * as Fields from "./Fields.ts"
export * as IssueDetail from "./IssueDetail.ts"
export * as InboundEvent from "./InboundEvent.ts"
export * as ListQuery from "./ListQuery.ts"
export * as OutboundEvent from "./OutboundEvent.ts"
export * as Page from "./Page.ts"
export * as Partner from "./Partner.ts"
export * as Quote from "./Quote.ts"
export * as QuoteRequest from "./QuoteRequest.ts"
export * as RequestDecoding from "./RequestDecoding.ts"
export * as Requests from "./Requests.ts"
export * as WebhookEventRecord from "./WebhookEventRecord.ts"

// Market data
export * as CorridorLimit from "./CorridorLimit.ts"
export * as CorridorMarket from "./CorridorMarket.ts"
export * as DiscountCurve from "./DiscountCurve.ts"
export * as MarketSnapshot from "./MarketSnapshot.ts"
export * as VolSurface from "./VolSurface.ts"

// Pricing and settlement
export * as Pricing from "./Pricing.ts"
export * as QuotePolicy from "./QuotePolicy.ts"
export * as PricingInputs from "./PricingInputs.ts"
export * as MarketFreshness from "./MarketFreshness.ts"
export * as QuotePricer from "./QuotePricer.ts"
export * as QuoteRules from "./QuoteRules.ts"
export * as RetryPolicy from "./RetryPolicy.ts"
export * as RateCurve from "./RateCurve.ts"
export * as Settlement from "./Settlement.ts"
export * as SettlementRails from "./SettlementRails.ts"

// The book: revaluation, greeks and stress
export * as LockRisk from "./LockRisk.ts"
export * as NetExposure from "./NetExposure.ts"
export * as Risk from "./Risk.ts"
export * as RiskBook from "./RiskBook.ts"
export * as RiskDesk from "./RiskDesk.ts"
export * as RiskDeskReport from "./RiskDeskReport.ts"
export * as RiskFigures from "./RiskFigures.ts"
export * as RiskPlan from "./RiskPlan.ts"
export * as RiskReport from "./RiskReport.ts"
export * as RiskRevaluationRepo from "./RiskRevaluationRepo.ts"
export * as RiskScenario from "./RiskScenario.ts"
export * as RiskScenarioRepo from "./RiskScenarioRepo.ts"
export * as HedgeMarks from "./HedgeMarks.ts"
export * as RiskSums from "./RiskSums.ts"

// Contract lifecycle
export * as ContractMachine from "./ContractMachine.ts"
export * as Ledger from "./Ledger.ts"

// Observability
export * as Metrics from "./Metrics.ts"

// Signing, idempotency and pagination
export * as Cursor from "./Cursor.ts"
export * as ApiKeySecret from "./ApiKeySecret.ts"
export * as IdempotencyFingerprint from "./IdempotencyFingerprint.ts"
export * as WebhookSignature from "./WebhookSignature.ts"

// Ports
export * as ChainGateway from "./ChainGateway.ts"
export * as ContractRepo from "./ContractRepo.ts"
export * as CorridorLimitRepo from "./CorridorLimitRepo.ts"
export * as EventRepo from "./EventRepo.ts"
export * as IdempotencyRepo from "./IdempotencyRepo.ts"
export * as IdGenerator from "./IdGenerator.ts"
export * as Lease from "./Lease.ts"
export * as MarketData from "./MarketData.ts"
export * as MarketOverview from "./MarketOverview.ts"
export * as MarketSnapshotRepo from "./MarketSnapshotRepo.ts"
export * as BacklogRepo from "./BacklogRepo.ts"
export * as OperatorTokenRepo from "./OperatorTokenRepo.ts"
export * as WorkerHeartbeatRepo from "./WorkerHeartbeatRepo.ts"
export * as PartnerRepo from "./PartnerRepo.ts"
export * as PayoutRepo from "./PayoutRepo.ts"
export * as QuoteRepo from "./QuoteRepo.ts"
export * as WebhookInboxRepo from "./WebhookInboxRepo.ts"
export * as StoreError from "./StoreError.ts"
export * as WebhookTransport from "./WebhookTransport.ts"
export * as WebhookUrlCheck from "./WebhookUrlCheck.ts"

// Lifecycle programs
export * as Contracts from "./Contracts.ts"
export * as CorridorLimits from "./CorridorLimits.ts"
export * as Deliveries from "./Deliveries.ts"
export * as Expiry from "./Expiry.ts"
export * as Funding from "./Funding.ts"
export * as Idempotency from "./Idempotency.ts"
export * as Inbound from "./Inbound.ts"
export * as MarketSnapshots from "./MarketSnapshots.ts"
export * as OperatorStatus from "./OperatorStatus.ts"
export * as OperatorTokens from "./OperatorTokens.ts"
export * as Partners from "./Partners.ts"
export * as Payouts from "./Payouts.ts"
export * as QuoteExplain from "./QuoteExplain.ts"
export * as Quotes from "./Quotes.ts"
export * as SandboxRules from "./SandboxRules.ts"
export * as WebhookEvents from "./WebhookEvents.ts"
export * as WebhookInbox from "./WebhookInbox.ts"
export * as WorkerPasses from "./WorkerPasses.ts"

// Hedging the book
export * as BookDelta from "./BookDelta.ts"
export * as HedgeDesk from "./HedgeDesk.ts"
export * as HedgeOrder from "./HedgeOrder.ts"
export * as HedgeOrderRepo from "./HedgeOrderRepo.ts"
export * as HedgePolicy from "./HedgePolicy.ts"
export * as HedgePolicyRepo from "./HedgePolicyRepo.ts"
export * as HedgeVenue from "./HedgeVenue.ts"
export * as Hedging from "./Hedging.ts"
export * as ManualHedgeVenue from "./ManualHedgeVenue.ts"

// Tracing across the outbox
export * as TraceContext from "./TraceContext.ts"
