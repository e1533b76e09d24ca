/**
 * A simulated chain for the sandbox and for tests: core's `ChainGateway` over an in-memory ledger.
 *
 * - Funding addresses are derived deterministically from `(environment, chain, index)` and are
 *   well-formed for their chain: EVM `0x` + 40 lowercase hex, Solana base58 of 32 bytes.
 * - `fund` records a transfer into an address in a new block, with a well-formed transaction hash
 *   (EVM `0x` + 64 hex, Solana a base58 64-byte signature); it is confirmed at once.
 * - Payouts: `preparePayout` yields the same transaction for a payout until the chain rejects one
 *   (then the next attempt gets a new hash), `broadcastPayout` records it (repeating is harmless),
 *   `lookupPayout` answers `Confirmed` once broadcast.
 *
 * Each `(chain, environment)` is its own network with its own block numbers.
 */
import { ChainGateway, Money, Rail as Rails } from "@ratelock/core"
import { Context, DateTime, Effect, Layer, Option, Ref } from "effect"
import { Digest } from "effect/crypto"
import * as Ledger from "./internal/ledger.ts"
import * as Encoding from "./internal/encoding.ts"

export type { SimulatedTransfer } from "./internal/ledger.ts"

export interface SimulatedChainShape extends ChainGateway.ChainGatewayShape {
  /** Records a transfer of the rail's token into `address` in a new block, confirmed at once. */
  readonly fund: (
    rail: ChainGateway.Rail,
    address: string,
    amount: Money.Decimal
  ) => Effect.Effect<Ledger.SimulatedTransfer, ChainGateway.ChainError>
  /** Every transfer recorded so far, oldest first. */
  readonly transfers: Effect.Effect<ReadonlyArray<Ledger.SimulatedTransfer>>
  /** The chain rejects the next payout broadcast: its lookup answers `Failed`. */
  readonly failNextPayout: Effect.Effect<void>
}

export class SimulatedChain extends Context.Service<SimulatedChain, SimulatedChainShape>()(
  "@ratelock/adapters-chain/SimulatedChain"
) {}

const chainError = (chain: string, reason: string, message: string) =>
  new ChainGateway.ChainError({ chain, reason, message })

const checkRail = (rail: ChainGateway.Rail) =>
  Rails.tokenDecimals(rail.token, rail.chain) === undefined
    ? Effect.fail(chainError(rail.chain, "unsupported_token", `${rail.token} is not issued on ${rail.chain}`))
    : Effect.void

const checkAddress = (rail: ChainGateway.Rail, address: string) =>
  Encoding.isAddress(rail.chain, address)
    ? Effect.void
    : Effect.fail(chainError(rail.chain, "invalid_address", `not a ${rail.chain} address: ${address}`))

const make = Effect.gen(function* () {
  const digest = yield* Digest.Digest
  const state = yield* Ref.make(Ledger.empty)
  const hash = (rail: ChainGateway.Rail, label: string) => Encoding.transactionHash(digest, rail, label)

  const fundingAddress = Effect.fn("SimulatedChain.fundingAddress")(function* (rail: ChainGateway.Rail, index: number) {
    if (!Number.isSafeInteger(index) || index < 0) {
      return yield* chainError(rail.chain, "invalid_index", `HD index must be a whole number ≥ 0, got ${index}`)
    }
    return yield* Encoding.address(digest, rail, index)
  })

  const fund = Effect.fn("SimulatedChain.fund")(function* (
    rail: ChainGateway.Rail,
    address: string,
    amount: Money.Decimal
  ) {
    yield* checkRail(rail)
    yield* checkAddress(rail, address)
    if (!Money.isPositive(amount)) {
      return yield* chainError(rail.chain, "invalid_amount", `a transfer must be positive, got ${Money.format(amount)}`)
    }
    const now = yield* DateTime.now
    const sequence = (yield* Ref.get(state)).transfers.length
    const transactionHash = yield* hash(rail, `transfer:${sequence}:${address}:${Money.format(amount)}`)
    return yield* Ref.modify(state, (s) => Ledger.recordTransfer(s, { rail, address, amount, transactionHash, now }))
  })

  const observeFunding = Effect.fn("SimulatedChain.observeFunding")(function* (
    rail: ChainGateway.Rail,
    address: string,
    cursor: string | null
  ) {
    const after = cursor === null ? 0 : /^[0-9]{1,15}$/.test(cursor) ? Number(cursor) : undefined
    if (after === undefined) return yield* chainError(rail.chain, "invalid_cursor", `not a block number: ${cursor}`)
    const s = yield* Ref.get(state)
    return {
      transfers: Ledger.transfersTo(s, rail, address, after),
      cursor: String(Math.max(after, Ledger.head(s, rail)))
    }
  })

  const preparePayout = Effect.fn("SimulatedChain.preparePayout")(function* (order: ChainGateway.PayoutOrder) {
    yield* checkRail(order.rail)
    yield* checkAddress(order.rail, order.destination)
    if (!Money.isPositive(order.amount)) {
      return yield* chainError(order.rail.chain, "invalid_amount", "a payout must be positive")
    }
    const attempt = Ledger.attempt(yield* Ref.get(state), order.payoutId)
    const transactionHash = yield* hash(order.rail, `payout:${order.payoutId}:${attempt}`)
    const persisted = Ledger.encodePrepared({
      payoutId: order.payoutId,
      attempt,
      destination: order.destination,
      amount: Money.format(order.amount)
    })
    return { transactionHash, persisted }
  })

  const prepared = (rail: ChainGateway.Rail, payout: ChainGateway.PreparedPayout) =>
    Option.match(Ledger.decodePrepared(payout.persisted), {
      onNone: () => Effect.fail(chainError(rail.chain, "invalid_prepared", "not a simulated payout")),
      onSome: Effect.succeed
    })

  const broadcastPayout = Effect.fn("SimulatedChain.broadcastPayout")(function* (
    rail: ChainGateway.Rail,
    payout: ChainGateway.PreparedPayout
  ) {
    const { payoutId } = yield* prepared(rail, payout)
    const now = yield* DateTime.now
    yield* Ref.update(state, (s) => Ledger.recordBroadcast(s, rail, payout.transactionHash, payoutId, now))
  })

  const lookupPayout = Effect.fn("SimulatedChain.lookupPayout")(function* (
    rail: ChainGateway.Rail,
    payout: ChainGateway.PreparedPayout
  ) {
    yield* prepared(rail, payout)
    return Ledger.lookup(yield* Ref.get(state), payout.transactionHash)
  })

  return SimulatedChain.of({
    fundingAddress,
    observeFunding,
    preparePayout,
    broadcastPayout,
    lookupPayout,
    fund,
    transfers: Effect.map(Ref.get(state), (s) => s.transfers),
    failNextPayout: Ref.update(state, (s) => ({ ...s, failNext: true }))
  })
})

/** The simulated chain, as itself (to fund addresses) and as core's `ChainGateway`. */
export const layer: Layer.Layer<SimulatedChain | ChainGateway.ChainGateway> = Layer.effect(
  ChainGateway.ChainGateway,
  SimulatedChain.useSync((chain) => ChainGateway.ChainGateway.of(chain))
).pipe(Layer.provideMerge(Layer.effect(SimulatedChain, make)), Layer.provide(Digest.layerWebCrypto))
