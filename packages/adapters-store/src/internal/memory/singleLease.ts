/**
 * A single lease in memory (the revaluation's, the close's), as the SQL store's one-row tables: of the workers
 * finding the same work due at once, the one holding it does the work. Free when nobody ever took it (null) or its
 * end has passed.
 */
import { type DateTime, Effect } from "effect"
import { atomically, done, type State, type StateRef } from "./state.ts"

/** Who holds the lease, until when. */
interface SingleLease {
  readonly owner: string
  readonly until: DateTime.Utc
}

/** The state's fields that are single leases. */
type LeaseField = "revaluationLease" | "closeLease"

/** `claim` and `release` of the lease in `field`, their spans named `<repository>.claim` and `.release`. */
export const singleLease = (ref: StateRef, field: LeaseField, repository: string) => ({
  /** Takes the lease for `lease` if nobody holds it at `now`: true when `lease` holds it. */
  claim: Effect.fn(`${repository}.claim`)(function* (lease: SingleLease, now: DateTime.Utc) {
    return yield* atomically(ref, (state) => {
      const held = state[field]
      if (held !== null && held.until.epochMilliseconds > now.epochMilliseconds) return done(false, state)
      return done(true, { ...state, [field]: lease } satisfies State)
    })
  }),

  /** Ends the lease at `now`, if `lease` still holds it. */
  release: Effect.fn(`${repository}.release`)(function* (lease: SingleLease, now: DateTime.Utc) {
    yield* atomically(ref, (state) => {
      const held = state[field]
      const mine =
        held !== null && held.owner === lease.owner && held.until.epochMilliseconds === lease.until.epochMilliseconds
      return done(undefined, mine ? ({ ...state, [field]: { owner: lease.owner, until: now } } satisfies State) : state)
    })
  })
})
