/**
 * The audit log in memory: one record per id, as the SQL primary key. Append-only as the SQL
 * table is: `append` is the only write, and nothing here replaces or removes a record. Lists are
 * newest first by `(at, id)` with the same filters and strict keyset as `PgAuditRepo`.
 */
import { AuditRepo, StoreError } from "@ratelock/core"
import { Effect, Exit, HashMap } from "effect"
import { newestFirst } from "./keyset.ts"
import { atomically, read, type StateRef, write } from "./state.ts"

type Record = AuditRepo.AuditRecord

const keyOf = (r: Record) => ({ createdAt: r.at, id: r.id })

export const makeAuditRepo = (ref: StateRef): AuditRepo.AuditRepoShape => {
  const append = Effect.fn("MemoryStore.audit.append")(function* (record: Record) {
    return yield* atomically(ref, (state) => {
      if (HashMap.has(state.audit, record.id)) {
        return Exit.fail(new StoreError.StoreError({ message: `audit record ${record.id} already exists` }))
      }
      return write({ ...state, audit: HashMap.set(state.audit, record.id, record) })
    })
  })

  const list = Effect.fn("MemoryStore.audit.list")(function* (query: AuditRepo.AuditQuery) {
    return yield* read(ref, (state) =>
      newestFirst(
        [...HashMap.values(state.audit)].filter(
          (r) =>
            (query.actor === undefined || r.actor === query.actor) &&
            (query.action === undefined || r.action === query.action) &&
            (query.target === undefined || r.targetId === query.target) &&
            (query.since === undefined || r.at.epochMilliseconds >= query.since.epochMilliseconds)
        ),
        keyOf,
        { limit: query.limit, after: query.after }
      )
    )
  })

  return AuditRepo.AuditRepo.of({ append, list })
}
