/**
 * Operators by name and role, and the audit log read back: the operator API's access routes over
 * real sockets (the operator listener in process, over the embedded Postgres), then the CLI as an
 * operator runs it, on the database and through a running service.
 *
 * A token of each role is made through the API (its secret in the first answer only: a replay
 * under the same Idempotency-Key answers it null), reaches what its role allows and is refused,
 * and recorded, above it; an expired token (written through the store with its expiry passed) and
 * a revoked one answer 401; the list shows a token's last use once it was used. The audit route
 * pages newest first with no record missed or repeated, even while records are written between
 * pages, filters by actor, action, target and instant exactly as the whole log would, refuses a bad
 * cursor or query with 422 naming its field as the partner API's lists do, never answers a 5xx to
 * bad input, and holds no token's secret. The CLI makes a token of each role on the database and
 * through the API, and its token and audit commands print in API mode what they print on the
 * database.
 */
import { assert, describe, layer } from "@effect/vitest"
import { ApiKeySecret, IdGenerator, OperatorRole, OperatorTokenRepo, OperatorTokens, Treasury } from "@ratelock/core"
import { DateTime, Duration, Effect, Layer } from "effect"
import { afterAll, it as plainIt } from "vitest"
import { apiMode, normalized } from "./support/apiMode.ts"
import { assertInvalid, newKey, type Reply, request } from "./support/http.ts"
import * as Operator from "./support/operator.ts"
import { cli, cliWith, removeTempDirs, tempDataDir } from "./support/process.ts"
import { layer as serverLayer } from "./support/server.ts"

afterAll(removeTempDirs)

const both = Operator.layer.pipe(
  Layer.provide(Layer.succeed(Treasury.Thresholds, {})),
  Layer.provideMerge(serverLayer())
)

/** A call to the operator listener with `token` (the test's admin token unless given). */
const call = (
  method: string,
  path: string,
  options: { readonly token?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {}
) =>
  Effect.flatMap(Operator.Operator, ({ url, token }) =>
    request(url, method, path, {
      headers: { ...Operator.bearer(options.token ?? token), ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body })
    })
  )

const isUnauthorized = (reply: Reply, what: string) => {
  assert.strictEqual(reply.status, 401, what)
  assert.strictEqual(reply.json.error.code, "unauthorized", what)
}

/** A refusal of bad input: a 4xx with the envelope, never a 5xx. */
const isRefused = (reply: Reply, status: number, code: string, what: string) => {
  assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
  assert.strictEqual(reply.json.error.code, code, what)
}

const createdKeys = ["token_id", "name", "role", "created_at", "expires_at", "token"]
const listedKeys = ["token_id", "name", "role", "created_at", "expires_at", "revoked_at", "last_used_at"]
const entryKeys = [
  "id",
  "at",
  "via",
  "actor",
  "token_id",
  "role",
  "action",
  "target_kind",
  "target_id",
  "outcome",
  "reason",
  "before",
  "after",
  "request_id",
  "trace_id",
  "client_address"
]

interface Entry {
  readonly id: string
  readonly at: string
  readonly actor: string
  readonly action: string
  readonly target_id: string | null
  readonly outcome: string
  // biome-ignore lint/suspicious/noExplicitAny: the rest is inspected field by field
  readonly [key: string]: any
}

/** The whole log as the route answers it (one page of up to 1,000). */
const wholeLog = Effect.map(call("GET", "/operator/v1/audit?limit=1000"), (reply) => {
  assert.strictEqual(reply.status, 200, reply.text)
  assert.isNull(reply.json.next_cursor, "the log fits one page")
  return reply.json.items as ReadonlyArray<Entry>
})

/** Every page of `query`, `limit` at a time, following the cursors to the end. */
const allPages = (query: string, limit: number) =>
  Effect.gen(function* () {
    const pages: Array<ReadonlyArray<Entry>> = []
    let cursor: string | null = null
    do {
      const path: string = `/operator/v1/audit?${query}${query === "" ? "" : "&"}limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`
      const reply = yield* call("GET", path)
      assert.strictEqual(reply.status, 200, reply.text)
      assert.isAtMost(reply.json.items.length, limit)
      pages.push(reply.json.items)
      cursor = reply.json.next_cursor
    } while (cursor !== null)
    return pages
  })

const ids = (entries: ReadonlyArray<Entry>) => entries.map((e) => e.id)

/** Newest first: `at` descending, then `id` descending. */
const newestFirst = (entries: ReadonlyArray<Entry>) =>
  entries.every((e, i) => {
    const next = entries[i + 1]
    return next === undefined || e.at > next.at || (e.at === next.at && e.id > next.id)
  })

/** Makes a token through the API with the test's admin token. */
const makeToken = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  Effect.map(call("POST", "/operator/v1/tokens", { body, headers }), (reply) => {
    assert.strictEqual(reply.status, 201, reply.text)
    return reply.json as OperatorTokens.CreatedToken
  })

layer(both, { excludeTestServices: true, timeout: "180 seconds" })("operator access over the operator API", (it) => {
  describe("tokens", () => {
    it.effect("an admin makes a token of each role; each reaches what its role allows, and a refusal is recorded", () =>
      Effect.gen(function* () {
        for (const role of OperatorRole.roles) {
          const key = newKey()
          const body = { name: `api-${role}`, role, expires_in: "30d" }
          const made = yield* call("POST", "/operator/v1/tokens", { body, headers: { "Idempotency-Key": key } })
          assert.strictEqual(made.status, 201, made.text)
          assert.deepStrictEqual(Object.keys(made.json), createdKeys)
          assert.deepInclude(made.json, { name: `api-${role}`, role })
          assert.match(made.json.token, /^rlop_[A-Za-z0-9_-]{43}$/)
          assert.strictEqual(Date.parse(made.json.expires_at) - Date.parse(made.json.created_at), 30 * 86_400_000)
          // the same request again is the same token, its secret not kept for the replay
          const replay = yield* call("POST", "/operator/v1/tokens", { body, headers: { "Idempotency-Key": key } })
          assert.strictEqual(replay.status, 201)
          assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
          assert.deepStrictEqual(replay.json, { ...made.json, token: null })

          const token = made.json.token as string
          assert.strictEqual((yield* call("GET", "/operator/v1/status", { token })).status, 200, role)
          assert.strictEqual((yield* call("GET", "/operator/v1/audit", { token })).status, 200, role)
          const listing = yield* call("GET", "/operator/v1/tokens", { token })
          const making = yield* call("POST", "/operator/v1/tokens", { token, body: { name: "x", role: "viewer" } })
          if (role === "admin") {
            assert.strictEqual(listing.status, 200)
            assert.strictEqual(making.status, 201)
            continue
          }
          for (const refused of [listing, making]) {
            assert.strictEqual(refused.status, 403, role)
            assert.deepStrictEqual(refused.json, {
              error: {
                code: "forbidden",
                message: `This route needs the admin role; the token "api-${role}" has the ${role} role`,
                required_role: "admin"
              }
            })
          }
          // the refused creation is in the log: who, under which role, from where, and why
          const recorded = yield* call("GET", `/operator/v1/audit?actor=api-${role}&action=operator.token.create`)
          assert.strictEqual(recorded.json.items.length, 1)
          const [entry] = recorded.json.items
          assert.deepStrictEqual(Object.keys(entry), entryKeys)
          assert.deepInclude(entry, {
            via: "api",
            actor: `api-${role}`,
            token_id: made.json.token_id,
            role,
            action: "operator.token.create",
            target_kind: "operator_token",
            target_id: null,
            outcome: "forbidden",
            reason: "forbidden: needs the admin role",
            before: null,
            after: null
          })
          assert.isString(entry.request_id)
          assert.isString(entry.client_address)
        }
        // what the admin made is recorded with its outcome, the token's name, role and expiry, never its secret
        const made = yield* call("GET", "/operator/v1/audit?actor=tests&action=operator.token.create&limit=4")
        assert.deepStrictEqual(
          made.json.items.map((e: Entry) => [e.outcome, e.role, e.after.name, e.after.role, e.after.token_issued]),
          OperatorRole.roles.map((role) => ["ok", "admin", `api-${role}`, role, true]).reverse()
        )
      })
    )

    it.effect(
      "a token that cannot be made: 422 naming the field when the request does not decode, or the rule it breaks, never a 500",
      () =>
        Effect.gen(function* () {
          const before = (yield* call("GET", "/operator/v1/tokens")).json.items.length
          // what the route's schema refuses: 422 validation_error, each field named as on the partner API
          const unreadable: ReadonlyArray<[unknown, ReadonlyArray<string>]> = [
            [{ name: "root", role: "root" }, ["body.role:enum"]],
            [{ name: "no role" }, ["body.role:missing"]],
            [{ name: "later", role: "viewer", scope: "all" }, ["body.scope:extra_forbidden"]],
            ["not json", ["body:json_invalid"]],
            ["[1,2]", ["body:dict_type"]]
          ]
          for (const [body, fields] of unreadable) {
            assertInvalid(yield* call("POST", "/operator/v1/tokens", { body }), fields, JSON.stringify(body))
          }
          // what core refuses: 422 with its code and message
          const refusals: ReadonlyArray<[unknown, string, string]> = [
            [{ name: "", role: "viewer" }, "invalid_name", "a token name is 1 to 100 characters"],
            [{ name: "x".repeat(101), role: "viewer" }, "invalid_name", "a token name is 1 to 100 characters"],
            [{ name: "nul\u0000", role: "viewer" }, "invalid_name", "a token name has no control characters"],
            [{ name: "line\nbreak", role: "viewer" }, "invalid_name", "a token name has no control characters"],
            [
              { name: "later", role: "viewer", expires_in: "forever" },
              "invalid_expiry",
              "expires-in is a whole number"
            ],
            [{ name: "later", role: "viewer", expires_in: "0d" }, "invalid_expiry", "expires-in is a whole number"],
            [{ name: "later", role: "viewer", expires_in: "3661d" }, "invalid_expiry", "at most 10 years"]
          ]
          for (const [body, code, message] of refusals) {
            const reply = yield* call("POST", "/operator/v1/tokens", { body })
            isRefused(reply, 422, code, JSON.stringify(body))
            assert.include(reply.json.error.message, message)
          }
          assert.strictEqual((yield* call("GET", "/operator/v1/tokens")).json.items.length, before, "nothing made")
        })
    )

    it.effect("an expired token and a revoked one answer 401; a revocation stands; an unknown id is 404", () =>
      Effect.gen(function* () {
        // written through the store, its expiry a second ago
        const now = yield* DateTime.now
        const secret = `${OperatorTokens.tokenPrefix}${"e".repeat(43)}`
        const expired: OperatorTokenRepo.OperatorTokenRecord = {
          id: yield* (yield* IdGenerator.IdGenerator).uuid,
          name: "expired",
          secretHash: yield* ApiKeySecret.hashSecret(secret),
          role: "admin",
          createdAt: DateTime.subtractDuration(now, Duration.days(30)),
          expiresAt: DateTime.subtractDuration(now, Duration.seconds(1)),
          revokedAt: null,
          lastUsedAt: null
        }
        const tokens = yield* OperatorTokenRepo.OperatorTokenRepo
        yield* tokens.insert(expired)
        // the same record an hour from its expiry works: only the expiry refuses the other
        const liveSecret = `${OperatorTokens.tokenPrefix}${"l".repeat(43)}`
        yield* tokens.insert({
          ...expired,
          id: yield* (yield* IdGenerator.IdGenerator).uuid,
          name: "not yet expired",
          secretHash: yield* ApiKeySecret.hashSecret(liveSecret),
          expiresAt: DateTime.addDuration(now, Duration.hours(1))
        })
        assert.strictEqual((yield* call("GET", "/operator/v1/status", { token: liveSecret })).status, 200)
        isUnauthorized(yield* call("GET", "/operator/v1/status", { token: secret }), "expired")
        isUnauthorized(yield* call("GET", "/metrics", { token: secret }), "expired")
        // one that expires in a minute works until then
        const minute = yield* makeToken({ name: "a minute", role: "viewer", expires_in: "1m" })
        assert.strictEqual(Date.parse(minute.expires_at ?? "") - Date.parse(minute.created_at), 60_000)
        assert.strictEqual((yield* call("GET", "/operator/v1/status", { token: minute.token })).status, 200)

        const doomed = yield* makeToken({ name: "to revoke", role: "risk" })
        assert.strictEqual((yield* call("GET", "/operator/v1/status", { token: doomed.token })).status, 200)
        const key = newKey()
        const revoked = yield* call("POST", `/operator/v1/tokens/${doomed.token_id}/revoke`, {
          headers: { "Idempotency-Key": key }
        })
        assert.strictEqual(revoked.status, 200, revoked.text)
        assert.deepStrictEqual(Object.keys(revoked.json), ["token_id", "name", "revoked_at", "already_revoked"])
        assert.deepInclude(revoked.json, { token_id: doomed.token_id, name: "to revoke", already_revoked: false })
        isUnauthorized(yield* call("GET", "/operator/v1/status", { token: doomed.token }), "revoked")
        isUnauthorized(yield* call("GET", "/operator/v1/audit", { token: doomed.token }), "revoked")
        const replay = yield* call("POST", `/operator/v1/tokens/${doomed.token_id}/revoke`, {
          headers: { "Idempotency-Key": key }
        })
        assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
        assert.deepStrictEqual(replay.json, revoked.json)
        const again = yield* call("POST", `/operator/v1/tokens/${doomed.token_id}/revoke`)
        assert.deepStrictEqual(again.json, { ...revoked.json, already_revoked: true })

        for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-token-id"]) {
          const unknown = yield* call("POST", `/operator/v1/tokens/${id}/revoke`)
          isRefused(unknown, 404, "token_not_found", id)
          assert.strictEqual(unknown.json.error.message, `no operator token ${id}`)
        }
        assertInvalid(yield* call("POST", "/operator/v1/tokens/%00/revoke"), ["path.token_id:value_error"], "a NUL")
        // the list says which is which
        const listed = (yield* call("GET", "/operator/v1/tokens")).json
          .items as ReadonlyArray<OperatorTokens.TokenListing>
        for (const t of listed) assert.deepStrictEqual(Object.keys(t), listedKeys)
        const find = (id: string) => listed.find((t) => t.token_id === id)
        assert.deepInclude(find(expired.id), {
          name: "expired",
          role: "admin",
          expires_at: DateTime.formatIso(expired.expiresAt!),
          revoked_at: null,
          last_used_at: null
        })
        assert.strictEqual(find(doomed.token_id)?.revoked_at, revoked.json.revoked_at)
      })
    )

    it.effect("the list shows a token's last use once it was used, and never a secret", () =>
      Effect.gen(function* () {
        const made = yield* makeToken({ name: "scraper", role: "viewer" })
        const lastUse = Effect.map(
          call("GET", "/operator/v1/tokens"),
          (reply) =>
            reply.json.items.find((t: OperatorTokens.TokenListing) => t.token_id === made.token_id).last_used_at
        )
        assert.isNull(yield* lastUse)
        const before = Date.now()
        assert.strictEqual((yield* call("GET", "/metrics", { token: made.token })).status, 200)
        const used = yield* lastUse
        assert.isString(used)
        assert.isAtLeast(Date.parse(used), before - 5)
        assert.isAtMost(Date.parse(used), Date.now())
        assert.notInclude((yield* call("GET", "/operator/v1/tokens")).text, made.token)
      })
    )
  })

  describe("the audit log", () => {
    it.effect("pages newest first with no record missed or repeated, even with records written between pages", () =>
      Effect.gen(function* () {
        const made: Array<OperatorTokens.CreatedToken> = []
        for (let i = 0; i < 12; i++) made.push(yield* makeToken({ name: `page-${i}`, role: "viewer" }))
        for (const t of made.slice(0, 3)) yield* call("POST", `/operator/v1/tokens/${t.token_id}/revoke`)

        const whole = yield* wholeLog
        assert.isAtLeast(whole.length, 15)
        assert.isTrue(newestFirst(whole), "newest first")
        for (const limit of [1, 4, 7, 1000]) {
          const pages = yield* allPages("", limit)
          assert.deepStrictEqual(ids(pages.flat()), ids(whole), `pages of ${limit}`)
          assert.strictEqual(pages.length, Math.max(1, Math.ceil(whole.length / limit)), `pages of ${limit}`)
        }
        // the first page, then records written, then the next page: it goes on where the first stopped
        const first = yield* call("GET", "/operator/v1/audit?limit=5")
        for (let i = 0; i < 3; i++) yield* makeToken({ name: `between-${i}`, role: "viewer" })
        const second = yield* call("GET", `/operator/v1/audit?limit=5&cursor=${first.json.next_cursor}`)
        assert.deepStrictEqual(ids([...first.json.items, ...second.json.items]), ids(whole.slice(0, 10)))
        // the newer records lead the next first page
        const fresh = yield* call("GET", "/operator/v1/audit?limit=3")
        assert.deepStrictEqual(
          fresh.json.items.map((e: Entry) => e.after?.name),
          ["between-2", "between-1", "between-0"]
        )
        // no token's secret anywhere in the log
        const text = JSON.stringify(yield* wholeLog)
        for (const t of made) assert.notInclude(text, t.token)
        assert.notInclude(text, "rlop_")
      })
    )

    it.effect("filters by actor, action, target and instant exactly as the whole log would, paged alike", () =>
      Effect.gen(function* () {
        const viewer = yield* makeToken({ name: "filter-viewer", role: "viewer" })
        const target = yield* makeToken({ name: "filter-target", role: "viewer" })
        yield* call("POST", `/operator/v1/tokens/${target.token_id}/revoke`)
        yield* call("POST", "/operator/v1/tokens", { token: viewer.token, body: { name: "nope", role: "admin" } })
        const whole = yield* wholeLog
        const middle = whole[Math.floor(whole.length / 2)]!
        const cases: ReadonlyArray<[string, (e: Entry) => boolean]> = [
          ["actor=tests", (e) => e.actor === "tests"],
          ["actor=filter-viewer", (e) => e.actor === "filter-viewer"],
          ["action=operator.token.revoke", (e) => e.action === "operator.token.revoke"],
          [`target=${target.token_id}`, (e) => e.target_id === target.token_id],
          [`since=${encodeURIComponent(middle.at)}`, (e) => e.at >= middle.at],
          [
            `actor=tests&action=operator.token.create&since=${encodeURIComponent(middle.at)}`,
            (e) => e.actor === "tests" && e.action === "operator.token.create" && e.at >= middle.at
          ],
          ["actor=nobody", () => false],
          ["since=2999-01-01T00:00:00Z", () => false]
        ]
        for (const [query, keep] of cases) {
          const expected = whole.filter(keep)
          const pages = yield* allPages(query, 3)
          assert.deepStrictEqual(ids(pages.flat()), ids(expected), query)
        }
        assert.deepStrictEqual(
          whole.filter((e) => e.target_id === target.token_id).map((e) => `${e.action} ${e.outcome}`),
          ["operator.token.revoke ok", "operator.token.create ok"]
        )
        assert.deepInclude(
          whole.find((e) => e.actor === "filter-viewer"),
          {
            action: "operator.token.create",
            outcome: "forbidden",
            role: "viewer"
          }
        )
        // an instant with an offset is the same instant
        const offset = new Date(Date.parse(middle.at)).toISOString().replace("Z", "+00:00")
        const same = yield* allPages(`since=${encodeURIComponent(offset)}`, 1000)
        assert.deepStrictEqual(ids(same.flat()), ids(whole.filter((e) => e.at >= middle.at)))
      })
    )

    it.effect("a bad cursor or query is a 422 naming its field, as on the partner API's lists, never a 5xx", () =>
      Effect.gen(function* () {
        const page = yield* call("GET", "/operator/v1/audit?limit=1")
        const good = page.json.next_cursor as string
        const decoded = JSON.parse(Buffer.from(good, "base64url").toString())
        const cursors = [
          "abc",
          "!!!",
          "x".repeat(300),
          // a real position written otherwise (spaces): only the canonical form decodes
          Buffer.from(JSON.stringify(decoded, null, 1)).toString("base64url"),
          Buffer.from(JSON.stringify([2, decoded[1], decoded[2]])).toString("base64url"),
          Buffer.from(JSON.stringify([1, "yesterday", decoded[2]])).toString("base64url")
        ]
        for (const cursor of cursors) {
          const reply = yield* call("GET", `/operator/v1/audit?cursor=${encodeURIComponent(cursor)}`)
          isRefused(reply, 422, "validation_error", cursor)
          assert.match(reply.json.error.message, /^Invalid cursor/)
          assert.deepStrictEqual(
            reply.json.detail.map((d: { loc: unknown; type: string }) => [d.loc, d.type]),
            [[["query", "cursor"], "value_error"]]
          )
        }
        // what the route's schema refuses: 422 validation_error naming the field, as on its other routes
        for (const [query, fields] of [
          ["limit=0", ["query.limit:greater_than_equal"]],
          ["limit=1001", ["query.limit:less_than_equal"]],
          // not a number: neither an integer nor within the bounds, both said of query.limit
          ["limit=abc", ["query.limit:value_error", "query.limit:greater_than_equal"]],
          ["limit=1.5", ["query.limit:value_error"]],
          ["since=yesterday", ["query.since:datetime_parsing"]],
          ["since=2026-02-30T00:00:00Z", ["query.since:datetime_parsing"]],
          ["since=2026-01-01T00:00:00", ["query.since:datetime_parsing"]],
          ["actor=", ["query.actor:string_too_short"]],
          [`actor=${"a".repeat(257)}`, ["query.actor:string_too_long"]],
          ["actor=%00", ["query.actor:value_error"]],
          ["action=a%00b", ["query.action:value_error"]],
          ["target=%00", ["query.target:value_error"]],
          ["limit=0&actor=%00", ["query.actor:value_error", "query.limit:greater_than_equal"]]
        ] as const) {
          assertInvalid(yield* call("GET", `/operator/v1/audit?${query}`), fields, query)
        }
        // a cursor from another filter's page still pages from its position
        assert.strictEqual((yield* call("GET", `/operator/v1/audit?actor=tests&cursor=${good}`)).status, 200)
      })
    )
  })
})

/** Each role's token made with the CLI, the same way in both modes. */
const createArgs = (role: string) => [
  "operator",
  "token",
  "create",
  "--name",
  `cli-${role}`,
  "--role",
  role,
  "--expires-in",
  "7d"
]

/** What is compared between the two modes: the token and audit commands, text and JSON. */
const readCommands: ReadonlyArray<ReadonlyArray<string>> = [
  ["operator", "token", "list"],
  ["operator", "token", "list", "--json"],
  ["audit", "list"],
  ["audit", "list", "--json"],
  ["audit", "list", "--actor", "alice"],
  ["audit", "list", "--action", "operator.token.create", "--limit", "3", "--json"]
]

/** Refused the same way whichever way the CLI acts. */
const refusals: ReadonlyArray<ReadonlyArray<string>> = [
  ["operator", "token", "revoke", "00000000-0000-4000-8000-000000000000"],
  ["operator", "token", "create", "--name", " ", "--role", "viewer"],
  ["operator", "token", "create", "--name", "soon", "--role", "viewer", "--expires-in", "forever"],
  ["audit", "list", "--cursor", "nope"],
  ["audit", "list", "--since", "yesterday"]
]

describe("the CLI on the database and through the operator API", () => {
  plainIt(
    "makes a token of each role either way, and prints the same token and audit output either way",
    {
      timeout: 900_000
    },
    async () => {
      const dataDir = tempDataDir()
      // on the database, the service not running: how a deployment gets its first tokens
      const onDatabase: Record<string, string> = {}
      for (const role of OperatorRole.roles) {
        const made = await cli(dataDir, ...createArgs(role))
        assert.strictEqual(made.code, 0, made.stderr)
        onDatabase[role] = made.stdout
      }
      const mode = await apiMode(dataDir, { name: "alice", role: "admin", env: { RATELOCK_DEMO_PARTNER: "false" } })
      const throughApi: Record<string, string> = {}
      const apiRead: Array<string> = []
      const apiRefused: Array<string> = []
      try {
        for (const role of OperatorRole.roles) {
          const made = await cliWith(dataDir, mode.env, ...createArgs(role))
          assert.strictEqual(made.code, 0, made.stderr)
          throughApi[role] = made.stdout
          assert.strictEqual(normalized(made.stdout), normalized(onDatabase[role]!), role)
          assert.include(made.stdout, `Operator token created: cli-${role} (${role}).`)
        }
        // a viewer's token, made through the API and used: it reads the log, and is refused the tokens
        const watcher = JSON.parse(
          (
            await cliWith(
              dataDir,
              mode.env,
              "operator",
              "token",
              "create",
              "--name",
              "watcher",
              "--role",
              "viewer",
              "--json"
            )
          ).stdout
        )
        assert.strictEqual(watcher.role, "viewer")
        const asWatcher = { ...mode.env, RATELOCK_OPERATOR_TOKEN: watcher.token }
        const read = await cliWith(dataDir, asWatcher, "audit", "list", "--actor", "alice", "--json")
        assert.strictEqual(read.code, 0, read.stderr)
        const denied = await cliWith(dataDir, asWatcher, "operator", "token", "list")
        assert.strictEqual(denied.code, 1)
        assert.include(denied.stderr, 'This route needs the admin role; the token "watcher" has the viewer role')

        // the tokens made on the database and through the API, each recorded with its actor
        const log = JSON.parse((await cliWith(dataDir, mode.env, "audit", "list", "--json")).stdout)
        const creations = log.items.filter((e: Entry) => e.action === "operator.token.create" && e.outcome === "ok")
        const byActor = (actor: (name: string) => boolean) =>
          creations
            .filter((e: Entry) => actor(e.actor))
            .map((e: Entry) => `${e.after.name} ${e.after.role}`)
            .reverse()
        assert.deepStrictEqual(
          byActor((name) => name.startsWith("cli:")),
          [...OperatorRole.roles.map((role) => `cli-${role} ${role}`), "alice admin"]
        )
        assert.deepStrictEqual(
          byActor((name) => name === "alice"),
          [...OperatorRole.roles.map((role) => `cli-${role} ${role}`), "watcher viewer"]
        )
        for (const e of creations.filter((c: Entry) => c.actor === "alice")) {
          assert.deepInclude(e, { via: "api", role: "admin", token_id: mode.tokenId })
        }
        const listed = JSON.parse((await cliWith(dataDir, mode.env, "operator", "token", "list", "--json")).stdout)
        assert.isString(listed.items.find((t: { name: string }) => t.name === "watcher").last_used_at, "used")
        assert.isNull(listed.items.find((t: { name: string }) => t.name === "cli-risk").last_used_at, "never used")
        assert.notInclude(JSON.stringify(log) + JSON.stringify(listed), "rlop_")

        for (const args of refusals) {
          const refused = await cliWith(dataDir, mode.env, ...args)
          assert.strictEqual(refused.code, 1, args.join(" "))
          apiRefused.push(refused.stderr)
        }
        for (const args of readCommands) {
          const shown = await cliWith(dataDir, mode.env, ...args)
          assert.strictEqual(shown.code, 0, `${args.join(" ")}: ${shown.stderr}`)
          apiRead.push(shown.stdout)
        }
      } finally {
        await mode.stop()
      }
      // the same commands on the database, the service stopped: the same output
      for (const [i, args] of readCommands.entries()) {
        const shown = await cli(dataDir, ...args)
        assert.strictEqual(shown.code, 0, `${args.join(" ")}: ${shown.stderr}`)
        assert.strictEqual(normalized(shown.stdout), normalized(apiRead[i]!), args.join(" "))
      }
      for (const [i, args] of refusals.entries()) {
        const refused = await cli(dataDir, ...args)
        assert.strictEqual(refused.code, 1, args.join(" "))
        assert.strictEqual(refused.stderr, apiRefused[i], args.join(" "))
      }
    }
  )
})
