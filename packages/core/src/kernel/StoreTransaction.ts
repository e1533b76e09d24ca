/**
 * One transaction over every repository of a store: what `run` is given commits whole or not at
 * all. Operator actions run their change and its audit record in one (`operator/Audit.ts`), so a
 * change never lands without its record, nor a record without its change.
 *
 * PostgreSQL and the embedded store run it as an SQL transaction on one connection (a nested `run`
 * is a savepoint); the memory store works on a private copy of its state and replays the
 * transaction's steps onto the latest state when it commits.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "./StoreError.ts"

export interface StoreTransactionShape {
  readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
}

export class StoreTransaction extends Context.Service<StoreTransaction, StoreTransactionShape>()(
  "@ratelock/core/StoreTransaction"
) {}
