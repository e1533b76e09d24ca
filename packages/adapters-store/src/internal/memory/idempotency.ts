/**
 * `IdempotencyRepo` in memory: keys unique per `(partner, environment, key)`. A claim inserts the
 * key or reports who holds it, atomically; a key at or past its `expiresAt` is taken over as a
 * fresh claim.
 */
import { Effect, HashMap, Option } from "effect"
import type { DateTime } from "effect"
import { IdempotencyRepo } from "@ratelock/core"
import type { Partner } from "@ratelock/core"
import { scopedKey } from "./scope.ts"
import { atomically, done, type IdempotencyRow, type State, type StateRef, write } from "./state.ts"

type Claim = IdempotencyRepo.Claim

const held = (row: IdempotencyRow): Claim => IdempotencyRepo.heldClaim(row.fingerprint, row.response)

export const makeIdempotencyRepo = (ref: StateRef): IdempotencyRepo.IdempotencyRepoShape => {
  const claim = Effect.fn("MemoryStore.idempotency.claim")(function* (
    scope: Partner.PartnerScope,
    key: string,
    fingerprint: string,
    now: DateTime.Utc,
    expiresAt: DateTime.Utc
  ) {
    const id = scopedKey(scope, key)
    return yield* atomically(ref, (state) => {
      const row = HashMap.get(state.idempotency, id)
      if (Option.isSome(row) && now.epochMilliseconds < row.value.expiresAt) return done(held(row.value), state)
      const fresh: IdempotencyRow = { fingerprint, response: null, expiresAt: expiresAt.epochMilliseconds }
      return done<Claim>({ _tag: "Claimed" }, { ...state, idempotency: HashMap.set(state.idempotency, id, fresh) })
    })
  })

  const complete = Effect.fn("MemoryStore.idempotency.complete")(function* (
    scope: Partner.PartnerScope,
    key: string,
    response: IdempotencyRepo.StoredResponse,
    keepUntil: DateTime.Utc
  ) {
    const id = scopedKey(scope, key)
    return yield* atomically(ref, (state: State) =>
      write({
        ...state,
        idempotency: HashMap.modify(state.idempotency, id, (row) => ({
          ...row,
          response,
          expiresAt: keepUntil.epochMilliseconds
        }))
      })
    )
  })

  const release = Effect.fn("MemoryStore.idempotency.release")(function* (scope: Partner.PartnerScope, key: string) {
    const id = scopedKey(scope, key)
    return yield* atomically(ref, (state) => write({ ...state, idempotency: HashMap.remove(state.idempotency, id) }))
  })

  return IdempotencyRepo.IdempotencyRepo.of({ claim, complete, release })
}
