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

// Contract lifecycle
export * as ContractMachine from "./ContractMachine.ts"
export * as Ledger from "./Ledger.ts"

// Signing, idempotency and pagination
export * as Cursor from "./Cursor.ts"
export * as ApiKeySecret from "./ApiKeySecret.ts"
export * as IdempotencyFingerprint from "./IdempotencyFingerprint.ts"
export * as WebhookSignature from "./WebhookSignature.ts"

// Ports
export * as ChainGateway from "./ChainGateway.ts"
export * as ContractRepo from "./ContractRepo.ts"
export * as EventRepo from "./EventRepo.ts"
export * as IdempotencyRepo from "./IdempotencyRepo.ts"
export * as IdGenerator from "./IdGenerator.ts"
export * as Lease from "./Lease.ts"
export * as MarketData from "./MarketData.ts"
export * as MarketOverview from "./MarketOverview.ts"
export * as MarketSnapshotRepo from "./MarketSnapshotRepo.ts"
export * as PartnerRepo from "./PartnerRepo.ts"
export * as PayoutRepo from "./PayoutRepo.ts"
export * as QuoteRepo from "./QuoteRepo.ts"
export * as WebhookInboxRepo from "./WebhookInboxRepo.ts"
export * as StoreError from "./StoreError.ts"
export * as WebhookTransport from "./WebhookTransport.ts"
export * as WebhookUrlCheck from "./WebhookUrlCheck.ts"

// Lifecycle programs
export * as Contracts from "./Contracts.ts"
export * as Deliveries from "./Deliveries.ts"
export * as Expiry from "./Expiry.ts"
export * as Funding from "./Funding.ts"
export * as Idempotency from "./Idempotency.ts"
export * as Inbound from "./Inbound.ts"
export * as MarketSnapshots from "./MarketSnapshots.ts"
export * as Partners from "./Partners.ts"
export * as Payouts from "./Payouts.ts"
export * as QuoteExplain from "./QuoteExplain.ts"
export * as Quotes from "./Quotes.ts"
export * as SandboxRules from "./SandboxRules.ts"
export * as WebhookEvents from "./WebhookEvents.ts"
export * as WebhookInbox from "./WebhookInbox.ts"
export * as WorkerPasses from "./WorkerPasses.ts"

// Tracing across the outbox
export * as TraceContext from "./TraceContext.ts"
