/**
 * The simulated ledger: block heights per network, transfers into addresses, and payout
 * broadcasts, each confirmed at a set time (recorded + the chain's confirmation delay). Pure state
 * transitions; `SimulatedChain` keeps the state in a `Ref` and passes the clock's `now` in.
 */
import { type ChainGateway, type Money, Partner, Rail } from "@ratelock/core"
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

interface Broadcast {
  readonly blockNumber: number
  /** When its lookup stops answering `Pending`. */
  readonly confirmedAt: DateTime.Utc
  /** Why the chain rejected it; null when it was accepted. */
  readonly failure: ChainGateway.FailureReason | null
}

export interface State {
  /** Last block per `chain:environment`; 0 before the first. */
  readonly heads: Readonly<Record<string, number>>
  readonly transfers: ReadonlyArray<SimulatedTransfer>
  /** Rejected attempts per payout id: the next prepare uses this as its attempt number. */
  readonly attempts: Readonly<Record<string, number>>
  readonly broadcasts: Readonly<Record<string, Broadcast>>
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

/** Every transfer of the rail's token into `address` on the rail's network, confirmed or not. */
export const transfersInto = (
  state: State,
  rail: ChainGateway.Rail,
  address: string
): ReadonlyArray<SimulatedTransfer> =>
  state.transfers.filter(
    (t) =>
      t.rail.chain === rail.chain &&
      t.rail.environment === rail.environment &&
      t.rail.token === rail.token &&
      Rail.sameAddress(rail.chain, t.address, address)
  )

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

/** A broadcast transaction at `now`: `Pending` until its confirmation time, then `Confirmed` or `Failed`. */
export const lookup = (state: State, transactionHash: string, now: DateTime.Utc): ChainGateway.PayoutLookup => {
  const broadcast = state.broadcasts[transactionHash]
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

/** What a simulated payout persists between prepare and broadcast. */
const Prepared = Schema.fromJsonString(
  Schema.Struct({
    payoutId: Schema.String,
    attempt: Schema.Int,
    destination: Schema.String,
    amount: Schema.String
  })
)
export type Prepared = typeof Prepared.Type

export const encodePrepared: (prepared: Prepared) => string = Schema.encodeSync(Prepared)

export const decodePrepared = (persisted: string): Option.Option<Prepared> =>
  Schema.decodeUnknownOption(Prepared)(persisted)
