/**
 * The memory store's one state: immutable tables (persistent `HashMap`s) in a single `Ref`. Every
 * method runs as one atomic step over it, like one SQL transaction: a step computes the next
 * state or a failure, and a failure leaves the state exactly as it was (rollback).
 */
import { Effect, Exit, HashMap, Ref } from "effect"
import type {
  Contract,
  ContractRepo,
  CorridorLimit,
  EventRepo,
  HedgeOrder,
  HedgePolicy,
  HotWalletRepo,
  IdempotencyRepo,
  HedgeLedger,
  Ledger,
  MarketSnapshotRepo,
  MovementRepo,
  OperatorTokenRepo,
  PartnerRepo,
  PayoutRepo,
  RiskRevaluationRepo,
  RiskScenarioRepo,
  Quote,
  ReconciliationRepo,
  TreasuryLedger,
  WebhookInboxRepo,
  WorkerHeartbeatRepo
} from "@ratelock/core"
import type { Leased } from "./lease.ts"

export interface IdempotencyRow {
  readonly fingerprint: string
  readonly response: IdempotencyRepo.StoredResponse | null
  /** Epoch milliseconds: from then on the key is free again. */
  readonly expiresAt: number
}

/** One source's booking in the treasury ledger: its entries, and its place among all bookings. */
export interface TreasuryBooking {
  readonly seq: number
  readonly entries: ReadonlyArray<TreasuryLedger.TreasuryEntry>
}

export interface State {
  readonly quotes: HashMap.HashMap<string, Quote.QuoteRecord>
  readonly contracts: HashMap.HashMap<string, Leased<Contract.ContractRecord>>
  /** quote id → contract id: one contract per quote. */
  readonly contractByQuote: HashMap.HashMap<string, string>
  readonly fundingCursors: HashMap.HashMap<string, string>
  /** `chain|environment` → the next index to hand out. */
  readonly fundingIndexes: HashMap.HashMap<string, number>
  /** `chain|transactionHash|index` of every counted transfer. */
  /** Counted funding transfers (`transferKey`) and the contract each funded. */
  readonly transfers: HashMap.HashMap<string, string>
  /** `chain|transactionHash|index` → a transfer that did not fund its contract. */
  readonly unmatched: HashMap.HashMap<string, ContractRepo.UnmatchedTransfer>
  /** contract id → its entries in booking order. */
  readonly ledger: HashMap.HashMap<string, ReadonlyArray<Ledger.LedgerEntry>>
  readonly incoming: HashMap.HashMap<string, EventRepo.IncomingEvent>
  /** `partner|environment|idempotencyKey` → incoming event id. */
  readonly incomingKeys: HashMap.HashMap<string, string>
  readonly outgoing: HashMap.HashMap<string, Leased<EventRepo.OutgoingEvent>>
  readonly payouts: HashMap.HashMap<string, Leased<PayoutRepo.PayoutRecord>>
  /** contract id → payout id: one payout per contract. */
  readonly payoutByContract: HashMap.HashMap<string, string>
  /**
   * `environment|chain|signer` → the hot wallet's nonces handed out, each to what holds it
   * (`payout:<id>`, `movement:<id>`): no nonce twice, as `hot_wallet_nonces`'s primary key.
   */
  readonly hotWalletNonces: HashMap.HashMap<string, HashMap.HashMap<number, string>>
  readonly movements: HashMap.HashMap<string, Leased<MovementRepo.Movement>>
  /** key → movement id: one movement per key. */
  readonly movementByKey: HashMap.HashMap<string, string>
  /** source → its booking: each source booked once. */
  readonly treasury: HashMap.HashMap<string, TreasuryBooking>
  /** `environment|chain` → its latest reconciliation run. */
  readonly reconciliations: HashMap.HashMap<string, ReconciliationRepo.ReconciliationRun>
  /** `partner|environment|key` → the claimed key. */
  readonly idempotency: HashMap.HashMap<string, IdempotencyRow>
  readonly partners: HashMap.HashMap<string, PartnerRepo.PartnerRecord>
  readonly apiKeys: HashMap.HashMap<string, PartnerRepo.ApiKeyRecord>
  /** `partner|environment` → its endpoint. */
  readonly webhookEndpoints: HashMap.HashMap<string, PartnerRepo.WebhookEndpoint>
  /** `partner|environment|chain` → its refund address. */
  readonly refundAddresses: HashMap.HashMap<string, PartnerRepo.RefundAddress>
  /** partner id → its sandbox inbox, newest first. */
  readonly inbox: HashMap.HashMap<string, ReadonlyArray<WebhookInboxRepo.InboxDelivery>>
  readonly snapshots: HashMap.HashMap<string, MarketSnapshotRepo.StoredSnapshot>
  /** hash → snapshot id: one snapshot per document. */
  readonly snapshotByHash: HashMap.HashMap<string, string>
  /** `environment|direction` → the corridor's limits and open notional. */
  readonly corridors: HashMap.HashMap<string, CorridorLimit.CorridorLimit>
  /** `environment|pair` → its policy, leased to the pass working on the pair. */
  readonly hedgePolicies: HashMap.HashMap<string, Leased<HedgePolicy.HedgePolicy>>
  readonly hedgeOrders: HashMap.HashMap<string, HedgeOrder.HedgeOrder>
  /** order id → the entries of its fill. */
  readonly hedgeLedger: HashMap.HashMap<string, ReadonlyArray<HedgeLedger.HedgeLedgerEntry>>
  readonly operatorTokens: HashMap.HashMap<string, OperatorTokenRepo.OperatorTokenRecord>
  /** `owner|pass` → its latest heartbeat. */
  readonly heartbeats: HashMap.HashMap<string, WorkerHeartbeatRepo.WorkerHeartbeat>
  /** name → the operator's scenario. */
  readonly riskScenarios: HashMap.HashMap<string, RiskScenarioRepo.StoredScenario>
  /** environment → the book's current revaluation. */
  readonly riskRevaluations: HashMap.HashMap<string, RiskRevaluationRepo.StoredRevaluation>
  /** Who holds the lease on revaluing the book, until when; null: nobody ever took it. */
  readonly revaluationLease: RiskRevaluationRepo.RevaluationLease | null
  /** `environment|chain|asset` → the hot wallet's last reading. */
  readonly hotWallets: HashMap.HashMap<string, HotWalletRepo.HotWalletReading>
}

export const empty: State = {
  quotes: HashMap.empty(),
  contracts: HashMap.empty(),
  contractByQuote: HashMap.empty(),
  fundingCursors: HashMap.empty(),
  fundingIndexes: HashMap.empty(),
  transfers: HashMap.empty(),
  unmatched: HashMap.empty(),
  ledger: HashMap.empty(),
  incoming: HashMap.empty(),
  incomingKeys: HashMap.empty(),
  outgoing: HashMap.empty(),
  payouts: HashMap.empty(),
  payoutByContract: HashMap.empty(),
  hotWalletNonces: HashMap.empty(),
  movements: HashMap.empty(),
  movementByKey: HashMap.empty(),
  treasury: HashMap.empty(),
  reconciliations: HashMap.empty(),
  idempotency: HashMap.empty(),
  partners: HashMap.empty(),
  apiKeys: HashMap.empty(),
  webhookEndpoints: HashMap.empty(),
  refundAddresses: HashMap.empty(),
  inbox: HashMap.empty(),
  snapshots: HashMap.empty(),
  snapshotByHash: HashMap.empty(),
  corridors: HashMap.empty(),
  hedgePolicies: HashMap.empty(),
  hedgeOrders: HashMap.empty(),
  hedgeLedger: HashMap.empty(),
  operatorTokens: HashMap.empty(),
  heartbeats: HashMap.empty(),
  riskScenarios: HashMap.empty(),
  riskRevaluations: HashMap.empty(),
  revaluationLease: null,
  hotWallets: HashMap.empty()
}

export type StateRef = Ref.Ref<State>

/** The outcome of one step: a value and the next state, or a failure (the state stays as it was). */
export type Step<A, E = never> = Exit.Exit<readonly [A, State], E>

/** A step that succeeds with `value` and moves to `next`. */
export const done = <A>(value: A, next: State): Step<A> => Exit.succeed([value, next] as const)

/** A step that writes `next` and returns nothing. */
export const write = (next: State): Step<void> => done(undefined, next)

/** Runs a step atomically: no other fiber sees or changes the state in between. */
export const atomically = <A, E>(ref: StateRef, step: (state: State) => Step<A, E>): Effect.Effect<A, E> =>
  Effect.flatten(
    Ref.modify(ref, (state): readonly [Exit.Exit<A, E>, State] => {
      const exit = step(state)
      return Exit.isSuccess(exit) ? [Exit.succeed(exit.value[0]), exit.value[1]] : [Exit.failCause(exit.cause), state]
    })
  )

/** Reads a consistent snapshot. */
export const read = <A>(ref: StateRef, f: (state: State) => A): Effect.Effect<A> => Effect.map(Ref.get(ref), f)
