/**
 * When the workers next have something to do: the earliest instant after `now` at which a
 * window ends, a funding deadline passes, a payout is due for another attempt or a webhook
 * delivery is due for a retry. Time is advanced from one such instant to the next, so a scenario
 * sees every retry at the moment it is scheduled, without stepping through every second.
 */
import { Contract, ContractRepo, EventRepo, type Partner, PayoutRepo, type StoreError } from "@ratelock/core"
import { DateTime, Duration, Effect, Option } from "effect"

const batch = 100
const awaitingFunds = ContractRepo.awaitingFunds
const allStatuses = Contract.ContractStatus.literals

/** Every stored contract, oldest first. */
const allContracts = Effect.gen(function* () {
  const repo = yield* ContractRepo.ContractRepo
  const all: Array<Contract.ContractRecord> = []
  for (;;) {
    const last = all.at(-1)
    const page = yield* repo.listByStatus(
      allStatuses,
      batch,
      last === undefined ? undefined : { createdAt: DateTime.formatIso(last.createdAt), id: last.id }
    )
    all.push(...page)
    if (page.length < batch) return all
  }
})

/** Every outgoing event of one partner environment that will be attempted again. */
const openEvents = Effect.fnUntraced(function* (scope: Partner.PartnerScope) {
  const repo = yield* EventRepo.EventRepo
  const open: Array<EventRepo.OutgoingEvent> = []
  let after: { readonly createdAt: string; readonly id: string } | undefined
  for (;;) {
    const page = yield* repo.list(scope, { direction: "outgoing", limit: batch, after })
    for (const view of page) {
      if (view._tag === "outgoing" && (view.event.status === "pending" || view.event.status === "retrying")) {
        open.push(view.event)
      }
    }
    const last = page.at(-1)
    if (page.length < batch || last === undefined) return open
    after = { createdAt: DateTime.formatIso(last.event.createdAt), id: last.event.id }
  }
})

/** The instant just after `at`: windows and deadlines are over once they have passed. */
const justAfter = (at: DateTime.Utc) => DateTime.addDuration(at, Duration.millis(1))

/** The instants at which something may become due, any order. */
const instants = Effect.gen(function* () {
  const contracts = yield* allContracts
  const payouts = yield* PayoutRepo.PayoutRepo
  const found: Array<DateTime.Utc> = []
  const scopes = new Map<string, Partner.PartnerScope>()
  for (const contract of contracts) {
    scopes.set(`${contract.partnerId}/${contract.environment}`, {
      partnerId: contract.partnerId,
      environment: contract.environment
    })
    if (contract.status === "active") found.push(justAfter(contract.windowEnd))
    if (awaitingFunds.includes(contract.status)) found.push(justAfter(contract.fundingDeadline))
    if (contract.status === "exercised") {
      const payout = yield* payouts.findByContract(contract.id)
      if (Option.isSome(payout) && (payout.value.status === "pending" || payout.value.status === "prepared")) {
        found.push(payout.value.nextAttemptAt)
      }
    }
  }
  for (const scope of scopes.values()) {
    for (const event of yield* openEvents(scope)) found.push(event.nextAttemptAt)
  }
  return found
})

/** The earliest instant after `now` at which a worker pass may find work. */
export const nextDue = (
  now: DateTime.Utc
): Effect.Effect<
  Option.Option<DateTime.Utc>,
  StoreError.StoreError,
  ContractRepo.ContractRepo | EventRepo.EventRepo | PayoutRepo.PayoutRepo
> =>
  Effect.map(instants, (all) =>
    all.reduce<Option.Option<DateTime.Utc>>((earliest, at) => {
      if (at.epochMilliseconds <= now.epochMilliseconds) return earliest
      return Option.isSome(earliest) && earliest.value.epochMilliseconds <= at.epochMilliseconds
        ? earliest
        : Option.some(at)
    }, Option.none())
  )
