/**
 * `ratelock hedge …`: the policy per market pair and the orders the workers placed by it; `fill`
 * and `reject` are the trader's side of the manual venue, `simulate` arms the simulated venue's
 * next failure (a change of the venue's books in the store: an audited action too). Each acts
 * through the operator API when it is configured (`OperatorCall.ts`), else on the database.
 */
import { SimulatedHedgeVenue } from "@ratelock/adapters-store"
import { HedgeDesk, HedgeOrder, HedgePolicy, Money, OperatorActions, type SimulatedVenueControl } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import * as HostConfig from "../HostConfig.ts"
import * as HedgeFormat from "../internal/hedgeFormat.ts"
import { given, operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag, listLimitFlag } from "./SharedFlags.ts"

/** A decimal flag's text as a decimal, or the operator's error naming the flag. */
const decimalOf = (flag: string, text: string) =>
  Option.match(Money.parse(text.trim()), {
    onNone: () =>
      Effect.fail(
        new CliError.UserError({ cause: text, userMessage: `--${flag} must be a decimal such as 50000 (got ${text})` })
      ),
    onSome: Effect.succeed
  })

const hedgePolicySet = Command.make(
  "set",
  {
    environment: environmentFlag,
    pair: Flag.String("pair").pipe(Flag.withDescription("The market pair in its usual order, e.g. USD/BRL")),
    targetRatio: Flag.String("target-ratio").pipe(
      Flag.withDescription("The share of the delta to hedge, 0 to 1 (default 1)"),
      Flag.optional
    ),
    band: Flag.String("band").pipe(
      Flag.withDescription("BASE units the position may stray from its target before an order is placed")
    ),
    instrument: Flag.Literals("instrument", ["spot", "forward"] as const).pipe(
      Flag.withDescription("spot (value in two business days) or forward (value in --value-days)")
    ),
    valueDays: Flag.Int("value-days").pipe(Flag.withDescription("A forward's calendar days to value"), Flag.optional),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const band = yield* decimalOf("band", input.band)
      const targetRatio = Option.isSome(input.targetRatio)
        ? yield* decimalOf("target-ratio", input.targetRatio.value)
        : undefined
      const valueDays = Option.getOrUndefined(input.valueDays)
      const policy = yield* operatorCall(
        Effect.map(
          OperatorActions.setHedgePolicy({
            environment: input.environment,
            pair: input.pair,
            targetRatio,
            band,
            instrument: input.instrument,
            valueDays
          }),
          HedgePolicy.view
        ),
        (api) =>
          api.desk.setHedgePolicy({
            payload: {
              environment: input.environment,
              pair: input.pair,
              ...(targetRatio === undefined ? {} : { target_ratio: Money.format(targetRatio) }),
              band: Money.format(band),
              instrument: input.instrument,
              ...(valueDays === undefined ? {} : { value_days: valueDays })
            }
          })
      )
      yield* print(input.json, policy, HedgeFormat.policySet)
    })
).pipe(
  Command.withDescription("Create or replace the hedge policy of a market pair in an environment"),
  Command.withExamples([
    {
      command:
        "ratelock hedge policy set --environment production --pair USD/BRL --target-ratio 1 --band 50000 --instrument spot",
      description: "Keep USD/BRL's position within 50,000 USD of the whole delta, with spot orders"
    }
  ])
)

const hedgePolicyShow = Command.make(
  "show",
  {
    environment: environmentFlag.pipe(Flag.optional),
    json: jsonFlag
  },
  (input) => {
    const environment = Option.getOrUndefined(input.environment)
    return operatorCall(
      Effect.map(HedgeDesk.policies(environment), (list) => ({ items: list.map(HedgeDesk.statusView) })),
      (api) => api.desk.hedgePolicies({ query: given({ environment }) })
    ).pipe(Effect.flatMap((shown) => print(input.json, shown, HedgeFormat.policies)))
  }
).pipe(Command.withDescription("The hedge policies, with each pair's position and the order it waits on"))

const hedgePolicy = Command.make("policy").pipe(
  Command.withDescription("How each market pair is hedged"),
  Command.withSubcommands([hedgePolicySet, hedgePolicyShow])
)

const hedgeOrders = Command.make(
  "orders",
  {
    environment: environmentFlag.pipe(Flag.optional),
    status: Flag.Literals("status", ["pending", "intended", "sent", "filled", "rejected"] as const).pipe(
      Flag.withDescription("Only these: pending is every order waiting for an outcome (intended or sent)"),
      Flag.optional
    ),
    limit: listLimitFlag,
    json: jsonFlag
  },
  (input) => {
    const query = {
      environment: Option.getOrUndefined(input.environment),
      status: Option.getOrUndefined(input.status),
      limit: input.limit
    }
    return operatorCall(
      Effect.map(HedgeDesk.orders(query), (list) => ({ items: list.map(HedgeOrder.view) })),
      (api) =>
        api.operator.hedgeOrders({
          query: given(query)
        })
    ).pipe(Effect.flatMap((shown) => print(input.json, shown, HedgeFormat.orders)))
  }
).pipe(Command.withDescription("Hedge orders, newest first"))

const orderArgument = Argument.String("order_id").pipe(Argument.withDescription("The hedge order's id"))

const overrideVenueFlag = Flag.Boolean("override-venue").pipe(
  Flag.withDescription(
    "The order went to another venue than manual (left there when the host changed venue): record the outcome confirmed at that venue"
  ),
  Flag.withDefault(false)
)

const hedgeFill = Command.make(
  "fill",
  {
    order: orderArgument,
    rate: Flag.String("rate").pipe(Flag.withDescription("The rate filled at, QUOTE per BASE")),
    amount: Flag.String("amount").pipe(
      Flag.withDescription("BASE units filled, at most the order's (default: all of it)"),
      Flag.optional
    ),
    overrideVenue: overrideVenueFlag,
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const rate = yield* decimalOf("rate", input.rate)
      const amount = Option.isSome(input.amount) ? yield* decimalOf("amount", input.amount.value) : undefined
      const order = yield* operatorCall(
        Effect.map(
          OperatorActions.fillHedgeOrder(input.order, rate, amount, { overrideVenue: input.overrideVenue }),
          HedgeOrder.view
        ),
        (api) =>
          api.desk.fillHedgeOrder({
            params: { order_id: input.order },
            headers: {},
            payload: {
              rate: Money.format(rate),
              ...(amount === undefined ? {} : { amount: Money.format(amount) }),
              ...(input.overrideVenue ? { override_venue: true } : {})
            }
          })
      )
      yield* print(input.json, order, HedgeFormat.filled)
    })
).pipe(Command.withDescription("Record a trader's fill of a manual hedge order (the rest is decided anew)"))

const hedgeReject = Command.make(
  "reject",
  {
    order: orderArgument,
    reason: Flag.String("reason").pipe(Flag.withDescription("Why the order was not executed")),
    overrideVenue: overrideVenueFlag,
    json: jsonFlag
  },
  (input) =>
    operatorCall(
      Effect.map(
        OperatorActions.rejectHedgeOrder(input.order, input.reason, { overrideVenue: input.overrideVenue }),
        HedgeOrder.view
      ),
      (api) =>
        api.desk.rejectHedgeOrder({
          params: { order_id: input.order },
          headers: {},
          payload: { reason: input.reason, ...(input.overrideVenue ? { override_venue: true } : {}) }
        })
    ).pipe(Effect.flatMap((order) => print(input.json, order, HedgeFormat.rejected)))
).pipe(Command.withDescription("Record that a manual hedge order was not executed; the next pass decides anew"))

const hedgeSimulate = Command.make(
  "simulate",
  {
    rejectNext: Flag.Boolean("reject-next").pipe(
      Flag.withDescription("The simulated venue rejects the next new order"),
      Flag.withDefault(false)
    ),
    timeoutNext: Flag.Boolean("timeout-next").pipe(
      Flag.withDescription("The simulated venue fills the next new order but answers with a timeout"),
      Flag.withDefault(false)
    ),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      if (input.rejectNext === input.timeoutNext) {
        return yield* new CliError.UserError({
          cause: input,
          userMessage: "Give exactly one of --reject-next and --timeout-next"
        })
      }
      const action: SimulatedVenueControl.Action = input.rejectNext ? "reject" : "timeout"
      const armed = yield* operatorCall(
        // on the database: the venue's books there, and where this deployment's settings send orders
        Effect.flatMap(HostConfig.settings, (settings) =>
          OperatorActions.armSimulatedVenue(action).pipe(
            Effect.as({ armed: action, hedging: settings.hedging }),
            Effect.provide(SimulatedHedgeVenue.layerSqlControl)
          )
        ),
        (api) => api.desk.armSimulatedVenue({ headers: {}, payload: { action } })
      )
      yield* print(input.json, armed, HedgeFormat.armed)
    })
).pipe(Command.withDescription("Tell the simulated hedge venue to reject, or to time out, the next new order"))

export const hedge = Command.make("hedge").pipe(
  Command.withDescription("Hedging the book: policies per market pair, orders, the manual desk, the simulated venue"),
  Command.withSubcommands([hedgePolicy, hedgeOrders, hedgeFill, hedgeReject, hedgeSimulate])
)
