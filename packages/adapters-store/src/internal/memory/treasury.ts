/**
 * The treasury ledger in memory: each source's booking kept once (`State.treasury`), after the
 * bookings before it, as `treasury_bookings` and `treasury_entries` on SQL.
 */
import { HashMap } from "effect"
import type { TreasuryLedger } from "@ratelock/core"
import type { State } from "./state.ts"

/**
 * The entries of each source not booked yet, booked after the others in the order given: how many
 * sources were booked now, and the state with them.
 */
export const bookEntries = (
  state: State,
  entries: ReadonlyArray<TreasuryLedger.TreasuryEntry>
): readonly [number, State] => {
  const fresh = new Map<string, Array<TreasuryLedger.TreasuryEntry>>()
  for (const e of entries) {
    if (HashMap.has(state.treasury, e.source)) continue
    fresh.set(e.source, [...(fresh.get(e.source) ?? []), e])
  }
  let seq = HashMap.size(state.treasury)
  const treasury = HashMap.mutate(state.treasury, (m) => {
    for (const [source, booked] of fresh) HashMap.set(m, source, { seq: seq++, entries: booked })
  })
  return [fresh.size, { ...state, treasury }]
}

/** Every entry booked, in booking order. */
export const allEntries = (state: State): Array<TreasuryLedger.TreasuryEntry> =>
  Array.from(HashMap.values(state.treasury))
    .sort((a, b) => a.seq - b.seq)
    .flatMap((booking) => booking.entries)
