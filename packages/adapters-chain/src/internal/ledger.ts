/**
 * The simulated ledger: block heights per network, transfers into addresses, and payout
 * broadcasts. Pure state transitions; `SimulatedChain` keeps the state in a `Ref`.
 */
import type { ChainGateway, Money } from "@ratelock/core"
import { type DateTime, type Option, Schema } from "effect"
import { sameAddress } from "./encoding.ts"

/** A transfer the simulated chain recorded: confirmed at once (index 0, one transfer per transaction). */
export interface SimulatedTransfer extends ChainGateway.ConfirmedTransfer {
  readonly rail: ChainGateway.Rail
  readonly address: string
}

interface Broadcast {
  readonly blockNumber: number
  readonly confirmedAt: DateTime.Utc
  /** Why the chain rejected it; null when it was accepted. */
  readonly failure: string | null
}

export interface State {
  /** Last block per `chain:environment`; 0 before the first. */
  readonly heads: Readonly<Record<string, number>>
  readonly transfers: ReadonlyArray<SimulatedTransfer>
  /** Rejected attempts per payout id: the next prepare uses this as its attempt number. */
  readonly attempts: Readonly<Record<string, number>>
  readonly broadcasts: Readonly<Record<string, Broadcast>>
  readonly failNext: boolean
}

export const empty: State = { heads: {}, transfers: [], attempts: {}, broadcasts: {}, failNext: false }

const network = (rail: ChainGateway.Rail) => `${rail.chain}:${rail.environment}`

export const head = (state: State, rail: ChainGateway.Rail): number => state.heads[network(rail)] ?? 0

const nextBlock = (state: State, rail: ChainGateway.Rail) => {
  const blockNumber = head(state, rail) + 1
  return { blockNumber, heads: { ...state.heads, [network(rail)]: blockNumber } }
}

export const recordTransfer = (
  state: State,
  input: {
    readonly rail: ChainGateway.Rail
    readonly address: string
    readonly amount: Money.Decimal
    readonly transactionHash: string
    readonly now: DateTime.Utc
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
    confirmedAt: input.now
  }
  return [transfer, { ...state, heads, transfers: [...state.transfers, transfer] }]
}

/** Transfers of the rail's token into `address` on the rail's network, in blocks after `after`. */
export const transfersTo = (
  state: State,
  rail: ChainGateway.Rail,
  address: string,
  after: number
): ReadonlyArray<SimulatedTransfer> =>
  state.transfers.filter(
    (t) =>
      t.rail.chain === rail.chain &&
      t.rail.environment === rail.environment &&
      t.rail.token === rail.token &&
      t.blockNumber > after &&
      sameAddress(rail.chain, t.address, address)
  )

export const attempt = (state: State, payoutId: string): number => state.attempts[payoutId] ?? 0

/** Records a broadcast once: a repeated broadcast of the same transaction changes nothing. */
export const recordBroadcast = (
  state: State,
  rail: ChainGateway.Rail,
  transactionHash: string,
  payoutId: string,
  now: DateTime.Utc
): State => {
  if (state.broadcasts[transactionHash] !== undefined) return state
  const { blockNumber, heads } = nextBlock(state, rail)
  const failure = state.failNext ? "rejected by the simulated chain" : null
  return {
    ...state,
    heads,
    broadcasts: { ...state.broadcasts, [transactionHash]: { blockNumber, confirmedAt: now, failure } },
    attempts: failure === null ? state.attempts : { ...state.attempts, [payoutId]: attempt(state, payoutId) + 1 },
    failNext: false
  }
}

export const lookup = (state: State, transactionHash: string): ChainGateway.PayoutLookup => {
  const broadcast = state.broadcasts[transactionHash]
  if (broadcast === undefined) return { _tag: "Unknown" }
  if (broadcast.failure !== null) return { _tag: "Failed", reason: broadcast.failure }
  return { _tag: "Confirmed", blockNumber: broadcast.blockNumber, confirmedAt: broadcast.confirmedAt }
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
