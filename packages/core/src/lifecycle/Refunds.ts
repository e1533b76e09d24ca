/**
 * Refunds: the partner's money that is not a payout goes back on chain, from the hot wallet to the
 * partner's refund address on the contract's chain and environment, in its token, at most once
 * (a movement, unique by what it refunds, sent by `Movements`).
 *
 * - A forward's deposit, when its payout settles (a zero payout too): recorded by the payout pass
 *   before the contract is settled, so a crash in between finds it recorded.
 * - Funds that funded nothing (an unmatched transfer), and a contract's surplus or a defaulted
 *   contract's partial funds: an operator's `funds refund`, recorded against the transfer.
 *
 * A partner with no refund address on the chain: the refund waits, listed, until one is set.
 */
import { DateTime, Effect, Option, Schema } from "effect"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as Money from "../kernel/Money.ts"
import { type ContractRecord, isAwaitingFunds } from "../terms/Contract.ts"
import { ChainGateway } from "./ChainGateway.ts"
import { ContractRepo } from "./ContractRepo.ts"
import { type Movement, MovementRepo, type MovementPurpose, newMovement } from "./MovementRepo.ts"

/** The movement that refunds `amount` of a contract's money, not yet signed. */
const refundOf = Effect.fnUntraced(function* (
  contract: ContractRecord,
  purpose: Extract<MovementPurpose, "deposit" | "surplus" | "unmatched">,
  key: string,
  amount: Money.Decimal,
  destination: string | null,
  requestedBy: string
) {
  return newMovement(
    {
      id: yield* (yield* IdGenerator).uuid,
      kind: "refund",
      purpose,
      key,
      contractId: contract.id,
      partnerId: contract.partnerId,
      environment: contract.environment,
      chain: contract.chain,
      currency: contract.settlementCurrency,
      source: null,
      fundingIndex: null,
      destination,
      amount,
      requestedBy
    },
    yield* DateTime.now
  )
})

/** The key of a forward's deposit refund: one per contract. */
export const depositKey = (contractId: string) => `deposit:${contractId}`

/**
 * Records the refund of a forward's deposit (nothing for an option, or a forward without one);
 * a second call finds the first.
 */
export const recordDeposit = Effect.fn("Refunds.recordDeposit")(function* (contract: ContractRecord) {
  const deposit = contract.depositAmount
  if (contract.contractType !== "forward" || deposit === null || !Money.isPositive(deposit)) return
  const movement = yield* refundOf(contract, "deposit", depositKey(contract.id), deposit, null, "worker")
  yield* (yield* MovementRepo).insert(movement).pipe(Effect.catchTag("MovementExists", () => Effect.void))
})

/** An operator's refund that cannot be made, and why. */
export class RefundRefused extends Schema.TaggedError<RefundRefused>()("RefundRefused", {
  reason: Schema.Literals(["not_found", "not_refundable", "invalid_address", "already_refunded"]),
  message: Schema.String
}) {}

/** A transfer as an operator names it: `<transaction hash>` or `<transaction hash>:<index>`. */
export const parseTransferId = (id: string): { readonly hash: string; readonly index: number | undefined } => {
  const at = id.lastIndexOf(":")
  if (at === -1) return { hash: id, index: undefined }
  const index = Number(id.slice(at + 1))
  return Number.isInteger(index) && index >= 0 ? { hash: id.slice(0, at), index } : { hash: id, index: undefined }
}

/** Where a refund the operator asks for goes: `to` checked by the chain's payout rule, else null (the partner's refund address). */
const destinationOf = (contract: ContractRecord, to: string | undefined) =>
  to === undefined
    ? Effect.succeed(null)
    : ChainGateway.use((gateway) =>
        gateway.checkAddress({ chain: contract.chain, environment: contract.environment }, to)
      ).pipe(
        Effect.catchTag("ChainError", (e) =>
          Effect.fail(new RefundRefused({ reason: "invalid_address", message: e.message }))
        )
      )

const refuse = (reason: RefundRefused["reason"], message: string) => Effect.fail(new RefundRefused({ reason, message }))

/** Records a refund the operator asked for, at most once by its key. */
const recordRefund = Effect.fnUntraced(function* (movement: Movement, transferId: string) {
  yield* (yield* MovementRepo)
    .insert(movement)
    .pipe(
      Effect.catchTag("MovementExists", () =>
        refuse("already_refunded", `${transferId} is already refunded (or being refunded): ${movement.key}`)
      )
    )
  return movement
})

/**
 * What the books owe the partner on a contract that no longer awaits funds: the credit left on its
 * `partner_prepayment` (funds received beyond what it needed, or a defaulted contract's partial
 * funds), exact.
 */
export const owedBack = (entries: ReadonlyArray<{ readonly account: string; readonly amount: Money.Decimal }>) =>
  Money.subtract(
    Money.zero,
    entries.filter((e) => e.account === "partner_prepayment").reduce((s, e) => Money.sum(s, e.amount), Money.zero)
  )

/**
 * `ratelock funds refund TRANSFER_ID [--to ADDRESS]`, by the transfer's hash (`HASH` or
 * `HASH:INDEX`): an unmatched transfer of the contract's token is refunded whole (recorded against
 * that transfer); a transfer that funded a contract refunds what the books still owe the partner on
 * that contract (a surplus, or a defaulted contract's partial funds: recorded against the
 * contract, so that a second transfer of it cannot refund the same funds twice). At most once, to
 * `to` or the partner's refund address. The movement recorded, sent by the workers.
 */
export const refundTransfer = Effect.fn("Refunds.refundTransfer")(function* (input: {
  readonly transferId: string
  readonly to?: string | undefined
  readonly requestedBy: string
}) {
  const { hash, index } = parseTransferId(input.transferId.trim())
  const contracts = yield* ContractRepo
  const contractOf = Effect.fnUntraced(function* (id: string) {
    const found = yield* contracts.findById(id)
    return Option.isSome(found) ? found.value : yield* refuse("not_found", `contract ${id} not found`)
  })
  const sameTransfer = (t: { readonly transactionHash: string; readonly index: number }) =>
    t.transactionHash.toLowerCase() === hash.toLowerCase() && (index === undefined || t.index === index)
  const unmatched = (yield* contracts.unmatchedTransfers({ transactionHash: hash, limit: 1000 })).filter(sameTransfer)
  const counted = unmatched.length > 0 ? [] : yield* contracts.fundingTransfersByHash(hash, index)
  const named = unmatched.length + counted.length
  if (named === 0) return yield* refuse("not_found", `no unmatched or funding transfer ${input.transferId}`)
  if (named > 1) {
    return yield* refuse("not_found", `${input.transferId} names ${named} transfers: add its index (HASH:INDEX)`)
  }
  const transfer = unmatched[0]
  if (transfer !== undefined) {
    const contract = yield* contractOf(transfer.contractId)
    if (transfer.unit !== "token" || transfer.token !== contract.settlementCurrency) {
      return yield* refuse(
        "not_refundable",
        `the transfer is of another token (${transfer.token}): only the contract's ${contract.settlementCurrency} is refunded from the hot wallet`
      )
    }
    const key = `transfer:${transfer.chain}:${transfer.transactionHash}:${transfer.index}`
    const amount = Money.unsafe(transfer.amount)
    const to = yield* destinationOf(contract, input.to)
    return yield* recordRefund(
      yield* refundOf(contract, "unmatched", key, amount, to, input.requestedBy),
      input.transferId
    )
  }
  const contract = yield* contractOf(counted[0]!.contractId)
  if (isAwaitingFunds(contract.status)) {
    return yield* refuse(
      "not_refundable",
      `contract ${contract.id} still awaits funds (${contract.status}): what it received is not owed back yet`
    )
  }
  const owed = owedBack(yield* contracts.ledgerEntries(contract.id))
  if (!Money.isPositive(owed)) {
    return yield* refuse("not_refundable", `nothing is owed back on contract ${contract.id} (${contract.status})`)
  }
  const to = yield* destinationOf(contract, input.to)
  const refund = yield* refundOf(contract, "surplus", `surplus:${contract.id}`, owed, to, input.requestedBy)
  return yield* recordRefund(refund, input.transferId)
})
