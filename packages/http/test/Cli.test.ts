/**
 * `pnpm ratelock <command>` as an operator runs it: a child process on a temporary embedded data
 * directory, one command after another on the same database: partners and their keys, refund addresses,
 * webhooks, operator tokens, the audit log, payouts, and the data directory's lock. The other areas' commands
 * have files of their own (`CliSimulate`, `CliDesk`, `CliMoney`), so the suite runs them side by side.
 */

import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import * as DataDirLock from "../src/DataDirLock.ts"
import { cli, cliJson, cliWith, removeTempDirs, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The pid of a process that has ended. */
const deadPid = () => {
  const ended = spawnSync(process.execPath, ["-e", "0"])
  return ended.pid
}

// each command is a process of its own: about a second alone, several under the full suite (a hang guard)
describe("ratelock CLI", { timeout: 300_000 }, () => {
  const dataDir = tempDataDir()

  it("migrate applies the schema once", async () => {
    const first = await cli(dataDir, "migrate")
    assert.strictEqual(first.code, 0, first.stderr)
    assert.match(
      first.stdout,
      /Applied 1_initial, 2_unmatched_transfers, 3_late_funds_watch, 4_conflict_guard, 5_funding_index_sequences, 6_checks_on_domains, 7_api_replicas, 8_sandbox_webhook_inbox, 9_market_snapshots, 10_operator_tokens, 11_event_trace_context, 12_corridor_limits, 13_hedging, 14_risk, 15_failed_deliveries, 16_revaluation_lease, 17_payout_nonces, 18_hot_wallet_readings, 19_partner_refund_addresses, 20_money_loop, 21_operator_audit, 22_daily_closes on the embedded database in /
    )
    const second = await cli(dataDir, "migrate")
    assert.match(second.stdout, /Schema up to date/)
  })

  it("partner create --json, list, key create, key revoke", async () => {
    const created = await cliJson(
      dataDir,
      "partner",
      "create",
      "--name",
      "Acme Pay",
      "--webhook-url-sandbox",
      "http://localhost:9000/hooks"
    )
    assert.match(created.partner_id, uuid)
    assert.strictEqual(created.name, "Acme Pay")
    const { sandbox, production } = created.environments
    for (const env of [sandbox, production]) {
      assert.match(env.api_key_id, uuid)
      assert.match(env.api_key_secret, /^rlk_[A-Za-z0-9_-]{43}$/)
    }
    assert.strictEqual(sandbox.webhook_url, "http://localhost:9000/hooks")
    assert.match(sandbox.webhook_secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.isNull(production.webhook_url)
    assert.isNull(production.webhook_secret)

    const listed = await cliJson(dataDir, "partner", "list")
    const acme = listed.find((p: { partner_id: string }) => p.partner_id === created.partner_id)
    assert.strictEqual(acme.name, "Acme Pay")
    assert.deepStrictEqual(acme.webhook_urls, { sandbox: "http://localhost:9000/hooks" })
    assert.sameMembers(
      acme.keys.map((k: { api_key_id: string }) => k.api_key_id),
      [sandbox.api_key_id, production.api_key_id]
    )
    // secrets are never listed
    assert.notInclude(JSON.stringify(listed), sandbox.api_key_secret)

    const key = await cliJson(dataDir, "key", "create", "--partner", created.partner_id, "--environment", "sandbox")
    assert.strictEqual(key.environment, "sandbox")
    assert.match(key.api_key_secret, /^rlk_/)

    const revoked = await cliJson(dataDir, "key", "revoke", "--key", sandbox.api_key_id)
    assert.strictEqual(revoked.already_revoked, false)
    assert.isString(revoked.revoked_at)
    const again = await cliJson(dataDir, "key", "revoke", "--key", sandbox.api_key_id)
    assert.strictEqual(again.already_revoked, true)
    assert.strictEqual(again.revoked_at, revoked.revoked_at)

    const after = await cliJson(dataDir, "partner", "list")
    const keys = after.find((p: { partner_id: string }) => p.partner_id === created.partner_id).keys
    assert.strictEqual(keys.length, 3)
    const byId = new Map(keys.map((k: { api_key_id: string }) => [k.api_key_id, k]))
    assert.strictEqual((byId.get(sandbox.api_key_id) as { revoked_at: string }).revoked_at, revoked.revoked_at)
    assert.isNull((byId.get(key.api_key_id) as { revoked_at: string | null }).revoked_at)

    const text = await cli(dataDir, "partner", "list")
    assert.include(text.stdout, `${created.partner_id}  Acme Pay`)
    assert.include(text.stdout, `revoked ${revoked.revoked_at}`)
  })

  it("partner refund-address set: checked by the chain's rule, stored as stored, replaced, listed; refusals write nothing", async () => {
    const { partner_id: partnerId } = await cliJson(dataDir, "partner", "create", "--name", "Refund Co")
    const set = (...args: ReadonlyArray<string>) => cli(dataDir, "partner", "refund-address", "set", ...args)
    const refundsOf = async () =>
      (await cliJson(dataDir, "partner", "list")).find((p: { partner_id: string }) => p.partner_id === partnerId)
        .refund_addresses
    assert.deepStrictEqual(await refundsOf(), {})

    // the sandbox's chain (simulated) checks the form a payout's destination must have; EVM is stored lowercase
    const first = await cliJson(
      dataDir,
      "partner",
      "refund-address",
      "set",
      partnerId,
      "--environment",
      "sandbox",
      "--chain",
      "polygon",
      "--address",
      "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
    )
    assert.deepInclude(first, {
      partner_id: partnerId,
      environment: "sandbox",
      chain: "polygon",
      address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
    })
    assert.isString(first.updated_at)
    const solana = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
    const text = await set(partnerId, "--environment", "sandbox", "--chain", "solana", "--address", solana)
    assert.strictEqual(text.code, 0, text.stderr)
    assert.include(text.stdout, `Refund address set for partner ${partnerId} (sandbox solana).`)
    assert.include(text.stdout, solana)
    // set again: replaced
    const again = "0xde709f2102306220921060314715629080e2fb77"
    assert.strictEqual(
      (await set(partnerId, "--environment", "sandbox", "--chain", "polygon", "--address", again)).code,
      0
    )
    const expected = { sandbox: { polygon: again, solana } }
    assert.deepStrictEqual(await refundsOf(), expected)
    const listed = await cli(dataDir, "partner", "list")
    assert.include(listed.stdout, `  refund  sandbox     polygon   ${again}`)
    assert.include(listed.stdout, `  refund  sandbox     solana    ${solana}`)

    const refusals: ReadonlyArray<
      readonly [args: ReadonlyArray<string>, message: string, extra?: Record<string, string>]
    > = [
      [
        ["00000000-0000-4000-8000-000000000000", "--environment", "sandbox", "--chain", "polygon", "--address", again],
        "no partner 00000000-0000-4000-8000-000000000000"
      ],
      [
        [partnerId, "--environment", "sandbox", "--chain", "polygon", "--address", "0xde709f21"],
        "not a polygon address (0x and 40 hex digits): 0xde709f21"
      ],
      [
        [partnerId, "--environment", "sandbox", "--chain", "solana", "--address", again],
        `not a solana address (base58 of 32 bytes): ${again}`
      ],
      // production runs on no chain here: nothing could check a production address, nor ever send to it
      [
        [partnerId, "--environment", "production", "--chain", "polygon", "--address", again],
        "polygon is not enabled for production (RATELOCK_PRODUCTION_CHAINS is empty): add polygon to RATELOCK_PRODUCTION_CHAINS"
      ],
      [
        [partnerId, "--environment", "sandbox", "--chain", "polygon", "--address", again],
        "the sandbox is off (RATELOCK_SANDBOX=false)",
        { RATELOCK_SANDBOX: "false" }
      ]
    ]
    for (const [args, message, extra] of refusals) {
      const refused = await cliWith(dataDir, extra ?? {}, "partner", "refund-address", "set", ...args)
      assert.strictEqual(refused.code, 1, args.join(" "))
      assert.include(refused.stderr, message)
    }
    const badChain = await set(partnerId, "--environment", "sandbox", "--chain", "bitcoin", "--address", again)
    assert.notStrictEqual(badChain.code, 0)
    assert.include(badChain.stderr, "bitcoin")
    assert.deepStrictEqual(await refundsOf(), expected)
  })

  it("operator token create (a role, shown once), list with role, expiry and last use, revoke once, and refusals", async () => {
    const created = await cliJson(dataDir, "operator", "token", "create", "--name", "  prometheus ", "--role", "viewer")
    assert.match(created.token_id, uuid)
    assert.deepInclude(created, { name: "prometheus", role: "viewer", expires_at: null })
    assert.match(created.token, /^rlop_[A-Za-z0-9_-]{43}$/)
    const text = await cli(
      dataDir,
      "operator",
      "token",
      "create",
      "--name",
      "alice",
      "--role",
      "trader",
      "--expires-in",
      "30d"
    )
    assert.strictEqual(text.code, 0, text.stderr)
    assert.include(text.stdout, "Operator token created: alice (trader). The token is shown only this once")
    assert.match(text.stdout, /role\s+trader\n/)
    const alice = /token\s+(rlop_\S+)/.exec(text.stdout)?.[1]
    assert.isDefined(alice)

    const listed = await cliJson(dataDir, "operator", "token", "list")
    assert.deepStrictEqual(Object.keys(listed), ["items"])
    const byName = (name: string) => listed.items.find((t: { name: string }) => t.name === name)
    assert.deepStrictEqual(Object.keys(byName("prometheus")), [
      "token_id",
      "name",
      "role",
      "created_at",
      "expires_at",
      "revoked_at",
      "last_used_at"
    ])
    assert.deepInclude(byName("prometheus"), { role: "viewer", expires_at: null, revoked_at: null, last_used_at: null })
    const aliceListed = byName("alice")
    assert.strictEqual(aliceListed.role, "trader")
    // 30 days from its creation, to the millisecond
    assert.strictEqual(Date.parse(aliceListed.expires_at) - Date.parse(aliceListed.created_at), 30 * 86_400_000)
    // the secrets are never listed (only their hashes are stored)
    const table = (await cli(dataDir, "operator", "token", "list")).stdout
    const everything = JSON.stringify(listed) + table
    assert.notInclude(everything, created.token)
    assert.notInclude(everything, alice!)
    assert.match(table, /^TOKEN_ID +NAME +ROLE +STATE +CREATED +EXPIRES +REVOKED +LAST USED$/m)
    assert.match(table, new RegExp(`^${created.token_id}  prometheus  viewer  live +\\S+ +never +- +never$`, "m"))
    assert.match(
      table,
      new RegExp(`^${aliceListed.token_id}  alice +trader  live +\\S+ +${aliceListed.expires_at}`, "m")
    )

    const revoked = await cliJson(dataDir, "operator", "token", "revoke", created.token_id)
    assert.deepInclude(revoked, { token_id: created.token_id, name: "prometheus", already_revoked: false })
    assert.isString(revoked.revoked_at)
    const again = await cliJson(dataDir, "operator", "token", "revoke", created.token_id)
    assert.deepInclude(again, { already_revoked: true, revoked_at: revoked.revoked_at })
    const after = await cli(dataDir, "operator", "token", "list")
    assert.match(
      after.stdout,
      new RegExp(`^${created.token_id}  prometheus  viewer  revoked .* ${revoked.revoked_at} `, "m")
    )

    const refusals: ReadonlyArray<[ReadonlyArray<string>, string]> = [
      [["revoke", "00000000-0000-4000-8000-000000000000"], "no operator token 00000000-0000-4000-8000-000000000000"],
      [["revoke", "not-a-token-id"], "no operator token not-a-token-id"],
      [["create", "--name", "   ", "--role", "admin"], "a token name is 1 to 100 characters"],
      [["create", "--name", "x".repeat(101), "--role", "admin"], "a token name is 1 to 100 characters"],
      [["create", "--name", "bell\u0007", "--role", "admin"], "a token name has no control characters"],
      [["create", "--name", "nobody"], "--role"],
      [["create", "--name", "nobody", "--role", "root"], "root"],
      [["create", "--name", "later", "--role", "viewer", "--expires-in", "forever"], "expires-in is a whole number"],
      [["create", "--name", "later", "--role", "viewer", "--expires-in", "4000d"], "at most 10 years"]
    ]
    for (const [args, message] of refusals) {
      const refused = await cli(dataDir, "operator", "token", ...args)
      assert.strictEqual(refused.code, 1, args.join(" "))
      assert.include(refused.stderr, message, args.join(" "))
    }
    // nothing refused was made
    assert.deepStrictEqual(
      (await cliJson(dataDir, "operator", "token", "list")).items.map((t: { name: string }) => t.name).sort(),
      ["alice", "prometheus"]
    )
  })

  it("audit list: what the CLI did on the database, newest first, as cli:<user>@<host>, filtered", async () => {
    const everything = await cliJson(dataDir, "audit", "list", "--limit", "1000")
    assert.deepStrictEqual(Object.keys(everything), ["items", "next_cursor"])
    assert.isNull(everything.next_cursor)
    const tokenActions = everything.items.filter((e: { action: string }) => e.action.startsWith("operator.token."))
    // the two tokens made, the two revocations and the refusals of an existing command's rule (not the flags')
    assert.deepStrictEqual(
      tokenActions.map((e: { action: string; outcome: string }) => `${e.action} ${e.outcome}`).reverse(),
      [
        "operator.token.create ok",
        "operator.token.create ok",
        "operator.token.revoke ok",
        "operator.token.revoke ok",
        "operator.token.revoke refused",
        "operator.token.revoke refused",
        "operator.token.create refused",
        "operator.token.create refused",
        "operator.token.create refused",
        "operator.token.create refused",
        "operator.token.create refused"
      ]
    )
    for (const e of tokenActions) {
      assert.match(e.actor, /^cli:.+@.+$/)
      assert.deepInclude(e, { via: "cli", token_id: null, role: null, request_id: null, client_address: null })
    }
    // newest first
    const instants = everything.items.map((e: { at: string }) => e.at)
    assert.deepStrictEqual([...instants].sort().reverse(), instants)
    const revokes = await cliJson(dataDir, "audit", "list", "--action", "operator.token.revoke", "--limit", "2")
    assert.lengthOf(revokes.items, 2)
    assert.isString(revokes.next_cursor)
    const older = await cliJson(
      dataDir,
      "audit",
      "list",
      "--action",
      "operator.token.revoke",
      "--cursor",
      revokes.next_cursor
    )
    assert.deepStrictEqual(
      [...revokes.items, ...older.items].map((e: { id: string }) => e.id),
      tokenActions
        .filter((e: { action: string }) => e.action === "operator.token.revoke")
        .map((e: { id: string }) => e.id)
    )
    const text = await cli(dataDir, "audit", "list", "--action", "operator.token.revoke", "--limit", "2")
    assert.match(text.stdout, /^AT +ACTOR +ROLE +ACTION +TARGET +OUTCOME +REASON$/m)
    assert.include(text.stdout, "refused  token_not_found: no operator token not-a-token-id")
    assert.include(text.stdout, `--cursor ${revokes.next_cursor}`)
    assert.strictEqual((await cli(dataDir, "audit", "list", "--actor", "nobody")).stdout.trim(), "No audit records.")
    const future = await cliJson(dataDir, "audit", "list", "--since", "2999-01-01T00:00:00Z")
    assert.deepStrictEqual(future.items, [])
    const lastHour = await cliJson(dataDir, "audit", "list", "--since", "1h", "--limit", "1000")
    assert.deepStrictEqual(lastHour.items, everything.items)
    for (const [args, message] of [
      [["--cursor", "nope"], "Invalid cursor"],
      [
        ["--since", "yesterday"],
        '--since is an instant with a zone (2026-11-21T10:00:00Z) or a time back from now (90m, 24h, 7d), not "yesterday"'
      ],
      [["--limit", "0"], "--limit is 1 to 1000, not 0"],
      [["--actor", "a".repeat(257)], "--actor is 1 to 256 characters"]
    ] as const) {
      const refused = await cli(dataDir, "audit", "list", ...args)
      assert.strictEqual(refused.code, 1, args.join(" "))
      assert.include(refused.stderr, message, args.join(" "))
    }
  })

  it("payouts: none on a new service; show, bump and cancel of a contract without one are refused", async () => {
    assert.deepStrictEqual(await cliJson(dataDir, "payouts", "list"), { items: [] })
    assert.strictEqual((await cli(dataDir, "payouts", "list", "--status", "stuck")).stdout.trim(), "No payouts.")
    const contract = "4f1c1a52-0000-4000-8000-000000000000"
    for (const command of ["show", "bump", "cancel"]) {
      const refused = await cli(dataDir, "payouts", command, contract)
      assert.notStrictEqual(refused.code, 0, command)
      assert.include(refused.stderr, `contract ${contract} has no payout`, command)
    }
    const badFilter = await cli(dataDir, "payouts", "list", "--status", "late")
    assert.notStrictEqual(badFilter.code, 0)
  })

  it("webhook set gives an environment its URL and secret", async () => {
    const created = await cliJson(dataDir, "partner", "create", "--name", "Beta Remit")
    const set = await cliJson(
      dataDir,
      "webhook",
      "set",
      "--partner",
      created.partner_id,
      "--environment",
      "production",
      "--url",
      "https://93.184.215.14/hooks"
    )
    assert.strictEqual(set.webhook_url, "https://93.184.215.14/hooks")
    assert.match(set.webhook_secret, /^whsec_/)
  })

  it("refuses unsafe webhook URLs, unknown ids and bad flags, writing nothing", async () => {
    const before = (await cliJson(dataDir, "partner", "list")).length
    const http = await cli(
      dataDir,
      "partner",
      "create",
      "--name",
      "X",
      "--webhook-url-production",
      "http://example.com/h"
    )
    assert.strictEqual(http.code, 1)
    assert.include(http.stderr, "production webhook URL http://example.com/h refused: must be https")
    const loopback = await cli(
      dataDir,
      "partner",
      "create",
      "--name",
      "X",
      "--webhook-url-production",
      "https://127.0.0.1/h"
    )
    assert.strictEqual(loopback.code, 1)
    assert.include(loopback.stderr, "loopback")
    assert.strictEqual((await cliJson(dataDir, "partner", "list")).length, before)

    const unknownKey = await cli(dataDir, "key", "revoke", "--key", "00000000-0000-4000-8000-000000000000")
    assert.strictEqual(unknownKey.code, 1)
    assert.include(unknownKey.stderr, "no API key 00000000-0000-4000-8000-000000000000")
    const unknownPartner = await cli(dataDir, "key", "create", "--partner", "nope", "--environment", "sandbox")
    assert.strictEqual(unknownPartner.code, 1)
    assert.include(unknownPartner.stderr, "no partner nope")
    const badEnvironment = await cli(dataDir, "key", "create", "--partner", "x", "--environment", "staging")
    assert.strictEqual(badEnvironment.code, 1)
    assert.include(badEnvironment.stderr, "staging")
  })

  it("judges the IPv4 address an IPv6 webhook URL carries, in partner create and webhook set", async () => {
    // each form embedding the cloud metadata address 169.254.169.254 (URL normalises the host)
    const metadata: ReadonlyArray<readonly [url: string, address: string]> = [
      ["https://[64:ff9b::a9fe:a9fe]/h", "64:ff9b::a9fe:a9fe"], // NAT64
      ["https://[2002:a9fe:a9fe::1]/h", "2002:a9fe:a9fe::1"], // 6to4
      ["https://[2001:0:4136:e378:8000:63bf:5601:5601]/h", "2001:0:4136:e378:8000:63bf:5601:5601"], // Teredo client
      ["https://[::169.254.169.254]/h", "::a9fe:a9fe"] // IPv4-compatible
    ]
    const refused = (address: string) => `${address} embeds 169.254.169.254, which is link-local (169.254.0.0/16)`

    // public IPv6, and a public IPv4 through NAT64, are accepted
    const created = await cliJson(
      dataDir,
      "partner",
      "create",
      "--name",
      "Gamma FX",
      "--webhook-url-production",
      "https://[2606:4700::1111]/hooks",
      "--webhook-url-sandbox",
      "http://[64:ff9b::8.8.8.8]/hooks"
    )
    assert.strictEqual(created.environments.production.webhook_url, "https://[2606:4700::1111]/hooks")
    assert.strictEqual(created.environments.sandbox.webhook_url, "http://[64:ff9b::808:808]/hooks")
    for (const [url, address] of metadata) {
      const result = await cli(dataDir, "partner", "create", "--name", "X", "--webhook-url-production", url)
      assert.strictEqual(result.code, 1, url)
      assert.include(result.stderr, `production webhook URL ${url} refused: ${refused(address)}`)
    }

    const set = (url: string) =>
      cli(dataDir, "webhook", "set", "--partner", created.partner_id, "--environment", "production", "--url", url)
    // and local-use NAT64 (64:ff9b:1::/48), the IPv4 address at the /48 position
    const localUseNat64 = ["https://[64:ff9b:1:a9fe:a9:fe00::]/h", "64:ff9b:1:a9fe:a9:fe00::"] as const
    for (const [url, address] of [...metadata, localUseNat64]) {
      const result = await set(url)
      assert.strictEqual(result.code, 1, url)
      assert.include(result.stderr, `production webhook URL ${url} refused: ${refused(address)}`)
    }
    // a public IPv4 through 6to4 is accepted
    const sixToFour = await set("https://[2002:808:808::1]/hooks")
    assert.strictEqual(sixToFour.code, 0, sixToFour.stderr)

    const listed: ReadonlyArray<{ name: string; webhook_urls: unknown }> = await cliJson(dataDir, "partner", "list")
    assert.notInclude(
      listed.map((p) => p.name),
      "X",
      "refused partners are not written"
    )
    assert.deepStrictEqual(listed.find((p) => p.name === "Gamma FX")?.webhook_urls, {
      sandbox: "http://[64:ff9b::808:808]/hooks",
      production: "https://[2002:808:808::1]/hooks"
    })
  })

  it("says clearly that the data directory is in use, and ignores the pid a lock file names", async () => {
    const lockFile = join(dataDir, DataDirLock.fileName)
    // a running process holds it (this test's own process stands in for the server)
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          yield* DataDirLock.acquire(dataDir)
          const refused = yield* Effect.promise(() => cli(dataDir, "partner", "list"))
          assert.strictEqual(refused.code, 1)
          assert.include(
            refused.stderr,
            `The data directory ${dataDir} is in use by another Ratelock process (pid ${process.pid})`
          )
          assert.strictEqual(refused.stdout, "")
        })
      )
    )

    // what a lock file says is no lock: a pid that has ended, or a live one that holds no lock
    for (const pid of [deadPid(), process.pid, 1]) {
      writeFileSync(lockFile, `${pid}\n`)
      const listed = await cli(dataDir, "partner", "list")
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.include(listed.stdout, "Acme Pay")
      assert.strictEqual(readFileSync(lockFile, "utf8"), "", "no holder left named after the command")
    }
  })
})
