/**
 * `pnpm start`, `pnpm ratelock` and `pnpm test` refuse a Node.js older than 22.19 in one line that
 * says what to install and how, before anything else runs: each root script's command is run as
 * written, with the Node it starts made to report an old version.
 */
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"

const root = join(import.meta.dirname, "..", "..", "..")
const scripts: Record<string, string> = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts

/** A preload that makes this Node report `version`, as an old installation would. */
const posing = (version: string) =>
  `--import='data:text/javascript,Object.defineProperty(process,"version",{value:"v${version}"});` +
  `Object.defineProperty(process,"versions",{value:{...process.versions,node:"${version}"}})'`

/** The script's command with its first `node` posing as `version`, run from the repository root. */
const run = (script: string, version: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const command = scripts[script]!.replace(/^node /, `node ${posing(version)} `)
    execFile("sh", ["-c", `${command} --help`], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
    )
  })

describe("an old Node.js is refused in one line", () => {
  for (const script of ["start", "ratelock", "test"]) {
    it(`pnpm ${script}`, { timeout: 60_000 }, async () => {
      const result = await run(script, "20.11.0")
      assert.strictEqual(result.code, 1)
      assert.strictEqual(result.stdout, "")
      const lines = result.stderr.trim().split("\n")
      assert.lengthOf(lines, 1)
      assert.match(lines[0]!, /needs Node\.js 24 \(at least 22\.19\); this is v20\.11\.0\..*npm i --prefix .* node@24/)
    })
  }

  it("a current Node.js goes on to the command", { timeout: 60_000 }, async () => {
    const result = await run("ratelock", "24.0.0")
    assert.strictEqual(result.code, 0, result.stderr)
    assert.include(result.stdout, "partner")
  })
})
