/**
 * The sandbox's simulated chain as the host configures it: the confirmation delay
 * (`RATELOCK_SANDBOX_CONFIRM_MS`), and each contract's payout found through core's `PayoutRepo`,
 * so `POST /api/v1/sandbox/contracts/{id}/fail-next-payout` can target a payout not yet created.
 */
import type { SimulatedChain } from "@ratelock/adapters-chain"
import { PayoutRepo, type StoreError } from "@ratelock/core"
import { Effect, Option } from "effect"
import type { Settings } from "../HostConfig.ts"

/** The id of the contract's payout, once it has one. */
export const payoutIdOf = (
  contractId: string
): Effect.Effect<Option.Option<string>, StoreError.StoreError, PayoutRepo.PayoutRepo> =>
  PayoutRepo.PayoutRepo.use((repo) => repo.findByContract(contractId)).pipe(
    Effect.map(Option.map((payout) => payout.id))
  )

export const options = (
  settings: Pick<Settings, "sandboxConfirmDelay">
): SimulatedChain.Options<PayoutRepo.PayoutRepo> => ({
  confirmDelay: settings.sandboxConfirmDelay,
  payoutIdOf
})
