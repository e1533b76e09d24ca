/**
 * The memory store's one state: immutable tables (persistent `HashMap`s) in a single `Ref`. Every
 * method runs as one atomic step over it, like one SQL statement: a step is a pure function from
 * the state to its value and the next state, or to a failure, and a failure leaves the state
 * exactly as it was (rollback). Every access goes through `atomically` (a write) or `read`.
 *
 * **Transactions** (`StoreTransaction`, `transaction` below). A transaction is open in the fibers
 * that run its program: a `Context.Reference` holds, per store state, the transaction open on it
 * (its main `Ref`, a working copy taken when it began, and the log of the steps applied). Inside
 * it, `atomically` applies each step to the working copy and appends the step to the log, and
 * `read` reads the working copy, so the program sees its own writes and nobody else sees them.
 * When the program succeeds, the commit replays the logged steps, in order, onto the latest main
 * state in one `Ref.modify`: what others committed meanwhile is kept, and each step decides again
 * on the state it now meets (a compare-and-set compares again, a unique key is checked again). If
 * a replayed step fails, the whole commit fails with a `StoreError` (a conflict, as PostgreSQL's
 * serialization failure) and nothing is written. If the program fails, or is interrupted, nothing
 * is written. A step that failed inside the transaction was not logged (it wrote nothing), and the
 * program may go on; PostgreSQL would have aborted its transaction there (see the README).
 *
 * A `run` inside a transaction on the same state is a savepoint: if it fails, the working copy
 * is put back as it was when the nested run began and the log is cut back to that point; if it
 * succeeds, its steps stay in the log of the enclosing transaction. Reads inside a transaction see
 * the state as it was when the transaction began plus its own writes (a snapshot), where a
 * PostgreSQL transaction in read committed sees, statement by statement, what others committed
 * meanwhile; the values a replayed step computes are not compared with those the program saw.
 */
import { Cause, Context, Effect, Exit, HashMap, Ref } from "effect"
import { StoreError } from "@ratelock/core"
import type {
  AuditRepo,
  Contract,
  ContractRepo,
  CorridorLimit,
  DailyClose,
  DailyCloseRepo,
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

/** A contract ledger entry and its place among every entry booked, as `ledger_entries.id` orders them. */
export interface BookedEntry {
  readonly seq: number
  readonly entry: Ledger.LedgerEntry
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
  readonly ledger: HashMap.HashMap<string, ReadonlyArray<BookedEntry>>
  /** How many contract ledger entries were ever booked: the next one's `seq`. */
  readonly ledgerBooked: number
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
  /** id → the audit record: appended, never replaced nor removed. */
  readonly audit: HashMap.HashMap<string, AuditRepo.AuditRecord>
  /** id → the daily close, its locks by contract id: stored once, never replaced nor removed. */
  readonly dailyCloses: HashMap.HashMap<string, DailyClose.DailyClose>
  /** `environment|cut` (the cut in epoch milliseconds) → its scheduled close: one per cut. */
  readonly closeByCut: HashMap.HashMap<string, string>
  /** Who holds the lease on closing, until when; null: nobody ever took it. */
  readonly closeLease: DailyCloseRepo.CloseLease | null
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
  ledgerBooked: 0,
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
  hotWallets: HashMap.empty(),
  audit: HashMap.empty(),
  dailyCloses: HashMap.empty(),
  closeByCut: HashMap.empty(),
  closeLease: null
}

export type StateRef = Ref.Ref<State>

/** The outcome of one step: a value and the next state, or a failure (the state stays as it was). */
export type Step<A, E = never> = Exit.Exit<readonly [A, State], E>

/** A step that succeeds with `value` and moves to `next`. */
export const done = <A>(value: A, next: State): Step<A> => Exit.succeed([value, next] as const)

/** A step that writes `next` and returns nothing. */
export const write = (next: State): Step<void> => done(undefined, next)

/** A transaction open on one store's state. */
interface Transaction {
  /** The store's state, written only by the commit. */
  readonly main: StateRef
  /** The transaction's private copy: what its steps wrote, what its reads see. */
  readonly working: StateRef
  /** The steps applied to the copy, in order: replayed onto the main state at the commit. */
  readonly steps: Array<(state: State) => Step<unknown, unknown>>
}

/** The transactions open in this fiber (and the fibers it forks), at most one per store state. */
const OpenTransactions = Context.Reference<ReadonlyMap<StateRef, Transaction>>(
  "@ratelock/adapters-store/MemoryStore/OpenTransactions",
  { defaultValue: () => new Map() }
)

/** Applies a step to `ref` in one `Ref.modify`, noting it in `log` if it succeeded. */
const apply = <A, E>(
  ref: StateRef,
  step: (state: State) => Step<A, E>,
  log?: Array<(state: State) => Step<unknown, unknown>>
): Effect.Effect<A, E> =>
  Effect.flatten(
    Ref.modify(ref, (state): readonly [Exit.Exit<A, E>, State] => {
      const exit = step(state)
      if (Exit.isFailure(exit)) return [Exit.failCause(exit.cause), state]
      log?.push(step)
      return [Exit.succeed(exit.value[0]), exit.value[1]]
    })
  )

/**
 * Runs a step atomically: no other fiber sees or changes the state in between. Inside a
 * transaction on `ref`, on the transaction's working copy, and logged for its commit.
 */
export const atomically = <A, E>(ref: StateRef, step: (state: State) => Step<A, E>): Effect.Effect<A, E> =>
  Effect.withFiber((fiber) => {
    const open = fiber.getRef(OpenTransactions).get(ref)
    return open === undefined ? apply(ref, step) : apply(open.working, step, open.steps)
  })

/** Reads a consistent snapshot (inside a transaction on `ref`, its working copy). */
export const read = <A>(ref: StateRef, f: (state: State) => A): Effect.Effect<A> =>
  Effect.withFiber((fiber) => Effect.map(Ref.get(fiber.getRef(OpenTransactions).get(ref)?.working ?? ref), f))

/** Replays the transaction's steps onto the latest main state, all of them or, on a conflict, none. */
const commit = (transaction: Transaction): Effect.Effect<void, StoreError.StoreError> =>
  transaction.steps.length === 0
    ? Effect.void
    : Effect.flatten(
        Ref.modify(transaction.main, (latest): readonly [Effect.Effect<void, StoreError.StoreError>, State] => {
          let state = latest
          for (const [index, step] of transaction.steps.entries()) {
            const exit = step(state)
            if (Exit.isFailure(exit)) {
              const error = new StoreError.StoreError({
                message: `the transaction conflicts with a concurrent write: its step ${index + 1} of ${transaction.steps.length} no longer applies; nothing was written`,
                cause: Cause.squash(exit.cause)
              })
              return [Effect.fail(error), latest]
            }
            state = exit.value[1]
          }
          return [Effect.void, state]
        })
      )

/** A nested run: on failure, the working copy and the log are put back as they were when it began. */
const savepoint = <A, E, R>(transaction: Transaction, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Ref.get(transaction.working), (saved) => {
    const mark = transaction.steps.length
    return Effect.onError(effect, () =>
      Effect.sync(() => {
        transaction.steps.length = mark
      }).pipe(Effect.andThen(Ref.set(transaction.working, saved)))
    )
  })

/**
 * `StoreTransaction.run` on the state `ref`: `effect` commits whole or not at all (see the top of
 * this module). A run inside a transaction on `ref` is a savepoint.
 */
export const transaction =
  (ref: StateRef) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError.StoreError, R> =>
    Effect.withFiber((fiber) => {
      const open = fiber.getRef(OpenTransactions)
      const current = open.get(ref)
      if (current !== undefined) return savepoint(current, effect)
      return Effect.gen(function* () {
        const begun: Transaction = { main: ref, working: yield* Ref.make(yield* Ref.get(ref)), steps: [] }
        const value = yield* Effect.provideService(effect, OpenTransactions, new Map(open).set(ref, begun))
        yield* commit(begun)
        return value
      })
    })
