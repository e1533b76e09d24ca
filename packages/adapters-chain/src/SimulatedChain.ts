/**
 * A simulated chain for the sandbox and for tests: core's `ChainGateway` over an in-memory ledger.
 *
 * - Funding addresses are derived deterministically from `(environment, chain, index)` and are
 *   well-formed for their chain: EVM `0x` + 40 lowercase hex, Solana base58 of 32 bytes.
 * - `fund` records a transfer into an address in a new block, with a well-formed transaction hash
 *   (EVM `0x` + 64 hex, Solana a base58 64-byte signature); `observeFunding` sees it once the
 *   confirmation delay has passed (time from the `Clock`).
 * - Payouts: `preparePayout` yields the same transaction for a payout until the chain rejects one
 *   (then the next attempt gets a new hash), `broadcastPayout` records it (repeating is harmless),
 *   `lookupPayout` answers `Pending` until the confirmation delay has passed, then `Confirmed`
 *   (or `Failed` for a rejected one).
 * - Sweeps: `draftSweep` signs one job moving `amount` from a funding address to its destination
 *   or the rail's simulated hot wallet; the payout calls broadcast it (once) and look it up, as a
 *   payout. `balances` counts the transfers and sweeps in, less the sweeps out; payouts are paid
 *   from no wallet (`hotWallet` answers null) and count nowhere; there is no native currency
 *   (`nativeBalances` answers zeros).
 *
 * Each `(chain, environment)` is its own network with its own block numbers.
 */
import { ChainGateway, Money } from "@ratelock/core"
import { Context, DateTime, Duration, Effect, Layer, Option, Ref } from "effect"
import { Digest } from "effect/crypto"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { chainError, checkIndex, checkMovement, parseCursor } from "./internal/checks.ts"
import * as Ledger from "./internal/ledger.ts"
import * as Encoding from "./internal/encoding.ts"
import * as Prepared from "./internal/prepared.ts"
import * as SimulatedPayouts from "./internal/simulatedPayouts.ts"
import * as SimulatedSweeps from "./internal/simulatedSweeps.ts"

export type { SimulatedTransfer } from "./internal/ledger.ts"

export interface SimulatedChainShape extends ChainGateway.ChainGatewayShape {
  /**
   * Records a transfer of the rail's token into `address` in a new block, confirmed after the delay.
   * With a `reference` (say, the id of the request that sent it), the transfer is recorded once:
   * a repeat answers the transfer already recorded, so a sender retrying after a crash never pays twice.
   */
  readonly fund: (
    rail: ChainGateway.Rail,
    address: string,
    amount: Money.Decimal,
    reference?: string
  ) => Effect.Effect<Ledger.SimulatedTransfer, ChainGateway.ChainError>
  /** Every transfer recorded so far, confirmed or not, oldest first. */
  readonly transfers: Effect.Effect<ReadonlyArray<Ledger.SimulatedTransfer>>
  /** The transfers recorded into `address` on the rail (its chain, environment and token), confirmed or not, oldest first. */
  readonly transfersInto: (
    rail: ChainGateway.Rail,
    address: string
  ) => Effect.Effect<ReadonlyArray<Ledger.SimulatedTransfer>, ChainGateway.ChainError>
  /** The chain rejects the next payout broadcast, whoever's: its lookup answers `Failed`. */
  readonly failNextPayout: Effect.Effect<void>
  /**
   * The chain rejects the next payout broadcast of this contract, even of a payout that does not
   * exist yet. Needs `Options.payoutIdOf`; without it, fails with reason `unsupported`.
   */
  readonly failNextPayoutOf: (contractId: string) => Effect.Effect<void, ChainGateway.ChainError>
}

export interface Options<R = never> {
  /** How long after it is recorded a transfer or a payout broadcast is confirmed. Default: at once. */
  readonly confirmDelay?: Duration.Input
  /**
   * The id of a contract's payout, once it has one (e.g. from core's `PayoutRepo`): how
   * `failNextPayoutOf` recognises the contract's payout when it is prepared.
   */
  readonly payoutIdOf?: (contractId: string) => Effect.Effect<Option.Option<string>, unknown, R>
}

export class SimulatedChain extends Context.Service<SimulatedChain, SimulatedChainShape>()(
  "@ratelock/adapters-chain/SimulatedChain"
) {}

const make = <R>(options: Options<R>) =>
  Effect.gen(function* () {
    const digest = yield* Digest.Digest
    const context = yield* Effect.context<R>()
    const state = yield* Ref.make(Ledger.empty)
    const confirmDelay = Duration.fromInputUnsafe(options.confirmDelay ?? 0)
    const hash = (rail: ChainGateway.Rail, label: string) => Encoding.transactionHash(digest, rail, label)
    /** When something recorded now is confirmed. */
    const confirmsAt = Effect.map(DateTime.now, (now) => DateTime.addDuration(now, confirmDelay))

    const fundingAddress = Effect.fn("SimulatedChain.fundingAddress")(function* (
      rail: ChainGateway.Rail,
      index: number
    ) {
      yield* checkIndex(rail, index)
      return yield* Encoding.address(digest, rail, index)
    })

    const fund = Effect.fn("SimulatedChain.fund")(function* (
      rail: ChainGateway.Rail,
      address: string,
      amount: Money.Decimal,
      reference?: string
    ) {
      yield* checkMovement(rail, address, amount, "transfer")
      const confirmedAt = yield* confirmsAt
      const sequence = (yield* Ref.get(state)).transfers.length
      const transactionHash = yield* hash(rail, Encoding.transferLabel(reference ?? sequence, address, amount))
      return yield* Ref.modify(state, (s) => {
        const recorded = s.transfers.find((t) => t.transactionHash === transactionHash)
        return recorded !== undefined
          ? [recorded, s]
          : Ledger.recordTransfer(s, { rail, address, amount, transactionHash, confirmedAt })
      })
    })

    const observeFunding = Effect.fn("SimulatedChain.observeFunding")(function* (
      rail: ChainGateway.Rail,
      address: string,
      cursor: string | null
    ) {
      const after = yield* parseCursor(rail, cursor)
      return Ledger.observe(yield* Ref.get(state), rail, address, after, yield* DateTime.now)
    })

    /** Armed contracts whose payout this is: from now on, the payout itself is armed. */
    const resolveArmed = Effect.fnUntraced(function* (payoutId: string) {
      const payoutIdOf = options.payoutIdOf
      if (payoutIdOf === undefined) return
      for (const contractId of (yield* Ref.get(state)).armedContracts) {
        const found = yield* payoutIdOf(contractId).pipe(
          Effect.provideContext(context),
          Effect.catchCause((cause) =>
            Effect.as(Effect.logWarning("simulated chain: no payout id for an armed contract", cause), Option.none())
          )
        )
        if (Option.contains(found, payoutId))
          yield* Ref.update(state, (s) => Ledger.resolveArmed(s, contractId, payoutId))
      }
    })

    const preparePayout = Effect.fn("SimulatedChain.preparePayout")(function* (order: ChainGateway.PayoutOrder) {
      yield* checkMovement(order.rail, order.destination, order.amount, "payout")
      yield* resolveArmed(order.payoutId)
      const attempt = Ledger.attempt(yield* Ref.get(state), order.payoutId)
      return yield* Prepared.prepare(digest, order, attempt)
    })

    const prepared = Prepared.read

    const broadcastPayout = Effect.fn("SimulatedChain.broadcastPayout")(function* (
      rail: ChainGateway.Rail,
      payout: ChainGateway.PreparedPayout
    ) {
      const job = yield* prepared(rail, payout)
      const { transactionHash } = payout
      const confirmedAt = yield* confirmsAt
      yield* Ref.update(state, (s) =>
        Ledger.isSweep(job)
          ? Ledger.recordSweep(s, {
              rail,
              transactionHash,
              sweepId: job.sweepId,
              source: job.source,
              destination: job.destination,
              amount: Money.unsafe(job.amount),
              confirmedAt
            })
          : Ledger.recordBroadcast(s, { rail, transactionHash, payoutId: job.payoutId, confirmedAt })
      )
    })

    const lookupPayout = Effect.fn("SimulatedChain.lookupPayout")(function* (
      rail: ChainGateway.Rail,
      payout: ChainGateway.PreparedPayout
    ) {
      yield* prepared(rail, payout)
      return Ledger.lookup(yield* Ref.get(state), payout.transactionHash, yield* DateTime.now)
    })

    const failNextPayoutOf = Effect.fn("SimulatedChain.failNextPayoutOf")(function* (contractId: string) {
      if (options.payoutIdOf === undefined) {
        return yield* chainError(
          "simulated",
          "unsupported",
          "this simulated chain cannot target a contract's payout: it was built without payoutIdOf"
        )
      }
      yield* Ref.update(state, (s) => Ledger.armContract(s, contractId))
    })

    return SimulatedChain.of({
      fundingAddress,
      observeFunding,
      // in memory, one at a time keeps the order reproducible and costs nothing
      observeFundingBatch: ChainGateway.observeEach(observeFunding, 1),
      preparePayout,
      ...SimulatedPayouts.make(preparePayout),
      ...SimulatedSweeps.make(digest, {
        balances: (rail, addresses) =>
          Effect.map(Effect.zip(Ref.get(state), DateTime.now), ([s, now]) =>
            addresses.map((address) => Ledger.balance(s, rail, address, now))
          ),
        spendable: (rail, address) => Effect.map(Ref.get(state), (s) => Ledger.spendable(s, rail, address)),
        attempt: (_, sweepId) => Effect.map(Ref.get(state), (s) => Ledger.sweepAttempt(s, sweepId))
      }),
      broadcastPayout,
      lookupPayout,
      fund,
      transfers: Effect.map(Ref.get(state), (s) => s.transfers),
      transfersInto: (rail, address) => Effect.map(Ref.get(state), (s) => Ledger.transfersInto(s, rail, address)),
      failNextPayout: Ref.update(state, (s) => ({ ...s, failNext: true })),
      failNextPayoutOf
    })
  })

/**
 * The simulated chain with `options`, as itself (to fund addresses, make payouts fail) and as
 * core's `ChainGateway`; it needs what `payoutIdOf` needs.
 */
export const layerWith = <R = never>(
  options: Options<R>
): Layer.Layer<SimulatedChain | ChainGateway.ChainGateway, never, R> =>
  Layer.effect(
    ChainGateway.ChainGateway,
    SimulatedChain.useSync((chain) => ChainGateway.ChainGateway.of(chain))
  ).pipe(Layer.provideMerge(Layer.effect(SimulatedChain, make(options))), Layer.provide(NodeCrypto.layerDigest))

/** The simulated chain confirming at once, as itself and as core's `ChainGateway`. */
export const layer: Layer.Layer<SimulatedChain | ChainGateway.ChainGateway> = layerWith({})
