/**
 * Where a command acts. With `RATELOCK_OPERATOR_URL` and `RATELOCK_OPERATOR_TOKEN` set, through the
 * operator API, as the token's operator and within its role (the server writes the audit record);
 * otherwise straight on the database (`onStore`), as `cli:<OS user>@<host>` (for the first token of
 * a new deployment, and on a machine with the database at hand). Either way the command gets the
 * same JSON (the route's answer is what `--json` prints) and prints it the same way; a refusal
 * reads the same, its message being core's in both.
 */
import { ApiError, type StoreError } from "@ratelock/core"
import { Config, Effect, Option, Predicate, Redacted, Schema } from "effect"
import { CliError } from "effect/cli"
import { FetchHttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { OperatorApi } from "../api/OperatorApi.ts"
import { OperatorAuth } from "../api/OperatorSecurity.ts"
import { type OnChainsServices, type OnStoreServices, onChains, onStore } from "./OnStore.ts"
import { forOperator } from "./OperatorMessage.ts"

export type OperatorClient = HttpApiClient.ForApi<typeof OperatorApi>

/** The operator API to act through, when both settings are given. */
export const apiSettings = Config.all({
  url: Config.option(Config.URL("RATELOCK_OPERATOR_URL")),
  token: Config.option(Config.Redacted("RATELOCK_OPERATOR_TOKEN"))
}).pipe(
  Config.map(({ url, token }) =>
    Option.isSome(url) && Option.isSome(token) ? Option.some({ url: url.value, token: token.value }) : Option.none()
  )
)

const isIssues = Schema.is(Schema.NonEmptyArray(ApiError.ValidationIssue))

/**
 * A 422 whose message only counts its problems (`1 invalid field`: the API's refusal of a request
 * that does not decode) with each problem's place and rule, as the operator needs them:
 * `1 invalid field: body.role: Expected OperatorRole`. A message of its own (an invalid cursor) is
 * kept as it is, the same as the command prints on the database.
 */
const withDetail = (message: string, error: object): string =>
  /^\d+ invalid fields?$/.test(message) && Predicate.hasProperty(error, "detail") && isIssues(error.detail)
    ? `${message}: ${error.detail.map((issue) => `${issue.loc.join(".")}: ${issue.msg}`).join("; ")}`
    : message

/** What the operator reads of an answer that is not a success: the envelope's message, as core wrote it. */
export const remoteMessage = (url: URL, error: unknown): string => {
  if (Predicate.hasProperty(error, "error") && Predicate.hasProperty(error.error, "message")) {
    return withDetail(String(error.error.message), error)
  }
  if (HttpClientError.isHttpClientError(error)) {
    return `Cannot reach the operator API at ${url.origin} (RATELOCK_OPERATOR_URL): ${error.message}`
  }
  return `The operator API at ${url.origin} answered what this CLI does not understand: ${String(error)}`
}

/** `call` on a client of the operator API at `url`, authenticated with `token`. */
export const throughApi = <A, E>(
  settings: { readonly url: URL; readonly token: Redacted.Redacted<string> },
  call: (client: OperatorClient) => Effect.Effect<A, E>
): Effect.Effect<A, CliError.UserError> =>
  HttpApiClient.make(OperatorApi, { baseUrl: settings.url.origin }).pipe(
    Effect.flatMap(call),
    Effect.provide(
      HttpApiMiddleware.layerClient(OperatorAuth, ({ next, request }) =>
        next(HttpClientRequest.bearerToken(request, Redacted.value(settings.token)))
      )
    ),
    Effect.provide(FetchHttpClient.layer),
    Effect.mapError((error) =>
      // a command that already worded the answer for the operator (a refused document) keeps its words
      error instanceof CliError.UserError
        ? error
        : new CliError.UserError({ cause: error, userMessage: remoteMessage(settings.url, error) })
    )
  )

/** `A` with each field that may be undefined optional instead. */
type Given<A> = { [K in keyof A as undefined extends A[K] ? never : K]: A[K] } & {
  [K in keyof A as undefined extends A[K] ? K : never]?: Exclude<A[K], undefined>
}

/** A query or a body without its absent fields: the client sends only what was given. */
export const given = <A extends Record<string, unknown>>(fields: A) =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Given<A>

/** `onDatabase`, unless the operator API is configured: then `remote` through it. */
const either = <A, R, ER>(
  onDatabase: Effect.Effect<A, CliError.UserError, R>,
  remote: (client: OperatorClient) => Effect.Effect<A, ER>
) =>
  Effect.flatMap(forOperator(apiSettings), (settings) =>
    Option.match(settings, { onNone: () => onDatabase, onSome: (api) => throughApi(api, remote) })
  )

/**
 * A command's action: `remote` through the operator API when it is configured, else `local` on the
 * database. Both give the JSON the command prints.
 */
export const operatorCall = <A, E, R extends OnStoreServices, ER>(
  local: Effect.Effect<A, E | StoreError.StoreError, R>,
  remote: (client: OperatorClient) => Effect.Effect<A, ER>
) => either(onStore(local), remote)

/** `operatorCall` for an action that needs the chains on the database (a refund, a payout's bump). */
export const operatorCallOnChains = <A, E, R extends OnChainsServices, ER>(
  local: Effect.Effect<A, E | StoreError.StoreError, R>,
  remote: (client: OperatorClient) => Effect.Effect<A, ER>
) => either(onChains(local), remote)
