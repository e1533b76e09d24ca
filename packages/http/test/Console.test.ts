/**
 * The console's files as the operator listener serves them: found from the sources (`pnpm start`)
 * and from the built package (`node dist/main.js`, once `pnpm build` has run: always under CI), with
 * every file the page and its modules ask for among them, the charting library's browser builds,
 * and a Content-Security-Policy that names no other host.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import * as Console from "../src/operator/Console.ts"
import { mismatches } from "./support/browser.ts"
import { operatorUrlOf, packageDir, removeTempDirs, tempDataDir } from "./support/process.ts"
import { start, stop } from "@ratelock/test-support/Processes"

afterAll(removeTempDirs)

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

describe("the console's files", () => {
  it("are all found from the sources: what the page and each module load, and the libraries", async () => {
    const { assets, page, vendor } = await Effect.runPromise(Console.loadAssets)
    const html = text(page.body)
    assert.strictEqual(page.contentType, "text/html; charset=utf-8")
    const asked = [...html.matchAll(/(?:src|href)="\/console\/(assets|vendor)\/([^"]+)"/g)]
    assert.isAtLeast(asked.length, 5)
    for (const [, folder, name] of asked) {
      assert.isTrue((folder === "assets" ? assets : vendor).has(name!), `${folder}/${name}`)
    }
    for (const [name, asset] of assets) {
      if (!name.endsWith(".js")) continue
      assert.strictEqual(asset.contentType, "text/javascript; charset=utf-8")
      for (const [, imported] of text(asset.body).matchAll(/from "\.\/([^"]+)"/g)) {
        assert.isTrue(assets.has(imported!), `${name} imports ${imported}`)
      }
    }
    assert.strictEqual(assets.get("console.css")?.contentType, "text/css; charset=utf-8")
    assert.match(text(vendor.get("d3.min.js")!.body), /^\/\/ https:\/\/d3js\.org v7/)
    assert.match(text(vendor.get("plot.umd.min.js")!.body), /^\/\/ @observablehq\/plot v0\.6/)
  })

  it("are served under a policy that lets the page reach its own origin only", () => {
    const policy = Console.contentSecurityPolicy
    assert.include(policy, "default-src 'none'")
    for (const directive of policy.split("; ")) {
      const [, ...sources] = directive.split(" ")
      for (const source of sources) assert.include(["'self'", "'none'"], source, directive)
    }
  })

  it("are compared with the routes by what they say, so a figure written wrong is caught", () => {
    const route = { open_locks: 14, mtm_usd: "-7464.88", stress: [{ mtm_change_usd: "-66043.99" }], ratio: "0.9762" }
    const shown = (path: string, format: string, text: string, sign?: string) => ({
      source: "risk",
      path,
      format,
      sign,
      text
    })
    const right = [
      shown("open_locks", "count", "14"),
      shown("mtm_usd", "decimal", "\u22127,464.88"),
      shown("stress.0.mtm_change_usd", "decimal", "66,043.99", "negated"),
      shown("ratio", "percent", "97.62 %")
    ]
    assert.deepStrictEqual(mismatches(right, { risk: route }), [])
    const wrong = [
      shown("open_locks", "count", "13"),
      shown("mtm_usd", "decimal", "7,464.88"),
      shown("stress.0.mtm_change_usd", "decimal", "66,043.90", "negated"),
      shown("ratio", "percent", "97.6 %"),
      shown("mtm_usd", "decimal", "—")
    ]
    assert.lengthOf(mismatches(wrong, { risk: route }), wrong.length)
    // a figure of a route not given is not compared
    assert.deepStrictEqual(mismatches([shown("open_locks", "count", "13")], {}), [])
  })

  const built = join(packageDir, "dist", "main.js")
  const needsBuild = !existsSync(built)
  if (needsBuild && process.env.CI === undefined) {
    console.warn("packages/http/dist is not built: the console-from-the-build test is skipped (pnpm build)")
  }

  it.skipIf(needsBuild && process.env.CI === undefined)(
    "are found by the built package too",
    { timeout: 90_000 },
    async () => {
      assert.isTrue(existsSync(built), "pnpm build made dist/main.js")
      const service = start(process.execPath, [built], {
        cwd: packageDir,
        env: {
          ...process.env,
          DATABASE_URL: undefined,
          RATELOCK_DATA_DIR: tempDataDir(),
          PORT: "0",
          RATELOCK_OPERATOR_PORT: "0",
          RATELOCK_WORKERS: "false"
        }
      })
      try {
        const url = await operatorUrlOf(service)
        const page = await fetch(`${url}/console`)
        assert.strictEqual(page.status, 200)
        assert.include(await page.text(), "Ratelock operator console")
        for (const path of ["/console/assets/console.js", "/console/vendor/plot.umd.min.js"]) {
          assert.strictEqual((await fetch(`${url}${path}`)).status, 200, path)
        }
      } finally {
        await stop(service.child)
      }
    }
  )
})
