/**
 * `QuoteRepo` in memory. The status filter reads the status a partner sees at `now`: a priced
 * quote that expired unaccepted lists as `failed`. A quote's snapshot must be stored (the SQL
 * foreign key).
 */
import { Effect, Exit, HashMap } from "effect"
import { Quote, QuoteRepo, StoreError } from "@ratelock/core"
import type { Partner } from "@ratelock/core"
import { newestFirst, self } from "./keyset.ts"
import { inScope, scoped } from "./scope.ts"
import { atomically, read, type StateRef, write } from "./state.ts"

export const makeQuoteRepo = (ref: StateRef): QuoteRepo.QuoteRepoShape => {
  const insert = Effect.fn("MemoryStore.quotes.insert")(function* (quote: Quote.QuoteRecord) {
    return yield* atomically(ref, (state) =>
      HashMap.has(state.quotes, quote.id)
        ? Exit.fail(new StoreError.StoreError({ message: `quote ${quote.id} already exists` }))
        : quote.snapshotId !== null && !HashMap.has(state.snapshots, quote.snapshotId)
          ? Exit.fail(new StoreError.StoreError({ message: `snapshot ${quote.snapshotId} does not exist` }))
          : write({ ...state, quotes: HashMap.set(state.quotes, quote.id, quote) })
    )
  })

  const find = Effect.fn("MemoryStore.quotes.find")(function* (scope: Partner.PartnerScope, id: string) {
    return yield* read(ref, (state) => scoped(scope, HashMap.get(state.quotes, id)))
  })

  const findForOperator = Effect.fn("MemoryStore.quotes.findForOperator")(function* (id: string) {
    return yield* read(ref, (state) => HashMap.get(state.quotes, id))
  })

  const list = Effect.fn("MemoryStore.quotes.list")(function* (
    scope: Partner.PartnerScope,
    filter: QuoteRepo.QuoteFilter
  ) {
    const matches = (quote: Quote.QuoteRecord) =>
      inScope(scope, quote) &&
      (filter.customerReferenceId === undefined || quote.customerReferenceId === filter.customerReferenceId) &&
      (filter.status === undefined || Quote.visibleStatus(quote, filter.now) === filter.status)
    return yield* read(ref, (state) =>
      newestFirst(Array.from(HashMap.values(state.quotes)).filter(matches), self, filter)
    )
  })

  return QuoteRepo.QuoteRepo.of({ insert, find, findForOperator, list })
}
