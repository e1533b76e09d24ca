/**
 * Most commands are one program of core on the database the server uses (`DATABASE_URL`, else
 * the embedded one in `RATELOCK_DATA_DIR`, which must not be open in a running server).
 */
import { type MarketData, OperatorActor, Reconciliation, type StoreError, Sweeps, Treasury } from "@ratelock/core"
import { Effect, Layer } from "effect"
import type { CliError } from "effect/cli"
import * as Chains from "../Chains.ts"
import * as HostConfig from "../HostConfig.ts"
import * as MarketInForce from "../MarketInForce.ts"
import * as Services from "../Services.ts"
import * as Store from "../Store.ts"
import { hostname, userInfo } from "node:os"
import { forOperator } from "./OperatorMessage.ts"

/** Who acts on the database, for the audit log: `cli:<OS user>@<host>`. */
export const cliActor = () => OperatorActor.cli(userInfo().username, hostname())

const actorLayer = Layer.sync(OperatorActor.OperatorActor, cliActor)

/**
 * What a program run `onStore` may use: the repositories, the market data in force (as the server reads it), the
 * host's services, and the CLI's actor.
 */
export type OnStoreServices =
  | Layer.Success<ReturnType<typeof Store.layer>>
  | MarketData.MarketData
  | Layer.Success<typeof Services.layer>
  | OperatorActor.OperatorActor

/** The store with the market data in force on it. */
const storeLayer = (settings: HostConfig.Settings) =>
  MarketInForce.layer({ maxAge: settings.marketMaxAge }).pipe(Layer.provideMerge(Store.layer(settings)))

/** Runs `program` on the configured store, which is closed (and its lock released) afterwards. */
export const onStore = <A, E, R extends OnStoreServices>(
  program: Effect.Effect<A, E | StoreError.StoreError, R>
): Effect.Effect<A, CliError.UserError, Exclude<R, OnStoreServices>> =>
  forOperator(
    Effect.flatMap(HostConfig.settings, (settings) =>
      Effect.provide(program, Layer.mergeAll(storeLayer(settings), Services.layer, actorLayer)).pipe(
        Effect.provide(treasurySettings(settings))
      )
    )
  )

/** The hot wallets' thresholds and the sweeps' settings, for what the treasury and the status say of them. */
const treasurySettings = (settings: HostConfig.Settings) =>
  Layer.mergeAll(
    Layer.succeed(Treasury.Thresholds, settings.hotWalletMinimums),
    Layer.succeed(Sweeps.SweepSettings, settings.sweeps),
    Layer.succeed(Reconciliation.Interval, settings.reconcileInterval)
  )

/** `onStore` with the chains too (`ChainGateway`), configured as the server's: to ask or send on chain. */
export type OnChainsServices = OnStoreServices | Layer.Success<ReturnType<typeof Chains.layer>>

export const onChains = <A, E, R extends OnChainsServices>(
  program: Effect.Effect<A, E | StoreError.StoreError, R>
): Effect.Effect<A, CliError.UserError, Exclude<R, OnChainsServices>> =>
  forOperator(
    Effect.flatMap(HostConfig.settings, (settings) =>
      Effect.provide(
        program,
        Chains.layer(settings).pipe(
          Layer.provideMerge(Layer.mergeAll(storeLayer(settings), Services.layer, actorLayer))
        )
      ).pipe(Effect.provide(treasurySettings(settings)))
    )
  )
