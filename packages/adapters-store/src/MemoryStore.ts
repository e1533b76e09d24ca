/**
 * The repository ports of `@ratelock/core` in memory, for the testkit and fast unit tests. One
 * immutable state lives in one `Ref`; every method is one atomic step over it, so concurrent
 * fibers see what the SQL stores give: compare-and-set commits, unique constraints, and claims
 * that never hand one job to two claimers. `StoreTransaction` runs a program on a private copy
 * of that state and replays its steps onto the latest one when it commits (`internal/memory/state.ts`).
 * Behaviour: the package README, checked by `test/StoreContract.ts`.
 */
import { Context, Effect, Layer, Ref, Semaphore } from "effect"
import {
  AuditRepo,
  BacklogRepo,
  ContractRepo,
  CorridorLimitRepo,
  DailyCloseRepo,
  EventRepo,
  HedgeOrderRepo,
  HedgePolicyRepo,
  HotWalletRepo,
  IdempotencyRepo,
  MarketSnapshotRepo,
  MovementRepo,
  OperatorTokenRepo,
  PartnerRepo,
  PayoutRepo,
  QuoteRepo,
  ReconciliationRepo,
  RiskRevaluationRepo,
  RiskScenarioRepo,
  StoreTransaction,
  WebhookInboxRepo,
  WorkerHeartbeatRepo
} from "@ratelock/core"
import { makeAuditRepo } from "./internal/memory/audit.ts"
import { makeContractRepo } from "./internal/memory/contracts.ts"
import { makeCorridorLimitRepo } from "./internal/memory/corridors.ts"
import { makeDailyCloseRepo } from "./internal/memory/dailyCloses.ts"
import { makeEventRepo } from "./internal/memory/events.ts"
import { makeHedgeOrderRepo, makeHedgePolicyRepo } from "./internal/memory/hedging.ts"
import { makeHotWalletRepo } from "./internal/memory/hotWallets.ts"
import { makeIdempotencyRepo } from "./internal/memory/idempotency.ts"
import { makeMarketSnapshotRepo } from "./internal/memory/snapshots.ts"
import { makeWebhookInboxRepo } from "./internal/memory/inbox.ts"
import { makeBacklogRepo, makeOperatorTokenRepo, makeWorkerHeartbeatRepo } from "./internal/memory/operator.ts"
import { makeMovementRepo } from "./internal/memory/movements.ts"
import { makePartnerRepo } from "./internal/memory/partners.ts"
import { makePayoutRepo } from "./internal/memory/payouts.ts"
import { makeQuoteRepo } from "./internal/memory/quotes.ts"
import { makeReconciliationRepo } from "./internal/memory/reconciliation.ts"
import { makeRiskRevaluationRepo, makeRiskScenarioRepo } from "./internal/memory/risk.ts"
import * as State from "./internal/memory/state.ts"
import type { Repos } from "./internal/repos.ts"

/** Every repository, sharing one fresh, empty state per build of the layer. */
export const layerMemory: Layer.Layer<Repos> = Layer.effectContext(
  Effect.gen(function* () {
    const ref = yield* Ref.make(State.empty)
    // hot wallet nonces are handed out one signing at a time, payouts' and movements' alike (`recordSigned`)
    const nonces = yield* Semaphore.make(1)
    const repos = Context.make(QuoteRepo.QuoteRepo, makeQuoteRepo(ref)).pipe(
      Context.add(ContractRepo.ContractRepo, makeContractRepo(ref)),
      Context.add(EventRepo.EventRepo, makeEventRepo(ref)),
      Context.add(IdempotencyRepo.IdempotencyRepo, makeIdempotencyRepo(ref)),
      Context.add(PayoutRepo.PayoutRepo, makePayoutRepo(ref, nonces)),
      Context.add(MovementRepo.MovementRepo, makeMovementRepo(ref, nonces)),
      Context.add(ReconciliationRepo.ReconciliationRepo, makeReconciliationRepo(ref)),
      Context.add(PartnerRepo.PartnerRepo, makePartnerRepo(ref)),
      Context.add(WebhookInboxRepo.WebhookInboxRepo, makeWebhookInboxRepo(ref)),
      Context.add(MarketSnapshotRepo.MarketSnapshotRepo, makeMarketSnapshotRepo(ref)),
      Context.add(CorridorLimitRepo.CorridorLimitRepo, makeCorridorLimitRepo(ref)),
      Context.add(HedgePolicyRepo.HedgePolicyRepo, makeHedgePolicyRepo(ref)),
      Context.add(HedgeOrderRepo.HedgeOrderRepo, makeHedgeOrderRepo(ref)),
      Context.add(OperatorTokenRepo.OperatorTokenRepo, makeOperatorTokenRepo(ref)),
      Context.add(WorkerHeartbeatRepo.WorkerHeartbeatRepo, makeWorkerHeartbeatRepo(ref)),
      Context.add(BacklogRepo.BacklogRepo, makeBacklogRepo(ref)),
      Context.add(RiskScenarioRepo.RiskScenarioRepo, makeRiskScenarioRepo(ref)),
      Context.add(RiskRevaluationRepo.RiskRevaluationRepo, makeRiskRevaluationRepo(ref)),
      Context.add(HotWalletRepo.HotWalletRepo, makeHotWalletRepo(ref)),
      Context.add(AuditRepo.AuditRepo, makeAuditRepo(ref)),
      Context.add(DailyCloseRepo.DailyCloseRepo, makeDailyCloseRepo(ref))
    )
    // outside the pipe, which takes 20 steps at most
    return Context.add(
      repos,
      StoreTransaction.StoreTransaction,
      StoreTransaction.StoreTransaction.of({ run: State.transaction(ref) })
    )
  })
)
