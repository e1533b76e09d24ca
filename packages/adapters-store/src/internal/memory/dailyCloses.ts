/**
 * The daily closes in memory: one per id and at most one per environment and scheduled cut (as `daily_closes`'
 * primary key and `daily_closes_cut`), each with its locks by contract id, one per contract (the locks' primary
 * key). `insert` is the only write: nothing here replaces or removes a close. The one lease on closing; and the
 * reads of the books a close takes, from the memory ledgers, as `PgDailyCloseRepo`'s statements read them.
 */
import { type DailyClose, DailyCloseRepo, Money, type Partner, StoreError } from "@ratelock/core"
import { BigDecimal, type DateTime, Effect, Exit, HashMap, Option } from "effect"
import { singleLease } from "./singleLease.ts"
import { atomically, done, read, type State, type StateRef } from "./state.ts"
import { allEntries } from "./treasury.ts"

type Close = DailyClose.DailyClose
type ListQuery = Parameters<DailyCloseRepo.DailyCloseRepoShape["list"]>[0]
type FlowQuery = Parameters<DailyCloseRepo.DailyCloseRepoShape["contractFlows"]>[0]
type BalanceQuery = Parameters<DailyCloseRepo.DailyCloseRepoShape["trialBalance"]>[0]

const cutKey = (environment: Partner.Environment, cut: DateTime.Utc): string =>
  `${environment}|${cut.epochMilliseconds}`

/** Ids and names compare as their code units, which for the ASCII ids and literals here is `COLLATE "C"`'s order. */
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** By `closed_at`, then id. */
const compareCloses = (a: Close, b: Close): number =>
  a.closed_at.epochMilliseconds - b.closed_at.epochMilliseconds || compareText(a.id, b.id)

const summaryOf = ({ snapshot: _, locks: __, ...summary }: Close): DailyClose.CloseSummary => summary

const refused = (message: string) => Exit.fail(new StoreError.StoreError({ message }))

const insertStep =
  (close: Close) =>
  (state: State): Exit.Exit<readonly [boolean, State], StoreError.StoreError> => {
    // in the order SQL meets them: the cut (`ON CONFLICT … DO NOTHING`), the id, then the locks
    const cut = close.scheduled_for === null ? undefined : cutKey(close.environment, close.scheduled_for)
    if (cut !== undefined && HashMap.has(state.closeByCut, cut)) return done(false, state)
    if (HashMap.has(state.dailyCloses, close.id)) return refused(`daily close ${close.id} already exists`)
    const locks = [...close.locks].sort((a, b) => compareText(a.contract_id, b.contract_id))
    const twice = locks.find((lock, n) => n > 0 && lock.contract_id === locks[n - 1]!.contract_id)
    if (twice !== undefined) return refused(`daily close ${close.id} locks contract ${twice.contract_id} twice`)
    return done(true, {
      ...state,
      dailyCloses: HashMap.set(state.dailyCloses, close.id, { ...close, locks }),
      closeByCut: cut === undefined ? state.closeByCut : HashMap.set(state.closeByCut, cut, close.id)
    })
  }

/** What an entry of any of the three ledgers has that the trial balance reads. */
interface Booked {
  readonly environment: Partner.Environment
  readonly account: string
  readonly currency: string
  readonly amount: Money.Decimal
  readonly at: DateTime.Utc
}

const trialBalanceOf = (state: State, query: BalanceQuery): Array<DailyClose.LedgerBalance> => {
  const sums = new Map<string, DailyClose.LedgerBalance>()
  const add = (ledger: DailyClose.LedgerBalance["ledger"], e: Booked) => {
    if (e.environment !== query.environment || e.at.epochMilliseconds > query.until.epochMilliseconds) return
    const key = `${ledger}|${e.account}|${e.currency}`
    const held = sums.get(key)?.balance
    // SQL's `sum` keeps the greatest scale of what it summed, through zero too (`BigDecimal.sum` drops it there)
    const balance =
      held === undefined ? e.amount : BigDecimal.scale(Money.sum(held, e.amount), Math.max(held.scale, e.amount.scale))
    sums.set(key, { ledger, account: e.account, currency: e.currency, balance })
  }
  for (const booked of HashMap.values(state.ledger)) for (const { entry } of booked) add("contracts", entry)
  for (const entry of allEntries(state)) add("treasury", entry)
  for (const entries of HashMap.values(state.hedgeLedger)) for (const entry of entries) add("hedges", entry)
  return [...sums.values()]
    .filter((b) => !Money.isZero(b.balance))
    .sort(
      (a, b) =>
        compareText(a.ledger, b.ledger) || compareText(a.account, b.account) || compareText(a.currency, b.currency)
    )
}

const contractFlowsOf = (state: State, query: FlowQuery): Array<DailyCloseRepo.ContractFlow> => {
  const after = query.after?.epochMilliseconds ?? Number.NEGATIVE_INFINITY
  const until = query.until.epochMilliseconds
  const flows: Array<{ readonly seq: number; readonly flow: DailyCloseRepo.ContractFlow }> = []
  for (const [contractId, booked] of state.ledger) {
    const contract = HashMap.get(state.contracts, contractId)
    if (Option.isNone(contract)) continue
    for (const { seq, entry } of booked) {
      const at = entry.at.epochMilliseconds
      if (entry.environment === query.environment && after < at && at <= until) {
        flows.push({ seq, flow: { ...entry, direction: contract.value.row.direction } })
      }
    }
  }
  return flows.sort((a, b) => a.seq - b.seq).map(({ flow }) => flow)
}

export const makeDailyCloseRepo = (ref: StateRef): DailyCloseRepo.DailyCloseRepoShape => {
  const insert = Effect.fn("MemoryStore.dailyCloses.insert")(function* (close: Close) {
    return yield* atomically(ref, insertStep(close))
  })

  const find = Effect.fn("MemoryStore.dailyCloses.find")(function* (id: string) {
    return yield* read(ref, (state) => HashMap.get(state.dailyCloses, id))
  })

  const closesOf = (state: State, environment: Partner.Environment) =>
    [...HashMap.values(state.dailyCloses)].filter((c) => c.environment === environment).sort(compareCloses)

  const latest = Effect.fn("MemoryStore.dailyCloses.latest")(function* (environment: Partner.Environment) {
    return yield* read(ref, (state) => Option.fromUndefinedOr(closesOf(state, environment).at(-1)))
  })

  const hasScheduled = Effect.fn("MemoryStore.dailyCloses.hasScheduled")(function* (
    environment: Partner.Environment,
    cut: DateTime.Utc
  ) {
    return yield* read(ref, (state) => HashMap.has(state.closeByCut, cutKey(environment, cut)))
  })

  const list = Effect.fn("MemoryStore.dailyCloses.list")(function* (query: ListQuery) {
    const from = query.from?.epochMilliseconds ?? Number.NEGATIVE_INFINITY
    const to = query.to?.epochMilliseconds ?? Number.POSITIVE_INFINITY
    return yield* read(ref, (state) =>
      closesOf(state, query.environment)
        .filter((c) => from <= c.closed_at.epochMilliseconds && c.closed_at.epochMilliseconds <= to)
        .map(summaryOf)
    )
  })

  const { claim, release } = singleLease(ref, "closeLease", "MemoryStore.dailyCloses")

  const contractFlows = Effect.fn("MemoryStore.dailyCloses.contractFlows")(function* (query: FlowQuery) {
    return yield* read(ref, (state) => contractFlowsOf(state, query))
  })

  const trialBalance = Effect.fn("MemoryStore.dailyCloses.trialBalance")(function* (query: BalanceQuery) {
    return yield* read(ref, (state) => trialBalanceOf(state, query))
  })

  return DailyCloseRepo.DailyCloseRepo.of({
    insert,
    find,
    latest,
    hasScheduled,
    list,
    claim,
    release,
    contractFlows,
    trialBalance
  })
}
