/**
 * Persistence port for quotes. Every read is scoped by the partner and environment.
 */
import { Context } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { Position } from "../kernel/Cursor.ts"
import type { PartnerScope } from "../terms/Partner.ts"
import type { QuoteRecord, QuoteStatus } from "../terms/Quote.ts"
import type { StoreError } from "../kernel/StoreError.ts"

export interface QuoteFilter {
  /** `created`: priced quotes (accepted or not); `failed`: failed ones and those expired unaccepted. */
  readonly status?: QuoteStatus | undefined
  readonly customerReferenceId?: string | undefined
  readonly limit: number
  /** Items strictly after this position, newest first by `(created_at, id)`. */
  readonly after?: Position | undefined
  /** The current time, to tell expired quotes apart. */
  readonly now: DateTime.Utc
}

export interface QuoteRepoShape {
  readonly insert: (quote: QuoteRecord) => Effect.Effect<void, StoreError>
  readonly find: (scope: PartnerScope, id: string) => Effect.Effect<Option.Option<QuoteRecord>, StoreError>
  /** Any partner's quote by id: for the operator (`quote explain`), never behind a partner's key. */
  readonly findForOperator: (id: string) => Effect.Effect<Option.Option<QuoteRecord>, StoreError>
  /** At most `filter.limit` quotes, newest first by `(created_at, id)`. */
  readonly list: (scope: PartnerScope, filter: QuoteFilter) => Effect.Effect<ReadonlyArray<QuoteRecord>, StoreError>
}

export class QuoteRepo extends Context.Service<QuoteRepo, QuoteRepoShape>()("@ratelock/core/QuoteRepo") {}
