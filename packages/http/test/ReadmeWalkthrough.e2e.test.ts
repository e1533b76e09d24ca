/**
 * The README's curl walkthrough, run as a newcomer runs it: the block itself, taken from the root
 * README, pasted into bash against `pnpm start`'s service on a fresh data directory with the demo
 * partner's credentials filled in. What it prints must be what the README shows after each step
 * (`# → …` lines): `…` stands for ids, hashes and times, and amounts may differ in their last
 * digits (the premium moves with the date). Left with its placeholders, it stops at once, saying why.
 */
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { baseUrlOf, eventually, removeTempDirs, start, tempDataDir } from "./support/process.ts"

const readme = readFileSync(join(import.meta.dirname, "..", "..", "..", "README.md"), "utf8")
const section = readme.slice(readme.indexOf("## Try a whole lifecycle with curl"))
const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!
const expected = [...block.matchAll(/^\s*# → (.*)$/gm)].map((m) => m[1]!)

const amount = /"(\d+\.\d+)"/g

/**
 * How far an amount may be from the README's. The premium moves with the date: the BRL curve counts
 * business days, and each of the snapshot's holidays inside the 4-week window moves it by some
 * 2.5 % (2.54 % with Christmas in it, measured on 2026-12-03); late December's window holds two.
 */
const amountTolerance = 0.06

/** Whether `line` is what `shown` shows: `…` matches anything, amounts agree within `amountTolerance`. */
const matches = (line: string, shown: string): boolean => {
  const pattern = shown
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/"\d+\\\.\d+"/g, '"[0-9]+\\.[0-9]+"'))
    .join(".*?")
  if (!new RegExp(`^${pattern}$`).test(line)) return false
  const got = [...line.matchAll(amount)].map((m) => Number(m[1]))
  const want = [...shown.matchAll(amount)].map((m) => Number(m[1]))
  return got.every((value, i) => Math.abs(value - want[i]!) <= want[i]! * amountTolerance)
}

const root = join(import.meta.dirname, "..", "..", "..")

const bash = (script: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile("bash", ["-s"], { cwd: root, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
    )
    child.stdin?.end(script)
  })

afterAll(removeTempDirs)

describe("the README's curl walkthrough", () => {
  it("prints what the README shows, against pnpm start's service", { timeout: 180_000 }, async () => {
    assert.isAtLeast(expected.length, 10, "the README's block shows its output")
    const service = start(tempDataDir())
    try {
      const baseUrl = await baseUrlOf(service)
      const banner = await eventually(() =>
        service.stdout().includes("api_key_secret") ? service.stdout() : undefined
      )
      const keyId = /api_key_id\s+(\S+)/.exec(banner)![1]!
      const secret = /api_key_secret\s+(\S+)/.exec(banner)![1]!
      const operatorUrl = /operator_url\s+(\S+)/.exec(banner)![1]!
      const operatorToken = /operator_token\s+(\S+)/.exec(banner)![1]!

      // left as pasted from the README: the placeholders are refused at once, with a message
      const unfilled = await bash(
        block.replace("http://localhost:8080", baseUrl).replace("http://127.0.0.1:8081", operatorUrl)
      )
      assert.strictEqual(unfilled.code, 1)
      assert.strictEqual(unfilled.stdout, "")
      assert.match(unfilled.stderr.trim(), /refused the key .*KEY_ID and KEY_SECRET/)

      const withKey = block
        .replace("http://localhost:8080", baseUrl)
        .replace("http://127.0.0.1:8081", operatorUrl)
        .replace("<api_key_id>", keyId)
        .replace("<api_key_secret>", secret)
      // the partner's key but not the operator token: refused before anything is sold
      const noToken = await bash(withKey)
      assert.strictEqual(noToken.code, 1)
      assert.strictEqual(noToken.stdout, "")
      assert.match(noToken.stderr.trim(), /refused the snapshot: set OPERATOR_TOKEN/)

      const filled = withKey.replace("<operator_token>", operatorToken)
      const run = await bash(filled)
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stderr, "")
      const printed = run.stdout.trimEnd().split("\n")
      assert.strictEqual(printed.length, expected.length, run.stdout)
      for (const [i, line] of printed.entries()) {
        assert.isTrue(matches(line, expected[i]!), `printed:\n${line}\nREADME:\n${expected[i]}`)
      }
    } finally {
      service.child.kill("SIGTERM")
      await service.exited
    }
  })
})
