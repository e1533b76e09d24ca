/**
 * In-test fakes of the persistence ports: plain maps behind the port interfaces, with the same
 * guarantees the real adapters give (unique quote acceptance, version-checked commits, a transfer
 * counted once, one payout per contract). Enough to drive the lifecycle programs in tests.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import {
  ApiError,
  ContractRepo,
  Contract,
  type Cursor,
  EventRepo,
  IdempotencyRepo,
  type Ledger,
  PayoutRepo,
  type Partner,
  Quote,
  QuoteRepo,
  StoreError
} from "@ratelock/core"

type Scope = Partner.PartnerScope

const inScope = (scope: Scope, row: { partnerId: string; environment: string }) =>
  row.partnerId === scope.partnerId && row.environment === scope.environment

/** Newest first by (created_at, id), strictly after `after`. */
const newestFirst = <A extends { readonly id: string; readonly createdAt: DateTime.Utc }>(
  rows: ReadonlyArray<A>,
  after: Cursor.Position | undefined,
  limit: number
) => {
  const key = (r: A) => `${new Date(r.createdAt.epochMilliseconds).toISOString()}|${r.id}`
  const sorted = [...rows].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0))
  const from = after === undefined ? sorted : sorted.filter((r) => key(r) < `${after.createdAt}|${after.id}`)
  return from.slice(0, limit)
}

export class MemoryStore {
  readonly quotes = new Map<string, Quote.QuoteRecord>()
  readonly contracts = new Map<string, Contract.ContractRecord>()
  readonly incoming = new Map<string, EventRepo.IncomingEvent>()
  readonly outgoing = new Map<string, EventRepo.OutgoingEvent>()
  readonly payouts = new Map<string, PayoutRepo.PayoutRecord>()
  readonly transfers = new Set<string>()
  readonly ledger: Array<Ledger.LedgerEntry> = []
  readonly cursors = new Map<string, string>()

  /** Contracts in `statuses`, oldest first by `(created_at, id)`, at most `limit` after `after`. */
  private byStatus(statuses: ReadonlyArray<Contract.ContractStatus>, limit: number, after?: Cursor.Position) {
    return newestFirst(
      [...this.contracts.values()].filter((c) => statuses.includes(c.status)),
      undefined,
      Number.MAX_SAFE_INTEGER
    )
      .reverse()
      .filter(
        (c) => after === undefined || `${DateTime.formatIso(c.createdAt)}|${c.id}` > `${after.createdAt}|${after.id}`
      )
      .slice(0, limit)
  }
  /** `chain|transactionHash|index` → the transfer that did not fund its contract. */
  readonly unmatched = new Map<string, ContractRepo.UnmatchedTransfer>()
  readonly fundingIndexes = new Map<string, number>()
  readonly keys = new Map<
    string,
    { fingerprint: string; response: IdempotencyRepo.StoredResponse | null; expiresAt: number }
  >()

  readonly quoteRepo = QuoteRepo.QuoteRepo.of({
    insert: (quote) => Effect.sync(() => void this.quotes.set(quote.id, quote)),
    find: (scope, id) =>
      Effect.sync(() => Option.fromNullishOr(this.quotes.get(id)).pipe(Option.filter((q) => inScope(scope, q)))),
    list: (scope, filter) =>
      Effect.sync(() =>
        newestFirst(
          [...this.quotes.values()].filter(
            (q) =>
              inScope(scope, q) &&
              (filter.customerReferenceId === undefined || q.customerReferenceId === filter.customerReferenceId) &&
              (filter.status === undefined || filter.status === Quote.visibleStatus(q, filter.now))
          ),
          filter.after,
          filter.limit
        )
      )
  })

  readonly contractRepo = ContractRepo.ContractRepo.of({
    insert: (contract) =>
      Effect.suspend((): Effect.Effect<void, ApiError.QuoteAlreadyAccepted | StoreError.StoreError> => {
        const quote = this.quotes.get(contract.quoteId)
        if (quote === undefined) return Effect.fail(new StoreError.StoreError({ message: "no such quote" }))
        if (quote.acceptedAt !== null) {
          return Effect.fail(new ApiError.QuoteAlreadyAccepted({ message: `quote ${quote.id} already has a contract` }))
        }
        this.quotes.set(quote.id, { ...quote, acceptedAt: contract.createdAt })
        this.contracts.set(contract.id, contract)
        return Effect.void
      }),
    find: (scope, id) =>
      Effect.sync(() => Option.fromNullishOr(this.contracts.get(id)).pipe(Option.filter((c) => inScope(scope, c)))),
    findById: (id) => Effect.sync(() => Option.fromNullishOr(this.contracts.get(id))),
    findByQuote: (scope, quoteId) =>
      Effect.sync(() =>
        Option.fromNullishOr([...this.contracts.values()].find((c) => c.quoteId === quoteId && inScope(scope, c)))
      ),
    listByCustomer: (scope, customer, filter) =>
      Effect.sync(() =>
        newestFirst(
          [...this.contracts.values()].filter(
            (c) =>
              inScope(scope, c) &&
              c.customerReferenceId === customer &&
              (filter.status === undefined || c.status === filter.status)
          ),
          filter.after,
          filter.limit
        )
      ),
    commit: (change) =>
      Effect.suspend((): Effect.Effect<void, StoreError.StaleContract> => {
        const stored = this.contracts.get(change.contract.id)
        const stale = new StoreError.StaleContract({ contractId: change.contract.id })
        if (stored === undefined || ContractRepo.version(stored) !== change.expectedVersion) return Effect.fail(stale)
        const transferKey =
          change.transfer && `${change.transfer.chain}|${change.transfer.transactionHash}|${change.transfer.index}`
        if (transferKey && this.transfers.has(transferKey)) return Effect.fail(stale)
        const incoming = change.incoming
        if (
          incoming &&
          [...this.incoming.values()].some((e) => inScope(incoming, e) && e.idempotencyKey === incoming.idempotencyKey)
        ) {
          return Effect.fail(stale)
        }
        this.contracts.set(change.contract.id, change.contract)
        if (transferKey) this.transfers.add(transferKey)
        if (incoming) this.incoming.set(incoming.id, incoming)
        if (change.outgoing) this.outgoing.set(change.outgoing.id, change.outgoing)
        this.ledger.push(...change.ledger)
        if (change.fundingCursor !== undefined) this.cursors.set(change.contract.id, change.fundingCursor)
        return Effect.void
      }),
    listByStatus: (statuses, limit, after) => Effect.sync(() => this.byStatus(statuses, limit, after)),
    listPayoutWork: (limit, after) =>
      Effect.sync(() =>
        this.byStatus(["exercised"], Number.MAX_SAFE_INTEGER, after)
          .filter((c) => [...this.payouts.values()].every((p) => p.contractId !== c.id || p.status === "confirmed"))
          .slice(0, limit)
      ),
    listLateFundingWatches: (since, limit, after) =>
      Effect.sync(() =>
        this.byStatus(
          Contract.ContractStatus.literals.filter((s) => !ContractRepo.awaitingFunds.includes(s)),
          Number.MAX_SAFE_INTEGER,
          after
        )
          .filter((c) => c.updatedAt.epochMilliseconds >= since.epochMilliseconds)
          .slice(0, limit)
          .map((c) => ContractRepo.fundingWatch(c, this.cursors.get(c.id) ?? null))
      ),
    listFundingWatches: (limit, after) =>
      Effect.sync(() =>
        this.byStatus(ContractRepo.awaitingFunds, limit, after).map((c) =>
          ContractRepo.fundingWatch(c, this.cursors.get(c.id) ?? null)
        )
      ),
    claimDueForExpiry: ({ now, limit }) =>
      Effect.sync(() =>
        [...this.contracts.values()]
          .filter((c) => c.status === "active" && c.windowEnd.epochMilliseconds < now.epochMilliseconds)
          .slice(0, limit)
      ),
    claimDueForFundingDeadline: ({ now, limit }) =>
      Effect.sync(() =>
        [...this.contracts.values()]
          .filter(
            (c) => Contract.isAwaitingFunds(c.status) && c.fundingDeadline.epochMilliseconds < now.epochMilliseconds
          )
          .slice(0, limit)
      ),
    allocateFundingIndex: ({ chain, environment }) =>
      Effect.sync(() => {
        const key = `${chain}|${environment}`
        const next = this.fundingIndexes.get(key) ?? 0
        this.fundingIndexes.set(key, next + 1)
        return next
      }),
    saveFundingCursor: (id, cursor) => Effect.sync(() => void this.cursors.set(id, cursor)),
    fundingCursor: (id) => Effect.sync(() => Option.fromNullishOr(this.cursors.get(id))),
    ledgerEntries: (id) => Effect.sync(() => this.ledger.filter((e) => e.contractId === id)),
    recordUnmatchedTransfer: (transfer) =>
      Effect.suspend((): Effect.Effect<void, StoreError.StoreError> => {
        if (!this.contracts.has(transfer.contractId)) {
          return Effect.fail(new StoreError.StoreError({ message: "no such contract" }))
        }
        const key = `${transfer.chain}|${transfer.transactionHash}|${transfer.index}`
        // first record wins; a counted transfer is funding, not unmatched
        if (!this.unmatched.has(key) && !this.transfers.has(key)) this.unmatched.set(key, transfer)
        return Effect.void
      }),
    unmatchedTransfers: ({ contractId, limit }) =>
      Effect.sync(() =>
        [...this.unmatched.values()]
          .filter((t) => contractId === undefined || t.contractId === contractId)
          .sort(
            (a, b) =>
              a.observedAt.epochMilliseconds - b.observedAt.epochMilliseconds ||
              a.blockNumber - b.blockNumber ||
              a.index - b.index ||
              (a.transactionHash < b.transactionHash ? -1 : a.transactionHash > b.transactionHash ? 1 : 0)
          )
          .slice(0, limit)
      )
  })

  readonly eventRepo = EventRepo.EventRepo.of({
    findIncoming: (scope, key) =>
      Effect.sync(() =>
        Option.fromNullishOr([...this.incoming.values()].find((e) => inScope(scope, e) && e.idempotencyKey === key))
      ),
    insertIncoming: (event) => Effect.sync(() => void this.incoming.set(event.id, event)),
    updateIncoming: (event) => Effect.sync(() => void this.incoming.set(event.id, event)),
    list: (scope, filter) =>
      Effect.sync(() => {
        const views: Array<EventRepo.EventView & { id: string; createdAt: DateTime.Utc }> = []
        if (filter.direction !== "outgoing") {
          for (const e of this.incoming.values())
            views.push({ _tag: "incoming", event: e, id: e.id, createdAt: e.createdAt })
        }
        if (filter.direction !== "incoming") {
          for (const e of this.outgoing.values())
            views.push({ _tag: "outgoing", event: e, id: e.id, createdAt: e.createdAt })
        }
        return newestFirst(
          views.filter(
            (v) =>
              inScope(scope, v.event) && (filter.contractId === undefined || v.event.contractId === filter.contractId)
          ),
          filter.after,
          filter.limit
        )
      }),
    claimOutgoing: ({ now, limit }) =>
      Effect.sync(() => {
        const oldestPerContract = new Map<string, EventRepo.OutgoingEvent>()
        const pending = [...this.outgoing.values()]
          .filter((e) => e.status === "pending" || e.status === "retrying")
          .sort((a, b) => a.sequence - b.sequence)
        for (const e of pending) if (!oldestPerContract.has(e.contractId)) oldestPerContract.set(e.contractId, e)
        return [...oldestPerContract.values()]
          .filter((e) => e.nextAttemptAt.epochMilliseconds <= now.epochMilliseconds)
          .slice(0, limit)
      }),
    updateOutgoing: (events) =>
      Effect.sync(() => {
        for (const event of events) this.outgoing.set(event.id, event)
      }),
    listPayoutEvents: (scope, filter) =>
      Effect.sync(() =>
        newestFirst(
          [...this.outgoing.values()].filter(
            (e) =>
              inScope(scope, e) &&
              (e.eventType === "payout_settled" || e.eventType === "payout_failed") &&
              (filter.since === undefined || e.createdAt.epochMilliseconds >= filter.since.epochMilliseconds)
          ),
          undefined,
          Number.MAX_SAFE_INTEGER
        )
          .reverse()
          .slice(0, filter.limit)
      ),
    findOutgoing: (scope, id) =>
      Effect.sync(() => Option.fromNullishOr(this.outgoing.get(id)).pipe(Option.filter((e) => inScope(scope, e))))
  })

  readonly payoutRepo = PayoutRepo.PayoutRepo.of({
    insert: (payout) =>
      Effect.suspend((): Effect.Effect<void, PayoutRepo.PayoutExists> => {
        if ([...this.payouts.values()].some((p) => p.contractId === payout.contractId)) {
          return Effect.fail(new PayoutRepo.PayoutExists({ contractId: payout.contractId }))
        }
        this.payouts.set(payout.id, payout)
        return Effect.void
      }),
    findByContract: (contractId) =>
      Effect.sync(() => Option.fromNullishOr([...this.payouts.values()].find((p) => p.contractId === contractId))),
    findByContracts: (contractIds) =>
      Effect.sync(() => [...this.payouts.values()].filter((p) => contractIds.includes(p.contractId))),
    update: (payout, expected) =>
      Effect.sync(() => {
        const stored = this.payouts.get(payout.id)
        const current =
          stored !== undefined &&
          stored.status === expected.status &&
          stored.updatedAt.epochMilliseconds === expected.updatedAt.epochMilliseconds
        if (current) this.payouts.set(payout.id, payout)
        return current
      }),
    claimDue: ({ now, limit }) =>
      Effect.sync(() =>
        [...this.payouts.values()]
          .filter(
            (p) =>
              (p.status === "pending" || p.status === "prepared") &&
              p.nextAttemptAt.epochMilliseconds <= now.epochMilliseconds
          )
          .slice(0, limit)
      )
  })

  readonly idempotencyRepo = IdempotencyRepo.IdempotencyRepo.of({
    claim: (scope, key, fingerprint, now, expiresAt) =>
      Effect.sync((): IdempotencyRepo.Claim => {
        const id = `${scope.partnerId}|${scope.environment}|${key}`
        const held = this.keys.get(id)
        if (held !== undefined && held.expiresAt > now.epochMilliseconds) {
          return held.response === null
            ? { _tag: "InFlight", fingerprint: held.fingerprint }
            : { _tag: "Completed", fingerprint: held.fingerprint, response: held.response }
        }
        this.keys.set(id, { fingerprint, response: null, expiresAt: expiresAt.epochMilliseconds })
        return { _tag: "Claimed" }
      }),
    complete: (scope, key, response, keepUntil) =>
      Effect.sync(() => {
        const id = `${scope.partnerId}|${scope.environment}|${key}`
        const held = this.keys.get(id)
        if (held) this.keys.set(id, { ...held, response, expiresAt: keepUntil.epochMilliseconds })
      }),
    release: (scope, key) => Effect.sync(() => void this.keys.delete(`${scope.partnerId}|${scope.environment}|${key}`))
  })

  layer() {
    return Layer.mergeAll(
      Layer.succeed(QuoteRepo.QuoteRepo, this.quoteRepo),
      Layer.succeed(ContractRepo.ContractRepo, this.contractRepo),
      Layer.succeed(EventRepo.EventRepo, this.eventRepo),
      Layer.succeed(PayoutRepo.PayoutRepo, this.payoutRepo),
      Layer.succeed(IdempotencyRepo.IdempotencyRepo, this.idempotencyRepo)
    )
  }
}
