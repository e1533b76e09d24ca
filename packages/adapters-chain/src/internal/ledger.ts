/**
 * The simulated ledger: block heights per network, transfers into addresses, payout broadcasts
 * and sweeps, each confirmed at a set time (recorded + the chain's confirmation delay). Pure state
 * transitions; `SimulatedChain` keeps the state in a `Ref` and passes the clock's `now` in. The
 * rules both simulated chains share (what a balance counts, when a sweep is short, what a lookup
 * answers) are here too.
 */
import { type ChainGateway, Money, Partner, Rail } from "@ratelock/core"
import { DateTime, type Option, Schema } from "effect"

/** A transfer the simulated chain recorded (index 0: one transfer per transaction), confirmed at `confirmedAt`. */
export const SimulatedTransfer = Schema.Struct({
  rail: Schema.Struct({ chain: Rail.Chain, environment: Partner.Environment, token: Rail.FundsCurrency }),
  address: Schema.String,
  transactionHash: Schema.String,
  index: Schema.Int,
  blockNumber: Schema.Int,
  amount: Schema.BigDecimal,
  confirmedAt: Schema.DateTimeUtc
}).annotate({ identifier: "SimulatedTransfer" })
export type SimulatedTransfer = typeof SimulatedTransfer.Type

/** A recorded broadcast (a payout's or a sweep's), as a lookup reads it. */
export interface Broadcast {
  readonly blockNumber: number
  /** When its lookup stops answering `Pending`. */
  readonly confirmedAt: DateTime.Utc
  /** Why the chain rejected it; null when it was accepted. */
  readonly failure: ChainGateway.FailureReason | null
}

/** A sweep's broadcast: `amount` of the rail's token from `source` to `destination`, unless it failed. */
interface Sweep extends Broadcast {
  readonly rail: ChainGateway.Rail
  readonly sweepId: string
  readonly source: string
  readonly destination: string
  readonly amount: Money.Decimal
}

export interface State {
  /** Last block per `chain:environment`; 0 before the first. */
  readonly heads: Readonly<Record<string, number>>
  readonly transfers: ReadonlyArray<SimulatedTransfer>
  /** Rejected attempts per payout id: the next prepare uses this as its attempt number. */
  readonly attempts: Readonly<Record<string, number>>
  /** Payouts' and sweeps' broadcasts by transaction hash. */
  readonly broadcasts: Readonly<Record<string, Broadcast>>
  /** Every sweep broadcast, failed ones included (they count its attempts), oldest first. */
  readonly sweeps: ReadonlyArray<Sweep>
  /** The next broadcast of any payout is rejected. */
  readonly failNext: boolean
  /** Payout ids whose next broadcast is rejected. */
  readonly failing: ReadonlyArray<string>
  /** Contracts whose next payout is rejected, until their payout id is known. */
  readonly armedContracts: ReadonlyArray<string>
}

export const empty: State = {
  heads: {},
  transfers: [],
  attempts: {},
  broadcasts: {},
  sweeps: [],
  failNext: false,
  failing: [],
  armedContracts: []
}

const network = (rail: ChainGateway.Rail) => `${rail.chain}:${rail.environment}`

export const head = (state: State, rail: ChainGateway.Rail): number => state.heads[network(rail)] ?? 0

const nextBlock = (state: State, rail: ChainGateway.Rail) => {
  const blockNumber = head(state, rail) + 1
  return { blockNumber, heads: { ...state.heads, [network(rail)]: blockNumber } }
}

const isConfirmed = (confirmedAt: DateTime.Utc, now: DateTime.Utc) => DateTime.isLessThanOrEqualTo(confirmedAt, now)

export const recordTransfer = (
  state: State,
  input: {
    readonly rail: ChainGateway.Rail
    readonly address: string
    readonly amount: Money.Decimal
    readonly transactionHash: string
    readonly confirmedAt: DateTime.Utc
  }
): readonly [SimulatedTransfer, State] => {
  const { blockNumber, heads } = nextBlock(state, input.rail)
  const transfer: SimulatedTransfer = {
    rail: input.rail,
    address: input.address,
    transactionHash: input.transactionHash,
    index: 0,
    blockNumber,
    amount: input.amount,
    confirmedAt: input.confirmedAt
  }
  return [transfer, { ...state, heads, transfers: [...state.transfers, transfer] }]
}

const sameRail = (a: ChainGateway.Rail, b: ChainGateway.Rail) =>
  a.chain === b.chain && a.environment === b.environment && a.token === b.token

/** Every transfer of the rail's token into `address` on the rail's network, confirmed or not. */
export const transfersInto = (
  state: State,
  rail: ChainGateway.Rail,
  address: string
): ReadonlyArray<SimulatedTransfer> =>
  state.transfers.filter((t) => sameRail(t.rail, rail) && Rail.sameAddress(rail.chain, t.address, address))

/**
 * What an observation from block `after` sees at `now`, given the transfers into the address after
 * that block (oldest first): the confirmed ones, and the next cursor. The cursor is the block of
 * the last transfer reported (so it moves only when this address received something: a worker
 * has nothing to save otherwise), and it stops before the first transfer still confirming, so that
 * transfer is seen by a later observation, once confirmed.
 */
export const observed = (
  later: ReadonlyArray<SimulatedTransfer>,
  after: number,
  now: DateTime.Utc
): ChainGateway.FundingObservation => {
  const confirming = later.findIndex((t) => !isConfirmed(t.confirmedAt, now))
  const transfers = confirming === -1 ? later : later.slice(0, confirming)
  const cursor = Math.max(after, transfers.at(-1)?.blockNumber ?? after)
  return { transfers, cursor: String(cursor) }
}

export const observe = (
  state: State,
  rail: ChainGateway.Rail,
  address: string,
  after: number,
  now: DateTime.Utc
): ChainGateway.FundingObservation =>
  observed(
    transfersInto(state, rail, address).filter((t) => t.blockNumber > after),
    after,
    now
  )

export const attempt = (state: State, payoutId: string): number => state.attempts[payoutId] ?? 0

/** The payout's next broadcast is rejected. */
export const failPayout = (state: State, payoutId: string): State =>
  state.failing.includes(payoutId) ? state : { ...state, failing: [...state.failing, payoutId] }

/** The contract's next payout is rejected once its payout id is known (`resolveArmed`). */
export const armContract = (state: State, contractId: string): State =>
  state.armedContracts.includes(contractId)
    ? state
    : { ...state, armedContracts: [...state.armedContracts, contractId] }

/** An armed contract's payout id became known: its payout's next broadcast is rejected. */
export const resolveArmed = (state: State, contractId: string, payoutId: string): State =>
  failPayout({ ...state, armedContracts: state.armedContracts.filter((c) => c !== contractId) }, payoutId)

/** Records a broadcast once: a repeated broadcast of the same transaction changes nothing. */
export const recordBroadcast = (
  state: State,
  input: {
    readonly rail: ChainGateway.Rail
    readonly transactionHash: string
    readonly payoutId: string
    readonly confirmedAt: DateTime.Utc
  }
): State => {
  if (state.broadcasts[input.transactionHash] !== undefined) return state
  const { blockNumber, heads } = nextBlock(state, input.rail)
  const rejected = state.failNext || state.failing.includes(input.payoutId)
  const failure = rejected ? "rejected" : null
  const broadcast: Broadcast = { blockNumber, confirmedAt: input.confirmedAt, failure }
  return {
    ...state,
    heads,
    broadcasts: { ...state.broadcasts, [input.transactionHash]: broadcast },
    attempts: rejected ? { ...state.attempts, [input.payoutId]: attempt(state, input.payoutId) + 1 } : state.attempts,
    failNext: false,
    failing: state.failing.filter((id) => id !== input.payoutId)
  }
}

/**
 * A transaction at `now`, given its broadcast if one was recorded: `Pending` until its
 * confirmation time, then `Confirmed` or `Failed`. A confirmed sweep answers as a payout does,
 * with no `native`: the simulated chain charges no fees.
 */
export const lookupOf = (
  transactionHash: string,
  broadcast: Broadcast | undefined,
  now: DateTime.Utc
): ChainGateway.PayoutLookup => {
  if (broadcast === undefined) return { _tag: "Unknown" }
  if (!isConfirmed(broadcast.confirmedAt, now)) return { _tag: "Pending" }
  if (broadcast.failure !== null) return { _tag: "Failed", reason: broadcast.failure }
  return {
    _tag: "Confirmed",
    blockNumber: broadcast.blockNumber,
    confirmedAt: broadcast.confirmedAt,
    transactionHash,
    cancelled: false
  }
}

export const lookup = (state: State, transactionHash: string, now: DateTime.Utc): ChainGateway.PayoutLookup =>
  lookupOf(transactionHash, state.broadcasts[transactionHash], now)

/**
 * Why a sweep of `amount` from an address holding `spendable` fails when it is broadcast:
 * `insufficient_funds` when it holds less (another sweep took the funds first), null otherwise.
 */
export const sweepFailure = (spendable: Money.Decimal, amount: Money.Decimal): ChainGateway.FailureReason | null =>
  Money.lessThan(spendable, amount) ? "insufficient_funds" : null

/**
 * What `address` holds of the rail's token: the transfers into it plus the sweeps into it, less
 * the sweeps out of it (failed sweeps move nothing), of those `counted` by their confirmation
 * time. Payouts are paid from no wallet here, so they count nowhere.
 */
const holding = (
  state: State,
  rail: ChainGateway.Rail,
  address: string,
  counted: (confirmedAt: DateTime.Utc) => boolean
): Money.Decimal => {
  const at = (other: string) => Rail.sameAddress(rail.chain, other, address)
  let held = Money.zero
  for (const t of transfersInto(state, rail, address)) if (counted(t.confirmedAt)) held = Money.sum(held, t.amount)
  for (const s of state.sweeps) {
    if (s.failure !== null || !sameRail(s.rail, rail) || !counted(s.confirmedAt)) continue
    if (at(s.destination)) held = Money.sum(held, s.amount)
    if (at(s.source)) held = Money.subtract(held, s.amount)
  }
  return held
}

/** The confirmed balance at `now`: what a deep enough block shows. */
export const balance = (state: State, rail: ChainGateway.Rail, address: string, now: DateTime.Utc): Money.Decimal =>
  holding(state, rail, address, (confirmedAt) => isConfirmed(confirmedAt, now))

/** What a sweep broadcast now may move: everything recorded, confirmed or not, as the chain's latest block. */
export const spendable = (state: State, rail: ChainGateway.Rail, address: string): Money.Decimal =>
  holding(state, rail, address, () => true)

/** A sweep's rejected broadcasts: the next draft signs this attempt. */
export const sweepAttempt = (state: State, sweepId: string): number =>
  state.sweeps.filter((s) => s.sweepId === sweepId && s.failure !== null).length

/**
 * Records a sweep's broadcast once, in a new block: failed with `insufficient_funds` when its source
 * cannot cover it then, so it moves nothing. A repeat of the same transaction changes nothing.
 */
export const recordSweep = (
  state: State,
  input: {
    readonly rail: ChainGateway.Rail
    readonly transactionHash: string
    readonly sweepId: string
    readonly source: string
    readonly destination: string
    readonly amount: Money.Decimal
    readonly confirmedAt: DateTime.Utc
  }
): State => {
  if (state.broadcasts[input.transactionHash] !== undefined) return state
  const { blockNumber, heads } = nextBlock(state, input.rail)
  const failure = sweepFailure(spendable(state, input.rail, input.source), input.amount)
  const broadcast: Broadcast = { blockNumber, confirmedAt: input.confirmedAt, failure }
  const { rail, sweepId, source, destination, amount } = input
  return {
    ...state,
    heads,
    broadcasts: { ...state.broadcasts, [input.transactionHash]: broadcast },
    sweeps: [...state.sweeps, { rail, sweepId, source, destination, amount, ...broadcast }]
  }
}

const PreparedPayout = Schema.Struct({
  payoutId: Schema.String,
  attempt: Schema.Int,
  destination: Schema.String,
  amount: Schema.String
})

/** A sweep's job: its `kind` tells it from a payout's (whose shape predates sweeps and is kept as it was persisted). */
const PreparedSweep = Schema.Struct({
  kind: Schema.Literal("sweep"),
  sweepId: Schema.String,
  attempt: Schema.Int,
  source: Schema.String,
  destination: Schema.String,
  amount: Schema.String
})
export type PreparedSweep = typeof PreparedSweep.Type

/** What a simulated payout or sweep persists between prepare and broadcast. */
const Prepared = Schema.fromJsonString(Schema.Union([PreparedSweep, PreparedPayout]))
export type Prepared = typeof Prepared.Type

export const isSweep = (prepared: Prepared): prepared is PreparedSweep => "kind" in prepared

export const encodePrepared: (prepared: Prepared) => string = Schema.encodeSync(Prepared)

export const decodePrepared = (persisted: string): Option.Option<Prepared> =>
  Schema.decodeUnknownOption(Prepared)(persisted)
