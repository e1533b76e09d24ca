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
import type { ContractRecord } from "../terms/Contract.ts"
import { ChainGateway } from "./ChainGateway.ts"
import { ContractRepo } from "./ContractRepo.ts"
import { MovementRepo, type MovementPurpose, newMovement } from "./MovementRepo.ts"

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

/**
 * `ratelock funds refund TRANSFER_ID [--to ADDRESS]`: refunds an unmatched transfer of the
 * settlement token (its whole amount), at most once, to `to` (checked by the chain's payout rule)
 * or the partner's refund address. The movement recorded, to be sent by the workers.
 */
export const refundTransfer = Effect.fn("Refunds.refundTransfer")(function* (input: {
  readonly transferId: string
  readonly to?: string | undefined
  readonly requestedBy: string
}) {
  const refuse = (reason: RefundRefused["reason"], message: string) =>
    Effect.fail(new RefundRefused({ reason, message }))
  const { hash, index } = parseTransferId(input.transferId.trim())
  const contracts = yield* ContractRepo
  const transfers = yield* contracts.unmatchedTransfers({ limit: 100_000 })
  const matches = transfers.filter(
    (t) => t.transactionHash.toLowerCase() === hash.toLowerCase() && (index === undefined || t.index === index)
  )
  if (matches.length === 0) return yield* refuse("not_found", `no unmatched transfer ${input.transferId}`)
  if (matches.length > 1) {
    return yield* refuse(
      "not_found",
      `${input.transferId} names ${matches.length} transfers: add its index (HASH:INDEX)`
    )
  }
  const transfer = matches[0]!
  const found = yield* contracts.findById(transfer.contractId)
  if (Option.isNone(found)) return yield* refuse("not_found", `contract ${transfer.contractId} not found`)
  const contract = found.value
  if (transfer.unit !== "token" || transfer.token !== contract.settlementCurrency) {
    return yield* refuse(
      "not_refundable",
      `the transfer is of another token (${transfer.token}): only the contract's ${contract.settlementCurrency} is refunded from the hot wallet`
    )
  }
  let destination: string | null = null
  if (input.to !== undefined) {
    destination = yield* (yield* ChainGateway)
      .checkAddress({ chain: contract.chain, environment: contract.environment }, input.to)
      .pipe(Effect.catchTag("ChainError", (e) => refuse("invalid_address", e.message)))
  }
  const key = `transfer:${transfer.chain}:${transfer.transactionHash}:${transfer.index}`
  const repo = yield* MovementRepo
  const movement = yield* refundOf(
    contract,
    "unmatched",
    key,
    Money.unsafe(transfer.amount),
    destination,
    input.requestedBy
  )
  yield* repo
    .insert(movement)
    .pipe(
      Effect.catchTag("MovementExists", () =>
        refuse("already_refunded", `transfer ${input.transferId} is already refunded (or being refunded)`)
      )
    )
  return movement
})
