/**
 * `pnpm ratelock <command>` as an operator runs it: a child process on a temporary embedded data
 * directory, one command after another on the same database.
 */
import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import * as DataDirLock from "../src/DataDirLock.ts"
import { cli, cliJson, removeTempDirs, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The pid of a process that has ended. */
const deadPid = () => {
  const ended = spawnSync(process.execPath, ["-e", "0"])
  return ended.pid
}

describe("ratelock CLI", { timeout: 120_000 }, () => {
  const dataDir = tempDataDir()

  it("migrate applies the schema once", async () => {
    const first = await cli(dataDir, "migrate")
    assert.strictEqual(first.code, 0, first.stderr)
    assert.match(
      first.stdout,
      /Applied 1_initial, 2_unmatched_transfers, 3_late_funds_watch, 4_conflict_guard, 5_funding_index_sequences, 6_checks_on_domains, 7_api_replicas, 8_sandbox_webhook_inbox, 9_market_snapshots, 11_event_trace_context on the embedded database in /
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

  it("market import stores a snapshot once, refuses a bad one whole, and market show reads the one in force", async () => {
    const dir = tempDataDir()
    const none = await cliJson(dir, "market", "show")
    assert.deepStrictEqual(none, { snapshot: null })

    const example = join(import.meta.dirname, "../../../docs/market/example-snapshot.json")
    const imported = await cliJson(dir, "market", "import", example)
    assert.match(imported.snapshot_id, uuid)
    assert.match(imported.hash, /^[0-9a-f]{64}$/)
    assert.strictEqual(imported.as_of, JSON.parse(readFileSync(example, "utf8")).as_of.replace("Z", ".000Z"))
    assert.isTrue(imported.created)
    const again = await cliJson(dir, "market", "import", example)
    assert.deepStrictEqual(again, { ...imported, created: false })

    // every rule broken is listed with its path, and nothing is stored
    const bad = join(dir, "bad.json")
    const document = JSON.parse(readFileSync(example, "utf8"))
    document.as_of = "2020-01-01T00:00:00Z"
    document.rates.USD.points[0].rate = "7"
    document.vols["USD/BRL"][1].atm = "0.001"
    writeFileSync(bad, JSON.stringify(document))
    const refused = await cli(dir, "market", "import", bad)
    assert.strictEqual(refused.code, 1)
    assert.match(refused.stderr, /Snapshot refused, nothing stored: \d+ problems/)
    assert.match(refused.stderr, /rates\.USD\.points\.0\.rate: .* \[rate_out_of_range\]/)
    assert.match(refused.stderr, /vols\.USD\/BRL\.1\.atm: .* \[vol_out_of_range\]/)
    writeFileSync(bad, "{ not json")
    const notJson = await cli(dir, "market", "import", bad)
    assert.strictEqual(notJson.code, 1)
    assert.match(notJson.stderr, /\(document\): not JSON: .* \[json_invalid\]/)

    const shown = await cliJson(dir, "market", "show")
    assert.strictEqual(shown.snapshot.snapshot_id, imported.snapshot_id)
    assert.isAbove(shown.snapshot.age_seconds, 0)
    const usdBrl = shown.corridors.find((c: { corridor: string }) => c.corridor === "USD_TO_BRL")
    assert.strictEqual(usdBrl.spot, document.spot["USD/BRL"].replace(/0+$/, ""))
    assert.deepStrictEqual(
      usdBrl.points.map((p: { tenor: string }) => p.tenor),
      ["1W", "1M", "3M", "6M"]
    )
    const unknown = await cli(dir, "quote", "explain", "00000000-0000-4000-8000-00000000dead")
    assert.strictEqual(unknown.code, 1)
    assert.match(unknown.stderr, /quote 00000000-0000-4000-8000-00000000dead not found/)

    const text = await cli(dir, "market", "show")
    assert.match(text.stdout, new RegExp(`Snapshot ${imported.snapshot_id}`))
    assert.match(text.stdout, /USD_TO_BRL +5\.41/)
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
