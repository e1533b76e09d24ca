/**
 * `HotWalletRepo` in memory: one reading per environment, chain and asset, a newer one replacing
 * it, listed in the SQL statement's order.
 */
import { Effect, HashMap } from "effect"
import { HotWalletRepo } from "@ratelock/core"
import { atomically, read, type StateRef, write } from "./state.ts"

const key = (r: HotWalletRepo.HotWalletReading) => `${r.environment}|${r.chain}|${r.asset}`

export const makeHotWalletRepo = (ref: StateRef): HotWalletRepo.HotWalletRepoShape => {
  const save = Effect.fn("MemoryStore.hotWallets.save")(function* (
    readings: ReadonlyArray<HotWalletRepo.HotWalletReading>
  ) {
    return yield* atomically(ref, (state) => {
      let hotWallets = state.hotWallets
      for (const r of HotWalletRepo.latestOfEach(readings)) {
        const held = HashMap.get(hotWallets, key(r))
        if (held._tag === "Some" && held.value.readAt.epochMilliseconds > r.readAt.epochMilliseconds) continue
        hotWallets = HashMap.set(hotWallets, key(r), r)
      }
      return write({ ...state, hotWallets })
    })
  })

  const list = Effect.fn("MemoryStore.hotWallets.list")(function* () {
    return yield* read(ref, (state) => [...HashMap.values(state.hotWallets)].sort(HotWalletRepo.compare))
  })

  return HotWalletRepo.HotWalletRepo.of({ save, list })
}
