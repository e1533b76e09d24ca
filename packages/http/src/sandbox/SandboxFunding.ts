/**
 * Funding in the sandbox (api-decisions.md, "Sandbox"): the fund helper, and the step that makes
 * an inbound `funds_in_route` with an `amount` arrive on the simulated chain. Either way the
 * simulated chain records a transfer to the contract's funding address, which the funding worker
 * counts once it is confirmed.
 */
import { SimulatedChain } from "@ratelock/adapters-chain"
import {
  type ApiError,
  type ChainGateway,
  Contract,
  type ContractRepo,
  type InboundEvent,
  Money,
  type Partner,
  SandboxRules,
  type StoreError
} from "@ratelock/core"
import { Effect } from "effect"
import type { SandboxTransfer } from "../api/Sandbox.ts"
import { find } from "./SandboxContract.ts"

/** What is still due, given every transfer the simulated chain sent to the funding address. */
const stillDue = Effect.fnUntraced(function* (contract: Contract.ContractRecord) {
  const chain = yield* SimulatedChain.SimulatedChain
  const transfers = yield* chain.transfersInto(Contract.railOf(contract), contract.fundingWalletAddress)
  return SandboxRules.stillDue(
    contract,
    transfers.reduce((total, t) => Money.sum(total, t.amount), Money.zero)
  )
})

/**
 * The simulated chain records a transfer of `amount` to the contract's funding address; with a
 * `reference`, only once whatever how often it is sent.
 */
const send = Effect.fnUntraced(function* (
  contract: Contract.ContractRecord,
  amount: Money.Decimal,
  reference?: string
) {
  const chain = yield* SimulatedChain.SimulatedChain
  const transfer = yield* chain.fund(Contract.railOf(contract), contract.fundingWalletAddress, amount, reference)
  return {
    fx_contract_id: contract.id,
    chain: contract.chain,
    currency: contract.settlementCurrency,
    funding_wallet_address: contract.fundingWalletAddress,
    amount: transfer.amount,
    transaction_hash: transfer.transactionHash,
    block_number: transfer.blockNumber,
    confirms_at: transfer.confirmedAt
  } satisfies SandboxTransfer
})

/** `POST /sandbox/contracts/{id}/fund`: `amount`, or what is still due, arrives on the simulated chain. */
export const fund = Effect.fn("Sandbox.fund")(function* (
  scope: Partner.PartnerScope,
  contractId: string,
  amount: Money.Decimal | undefined
): Effect.fn.Return<
  SandboxTransfer,
  | ApiError.ContractNotFound
  | ApiError.InvalidContractState
  | ApiError.FundingAmountInvalid
  | ChainGateway.ChainError
  | StoreError.StoreError,
  ContractRepo.ContractRepo | SimulatedChain.SimulatedChain
> {
  const contract = yield* find(scope, contractId)
  yield* SandboxRules.requireFundable(contract)
  const value = yield* SandboxRules.fundingAmount(
    contract,
    amount === undefined ? { due: yield* stillDue(contract) } : { asked: amount }
  )
  return yield* send(contract, value)
})

/**
 * After an inbound event was recorded: in the sandbox, a `funds_in_route` with an `amount` makes
 * the simulated chain receive that transfer (confirmed after the chain's delay), once per event.
 * A replay (`duplicate`) sends it again under the same reference: a no-op when it arrived, the
 * transfer itself when the process died between recording the event and sending it. A failure
 * here is logged; the event itself stays recorded, and the partner's retry sends the transfer.
 */
export const afterInbound = Effect.fn("Sandbox.afterInbound")(
  function* (scope: Partner.PartnerScope, event: InboundEvent.InboundEvent, ack: InboundEvent.InboundAck) {
    if (scope.environment !== "sandbox" || ack.status === "queued") return
    if (event.event_type !== "funds_in_route" || event.amount == null) return
    const amount = SandboxRules.inboundTransfer(event.amount)
    if (amount === undefined) return
    yield* send(yield* find(scope, event.fx_contract_id), amount, `inbound:${ack.webhook_event_id}`)
  },
  Effect.catchCause((cause) => Effect.logError("sandbox: funds_in_route not recorded on the simulated chain", cause))
)
