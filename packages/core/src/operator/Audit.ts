/**
 * The audit log's programs. `act` runs an operator's action and writes its one audit record in the
 * same store transaction as the change: who (`OperatorActor`), the action and its target, what
 * changed (before and after), and the outcome. A refusal (a rule of the service said no) and a
 * failure are recorded too, on their own, once the change was rolled back; the host records a
 * role's refusal (403) with `forbidden`. Every action is counted in
 * `ratelock_operator_actions_total` (`action`, `outcome`).
 *
 * No secret is ever written: each action says what of its result is recorded, and every key
 * naming a secret or a token is dropped from what is written whatever the action says.
 */
import { BigDecimal, Cause, DateTime, Effect, Option, Ref } from "effect"
import * as AuditedChange from "../kernel/AuditedChange.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as Money from "../kernel/Money.ts"
import { StoreTransaction } from "../kernel/StoreTransaction.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import * as Metrics from "../lifecycle/Metrics.ts"
import { type AuditOutcome, type AuditRecord, AuditRepo } from "./AuditRepo.ts"
import { OperatorActor } from "./OperatorActor.ts"
import type { OperatorRole } from "./OperatorRole.ts"

export interface Target {
  /** `partner`, `api_key`, `corridor`, `hedge_order`, `contract`, … */
  readonly kind: string
  readonly id: string | null
}

export interface Action<A, R = never> {
  /** `<concept>.<verb>`: `limits.set`, `partner.create`, … */
  readonly action: string
  readonly target: Target
  /** The target once the action is done, when only its result names it (a new partner's id). */
  readonly targetOf?: ((result: A) => Target) | undefined
  /** What the target was, read in the transaction before the change. */
  readonly before?: Effect.Effect<unknown, StoreError, R> | undefined
  /** What of the result is recorded as the target after the change (never a secret). */
  readonly after?: ((result: A) => unknown) | undefined
  /**
   * The program stores its change with `AuditedChange.commit` and then acts on the world (a
   * payout's bump is broadcast): the record is written with that statement, not around the program.
   */
  readonly external?: boolean | undefined
}

/** A key whose value is never written: secrets, and tokens (a token's id is fine). */
export const isSecretKey = (key: string): boolean => /secret|password/i.test(key) || key === "token"

/**
 * `value` as JSON for a record: exact decimals as strings (`Money.format`), instants in ISO, and
 * every secret's key dropped, however deep.
 */
export const recorded = (value: unknown): AuditRecord["after"] => {
  if (value === undefined || value === null) return null
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string) {
    if (key !== "" && isSecretKey(key)) return undefined
    const original = this[key]
    if (BigDecimal.isBigDecimal(original)) return Money.format(original)
    if (DateTime.isDateTime(original)) return DateTime.formatIso(DateTime.toUtc(original))
    return original
  })
  return text === undefined ? null : JSON.parse(text)
}

/** A failure's code and message, as the record's reason: `invalid_fill: the rate must be above 0`. */
const reasonOf = (error: unknown): string => {
  const e = error as {
    readonly _tag?: string
    readonly reason?: unknown
    readonly code?: unknown
    readonly message?: unknown
  }
  const code = typeof e.reason === "string" ? e.reason : typeof e.code === "string" ? e.code : (e._tag ?? "error")
  return typeof e.message === "string" && e.message !== "" ? `${code}: ${e.message}` : code
}

const write = Effect.fnUntraced(function* (
  spec: { readonly action: string; readonly target: Target },
  outcome: AuditOutcome,
  detail: { readonly reason?: string | null; readonly before?: unknown; readonly after?: unknown }
) {
  const actor = yield* OperatorActor
  const record: AuditRecord = {
    id: yield* (yield* IdGenerator).uuid,
    at: yield* DateTime.now,
    via: actor.via,
    actor: actor.name,
    tokenId: actor.tokenId,
    role: actor.role,
    action: spec.action,
    targetKind: spec.target.kind,
    targetId: spec.target.id,
    outcome,
    reason: detail.reason ?? null,
    before: recorded(detail.before),
    after: recorded(detail.after),
    requestId: actor.requestId,
    traceId: actor.traceId,
    clientAddress: actor.clientAddress
  }
  yield* (yield* AuditRepo).append(record)
  return record
})

/** A refusal or failure, written on its own; a store that cannot write it leaves the failure as it was. */
const recordFailure = (spec: { readonly action: string; readonly target: Target }, cause: Cause.Cause<unknown>) => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.void
  const error = Cause.findErrorOption(cause)
  const stored = Option.isSome(error) && (error.value as { _tag?: string })._tag !== "StoreError"
  const outcome: AuditOutcome = stored ? "refused" : "failed"
  const reason = Option.isSome(error) ? reasonOf(error.value) : "internal: the service failed"
  return write(spec, outcome, { reason }).pipe(
    Effect.andThen(Metrics.operatorAction(spec.action, outcome)),
    Effect.catchCause((c) => Effect.logWarning(`audit: the ${outcome} record of ${spec.action} was not written`, c))
  )
}

/**
 * Runs `program`, the operator's action `spec`, with its audit record in the same transaction as
 * its change (with `external`, in the transaction of the statement the program commits through
 * `AuditedChange.commit`). A refusal or a failure is recorded after, on its own, unless the change
 * was committed already (an external action failing after it: the change stands, recorded once).
 */
export const act = <A, E, R, RB = never>(
  spec: Action<A, RB>,
  program: Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreError, R | RB | OperatorActor | AuditRepo | StoreTransaction | IdGenerator> =>
  Effect.gen(function* () {
    const transaction = yield* StoreTransaction
    const committed = yield* Ref.make(false)
    const after = (result: A) => (spec.after === undefined ? null : spec.after(result))
    const done = (result: A) => ({ action: spec.action, target: spec.targetOf?.(result) ?? spec.target })
    const run: Effect.Effect<A, E | StoreError, R | RB | OperatorActor | AuditRepo | IdGenerator> =
      spec.external !== true
        ? transaction.run(
            Effect.gen(function* () {
              const before = spec.before === undefined ? null : yield* spec.before
              const result = yield* program
              yield* write(done(result), "ok", { before, after: after(result) })
              return result
            })
          )
        : Effect.gen(function* () {
            const before = spec.before === undefined ? null : yield* spec.before
            const context = yield* Effect.context<OperatorActor | AuditRepo | IdGenerator>()
            const hook: AuditedChange.AuditedChangeShape = {
              commit: <B, EB, RC>(change: Effect.Effect<B, EB, RC>, changed: (value: B) => Option.Option<unknown>) =>
                Effect.gen(function* () {
                  let recorded = false
                  const value = yield* transaction.run(
                    Effect.tap(change, (value) =>
                      Option.match(changed(value), {
                        onNone: () => Effect.void,
                        onSome: (what) =>
                          write(spec, "ok", { before, after: what }).pipe(
                            Effect.andThen(
                              Effect.sync(() => {
                                recorded = true
                              })
                            ),
                            Effect.provideContext(context)
                          )
                      })
                    )
                  )
                  // only once the transaction committed: a rolled back record is no record
                  if (recorded) yield* Ref.set(committed, true)
                  return value
                })
            }
            const result = yield* Effect.provideService(program, AuditedChange.AuditedChange, hook)
            if (!(yield* Ref.get(committed))) yield* write(done(result), "ok", { before, after: after(result) })
            return result
          })
    return yield* run.pipe(
      Effect.tap(() => Metrics.operatorAction(spec.action, "ok")),
      Effect.tapCause((cause) =>
        Effect.flatMap(Ref.get(committed), (changed) =>
          changed ? Metrics.operatorAction(spec.action, "ok") : recordFailure(spec, cause)
        )
      )
    )
  })

/** The host's record of an action the token's role does not allow (the 403 it answers). */
export const forbidden = Effect.fn("Audit.forbidden")(function* (
  spec: { readonly action: string; readonly target: Target },
  needed: OperatorRole
) {
  yield* write(spec, "forbidden", { reason: `forbidden: needs the ${needed} role` })
  yield* Metrics.operatorAction(spec.action, "forbidden")
})
