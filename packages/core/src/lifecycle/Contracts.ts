/**
 * Lifecycle programs for contracts: turn a quote into a contract, and list a customer's locks.
 */
import { DateTime, Effect, Option } from "effect"
import { QuoteAlreadyAccepted, QuoteExpired, QuoteNotAccepted, QuoteNotFound } from "../kernel/ApiError.ts"
import { ChainGateway } from "./ChainGateway.ts"
import * as Contract from "../terms/Contract.ts"
import { ContractRepo } from "./ContractRepo.ts"
import type { ContractRequest } from "../terms/ContractRequest.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as Metrics from "./Metrics.ts"
import * as Money from "../kernel/Money.ts"
import { pageSize, position, slice } from "./internal/paginate.ts"
import type { ListLocksQuery } from "../terms/ListQuery.ts"
import type { PartnerScope } from "../terms/Partner.ts"
import { visibleStatus } from "../terms/Quote.ts"
import { QuotePolicy } from "../pricing/QuotePolicy.ts"
import { QuoteRepo } from "./QuoteRepo.ts"

export const create = Effect.fn("Contracts.create")(function* (scope: PartnerScope, request: ContractRequest) {
  const found = yield* (yield* QuoteRepo).find(scope, request.quote_id)
  if (Option.isNone(found)) return yield* new QuoteNotFound({ message: `quote ${request.quote_id} not found` })
  const quote = found.value
  const now = yield* DateTime.now
  const contracts = yield* ContractRepo
  if (quote.acceptedAt !== null) {
    return yield* new QuoteAlreadyAccepted({ message: `quote ${quote.id} already has a contract` })
  }
  if (quote.status === "failed") {
    return yield* new QuoteNotAccepted({ message: `quote ${quote.id} could not be priced and cannot be accepted` })
  }
  if (visibleStatus(quote, now) === "failed") {
    return yield* new QuoteExpired({ message: `quote ${quote.id} expired at ${DateTime.formatIso(quote.expiresAt)}` })
  }

  const rail = Contract.railOf({
    chain: quote.chain,
    environment: scope.environment,
    settlementCurrency: quote.settlementCurrency
  })
  const index = yield* contracts.allocateFundingIndex(rail)
  const fundingWalletAddress = yield* (yield* ChainGateway).fundingAddress(rail, index)
  const ids = yield* IdGenerator
  const policy = yield* QuotePolicy
  const contract: Contract.ContractRecord = {
    id: yield* ids.uuid,
    partnerId: scope.partnerId,
    environment: scope.environment,
    quoteId: quote.id,
    serviceContractReference: yield* ids.contractReference,
    customerReferenceId: quote.customerReferenceId,
    partnerTransactionReference: request.partner_transaction_reference ?? null,
    contractType: quote.contractType,
    direction: quote.direction,
    notionalCurrency: quote.notionalCurrency,
    notionalAmount: quote.notionalAmount,
    lockedRate: quote.lockedRate,
    providerRateAtLock: quote.providerRate,
    marketRateAtLock: quote.marketRate,
    premiumAmount: quote.premiumAmount,
    depositAmount: quote.depositAmount,
    totalAmount: quote.totalAmount,
    maxTransactionAmount: quote.maxTransactionAmount,
    windowStart: quote.windowStart,
    windowEnd: quote.windowEnd,
    chain: quote.chain,
    settlementCurrency: quote.settlementCurrency,
    fundingWalletAddress,
    fundingIndex: index,
    fundedAmount: Money.roundDown(Money.zero),
    fundingDeadline: DateTime.min(DateTime.addDuration(now, policy.fundingWindow), quote.windowEnd),
    status: "quote_created",
    exercise: null,
    eventSequence: 0,
    history: [{ status: "quote_created", at: now, cause: "contract created from quote" }],
    createdAt: now,
    updatedAt: now
  }
  yield* contracts.insert(contract)
  yield* Metrics.transition("none", contract.status)
  return Contract.toResponse(contract)
})

export const listLocks = Effect.fn("Contracts.listLocks")(function* (
  scope: PartnerScope,
  customerReferenceId: string,
  query: ListLocksQuery
) {
  const after = yield* position(query.cursor)
  const limit = pageSize(query.limit)
  const rows = yield* (yield* ContractRepo).listByCustomer(scope, customerReferenceId, {
    status: query.status,
    limit: limit + 1,
    after
  })
  const page = slice(rows, limit)
  return { items: page.items.map(Contract.toLockResponse), next_cursor: page.nextCursor }
})
