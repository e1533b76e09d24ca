/**
 * What both simulated chains answer alike about balances and sweeps, each over its own ledger (a
 * `Ref`, or `sim_…` tables): the funding keys are held (a sweep can always be signed); a balance is
 * what `Ledger.balance` counts, and a native balance is zero (no native currency: nothing pays
 * fees or rent); a draft checks the order, refuses it with `insufficient_funds`
 * when the source cannot cover it, and signs it as one job (no fees, no nonce) to its destination,
 * or to the rail's simulated hot wallet (`Encoding.hotWallet`) when it has none.
 */
import { ChainGateway, Money, Rail } from "@ratelock/core"
import { BigDecimal, Effect } from "effect"
import type { Digest } from "effect/crypto"
import { chainError, checkAddress, checkIndex, checkMovement, checkRail } from "./checks.ts"
import * as Encoding from "./encoding.ts"
import * as Ledger from "./ledger.ts"
import * as Prepared from "./prepared.ts"

/** What a simulated chain reads of its ledger for balances and sweeps. */
export interface SweepLedger {
  /** Confirmed balances of the rail's token at `addresses`, in their order (`Ledger.balance`). */
  readonly balances: (
    rail: ChainGateway.Rail,
    addresses: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<Money.Decimal>, ChainGateway.ChainError>
  /** What `address` may move now (`Ledger.spendable`). */
  readonly spendable: (
    rail: ChainGateway.Rail,
    address: string
  ) => Effect.Effect<Money.Decimal, ChainGateway.ChainError>
  /** The sweep's rejected broadcasts so far: the attempt a new draft signs (`Ledger.sweepAttempt`). */
  readonly attempt: (rail: ChainGateway.Rail, sweepId: string) => Effect.Effect<number, ChainGateway.ChainError>
}

export const make = (
  digest: Digest.Digest["Service"],
  ledger: SweepLedger
): Pick<ChainGateway.ChainGatewayShape, "balances" | "nativeBalances" | "fundingKeys" | "draftSweep"> => ({
  balances: (rail, addresses) =>
    Effect.andThen(
      Effect.andThen(
        checkRail(rail),
        Effect.forEach(addresses, (address) => checkAddress(rail, address), { discard: true })
      ),
      // in lowest terms: a sum keeps its terms' scale ("0.00" once 30.25 is swept)
      Effect.map(ledger.balances(rail, addresses), (all) => all.map(BigDecimal.normalize))
    ),
  nativeBalances: (rail, addresses) =>
    Effect.as(
      Effect.forEach(addresses, (address) => checkAddress(rail, address), { discard: true }),
      addresses.map(() => Money.zero)
    ),
  // funding addresses derive from nothing secret here: a sweep can always be signed
  fundingKeys: () => Effect.succeed("held"),
  draftSweep: Effect.fn("SimulatedChain.draftSweep")(function* (order: ChainGateway.SweepOrder) {
    const { rail } = order
    yield* checkMovement(rail, order.source, order.amount, "sweep")
    yield* checkIndex(rail, order.fundingIndex)
    // a real gateway signs with the key at `fundingIndex`: it can sign for that address only
    const funding = yield* Encoding.address(digest, rail, order.fundingIndex)
    if (!Rail.sameAddress(rail.chain, funding, order.source)) {
      return yield* chainError(
        rail.chain,
        "invalid_address",
        `the funding address at index ${order.fundingIndex} is ${funding}, not the sweep's source ${order.source}`
      )
    }
    if (order.destination !== null) yield* checkAddress(rail, order.destination)
    const destination =
      order.destination === null
        ? yield* Encoding.hotWallet(digest, rail)
        : Encoding.canonicalAddress(rail.chain, order.destination)
    const held = yield* ledger.spendable(rail, order.source)
    if (Ledger.sweepFailure(held, order.amount) !== null) {
      return yield* chainError(
        rail.chain,
        "insufficient_funds",
        `${order.source} holds ${Money.format(held)} ${rail.token}: too little for a sweep of ` +
          `${Money.format(order.amount)} ${rail.token}`
      )
    }
    const attempt = yield* ledger.attempt(rail, order.sweepId)
    return ChainGateway.withoutNonce(Prepared.prepareSweep(digest, order, destination, attempt))
  })
})
