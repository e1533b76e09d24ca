/** Every repository port of `@ratelock/core` a store provides, and its transaction: the one list of them. */
import type * as Core from "@ratelock/core"

export type Repos =
  | Core.QuoteRepo.QuoteRepo
  | Core.ContractRepo.ContractRepo
  | Core.EventRepo.EventRepo
  | Core.IdempotencyRepo.IdempotencyRepo
  | Core.PayoutRepo.PayoutRepo
  | Core.MovementRepo.MovementRepo
  | Core.ReconciliationRepo.ReconciliationRepo
  | Core.PartnerRepo.PartnerRepo
  | Core.WebhookInboxRepo.WebhookInboxRepo
  | Core.MarketSnapshotRepo.MarketSnapshotRepo
  | Core.CorridorLimitRepo.CorridorLimitRepo
  | Core.HedgePolicyRepo.HedgePolicyRepo
  | Core.HedgeOrderRepo.HedgeOrderRepo
  | Core.OperatorTokenRepo.OperatorTokenRepo
  | Core.WorkerHeartbeatRepo.WorkerHeartbeatRepo
  | Core.BacklogRepo.BacklogRepo
  | Core.RiskScenarioRepo.RiskScenarioRepo
  | Core.RiskRevaluationRepo.RiskRevaluationRepo
  | Core.HotWalletRepo.HotWalletRepo
  | Core.AuditRepo.AuditRepo
  | Core.DailyCloseRepo.DailyCloseRepo
  | Core.StoreTransaction.StoreTransaction
