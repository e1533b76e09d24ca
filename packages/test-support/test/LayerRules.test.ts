/**
 * The import rules of the root .dependency-cruiser.mjs (run by `pnpm lint`) refuse what they
 * should, under their own names, and let the rest through. The test lays out a small workspace
 * in a temporary directory, shaped like this repository: packages/core/src in its layer folders,
 * other packages that import each other by name through node_modules/@ratelock/* symlinks and
 * package.json `exports` with a "source" condition, as pnpm links them here. It runs
 * dependency-cruiser's CLI on it with the real config, as `pnpm lint` does on the repository.
 * Each illegal import below is refused by exactly the rule named beside it, and each legal one
 * is seen (so it passes because it is allowed, not because the cruise missed it).
 *
 * The real tree passing is `pnpm lint`'s job. The fixture lives in a temporary directory, not in
 * the repository, so that neither the type check, biome nor `pnpm lint` reads its violations.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll } from "vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const config = join(root, ".dependency-cruiser.mjs")
const bin = (name: string) => join(root, "node_modules/dependency-cruiser/bin", name)

const core = "packages/core/src"

/** A package.json whose `exports` map "source" to src/, as this repository's packages do. */
const manifest = (name: string, exports: Record<string, string>) =>
  JSON.stringify({
    name: `@ratelock/${name}`,
    type: "module",
    exports: Object.fromEntries(
      Object.entries(exports).map(([entry, file]) => [
        entry,
        { source: `./src/${file}.ts`, default: `./dist/${file}.js` }
      ])
    )
  })

const files: Record<string, string> = {
  "package.json": JSON.stringify({ name: "layer-rules-fixture", private: true, type: "module" }),
  "packages/core/package.json": manifest("core", { ".": "index" }),
  "packages/adapters-store/package.json": manifest("adapters-store", { ".": "index" }),
  "packages/adapters-chain/package.json": manifest("adapters-chain", { ".": "index" }),
  "packages/http/package.json": manifest("http", { ".": "index" }),
  "packages/testkit/package.json": manifest("testkit", { ".": "index" }),
  // test-support's exports name source files directly, with no conditions
  "packages/test-support/package.json": JSON.stringify({
    name: "@ratelock/test-support",
    type: "module",
    exports: { "./Anvil": "./src/Anvil.ts" }
  }),

  [`${core}/index.ts`]: [
    `export * from "./kernel/Money.ts"`,
    `export * from "./terms/Tenor.ts"`,
    `export * from "./pricing/Pricer.ts"`,
    `export * from "./risk/Book.ts"`
  ].join("\n"),
  [`${core}/WorkerPasses.ts`]: [
    `import { desk } from "./operator/Desk.ts"`,
    `import { book } from "./risk/Book.ts"`,
    `import { money } from "./index.ts"`,
    "export const passes = [desk, book, money]"
  ].join("\n"),
  [`${core}/internal/shared.ts`]: "export const shared = 0",
  [`${core}/kernel/Money.ts`]: "export const money = 1",
  [`${core}/kernel/Ids.ts`]: `import { shared } from "../internal/shared.ts"\nexport const ids = shared`,
  [`${core}/kernel/Leak.ts`]: `import { serve } from "@ratelock/http"\nexport const leak = serve`,
  [`${core}/terms/Tenor.ts`]: `import { money } from "../kernel/Money.ts"\nexport const tenor = money`,
  [`${core}/market/Spot.ts`]: `import { book } from "../risk/Book.ts"\nexport const spot = book`,
  [`${core}/market/Curve.ts`]: `import type { Exposure } from "../risk/Exposure.ts"\nexport type Curve = Exposure`,
  [`${core}/pricing/Pricer.ts`]: [
    `import { tenor } from "../terms/Tenor.ts"`,
    `import { lattice } from "./internal/lattice.ts"`,
    "export const price = tenor + lattice"
  ].join("\n"),
  [`${core}/pricing/internal/lattice.ts`]: `import { money } from "../../kernel/Money.ts"\nexport const lattice = money`,
  [`${core}/risk/Book.ts`]: `import { price } from "../pricing/Pricer.ts"\nexport const book = price`,
  [`${core}/risk/Exposure.ts`]: "export type Exposure = number",
  [`${core}/risk/Greeks.ts`]: `import { lattice } from "../pricing/internal/lattice.ts"\nexport const greeks = lattice`,
  [`${core}/operator/Desk.ts`]: `import { book } from "../index.ts"\nexport const desk = book`,
  [`${core}/hedge/Order.ts`]: `import { money } from "../kernel/Money.ts"\nexport const order = money`,

  "packages/adapters-store/src/index.ts": `import { money } from "@ratelock/core"\nexport const store = money`,
  "packages/adapters-chain/src/index.ts": `import { store } from "@ratelock/adapters-store"\nexport const chain = store`,
  "packages/http/src/index.ts": [
    `import { chain } from "@ratelock/adapters-chain"`,
    `import { money } from "@ratelock/core"`,
    "export const serve = chain + money"
  ].join("\n"),
  "packages/http/src/Dev.ts": `import { anvil } from "@ratelock/test-support/Anvil"\nexport const dev = anvil`,
  "packages/http/src/internal/format.ts": "export const format = 2",
  "packages/http/test/Server.test.ts": [
    `import { anvil } from "@ratelock/test-support/Anvil"`,
    `import { format } from "../src/internal/format.ts"`,
    "export const checked = anvil + format"
  ].join("\n"),
  "packages/testkit/src/index.ts": [
    `import { serve } from "@ratelock/http"`,
    `import { format } from "../../http/src/internal/format.ts"`,
    "export const kit = serve + format"
  ].join("\n"),
  "packages/testkit/test/Kit.test.ts": `import { format } from "../../http/src/internal/format.ts"\nexport const t = format`,
  "packages/test-support/src/Anvil.ts": "export const anvil = 3"
}

/** Each refused import, as `rule: from → to`. */
const refused = [
  `core-layer-market: ${core}/market/Spot.ts → ${core}/risk/Book.ts`,
  // a type-only import counts like any other
  `core-layer-market: ${core}/market/Curve.ts → ${core}/risk/Exposure.ts`,
  `core-layer-operator: ${core}/operator/Desk.ts → ${core}/index.ts`,
  `core-layer-WorkerPasses: ${core}/WorkerPasses.ts → ${core}/index.ts`,
  `core-layer-unlisted-folder: ${core}/hedge/Order.ts → ${core}/kernel/Money.ts`,
  // downward, but into another folder's internal/
  `internal-private: ${core}/risk/Greeks.ts → ${core}/pricing/internal/lattice.ts`,
  "internal-private: packages/testkit/src/index.ts → packages/http/src/internal/format.ts",
  "internal-private-tests: packages/testkit/test/Kit.test.ts → packages/http/src/internal/format.ts",
  `package-core: ${core}/kernel/Leak.ts → packages/http/src/index.ts`,
  "package-adapters-chain: packages/adapters-chain/src/index.ts → packages/adapters-store/src/index.ts",
  "test-support-only-in-tests: packages/http/src/Dev.ts → packages/test-support/src/Anvil.ts"
].sort()

/** Legal imports the cruise must see (and let through). */
const allowed = [
  `${core}/terms/Tenor.ts → ${core}/kernel/Money.ts`,
  `${core}/risk/Book.ts → ${core}/pricing/Pricer.ts`,
  `${core}/pricing/Pricer.ts → ${core}/pricing/internal/lattice.ts`,
  `${core}/pricing/internal/lattice.ts → ${core}/kernel/Money.ts`,
  `${core}/kernel/Ids.ts → ${core}/internal/shared.ts`,
  `${core}/WorkerPasses.ts → ${core}/operator/Desk.ts`,
  `${core}/index.ts → ${core}/risk/Book.ts`,
  // by package name, through the symlink and the "source" condition
  `packages/adapters-store/src/index.ts → ${core}/index.ts`,
  "packages/http/src/index.ts → packages/adapters-chain/src/index.ts",
  "packages/testkit/src/index.ts → packages/http/src/index.ts",
  "packages/http/test/Server.test.ts → packages/test-support/src/Anvil.ts",
  "packages/http/test/Server.test.ts → packages/http/src/internal/format.ts"
]

interface CruiseResult {
  readonly modules: ReadonlyArray<{
    readonly source: string
    readonly dependencies: ReadonlyArray<{ readonly resolved: string; readonly valid: boolean }>
  }>
  readonly summary: {
    readonly violations: ReadonlyArray<{
      readonly from: string
      readonly to: string
      readonly rule: { readonly name: string }
    }>
  }
}

const dir = mkdtempSync(join(tmpdir(), "ratelock-layer-rules-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = (script: string, args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [bin(script), ...args], { cwd: dir, encoding: "utf8" })

let cruise: ReturnType<typeof run>
let result: CruiseResult
beforeAll(() => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), `${text}\n`)
  }
  // pnpm's workspace links (it puts them in each package's node_modules; one level up resolves alike)
  mkdirSync(join(dir, "node_modules/@ratelock"), { recursive: true })
  for (const name of ["core", "adapters-store", "adapters-chain", "http", "testkit", "test-support"]) {
    symlinkSync(`../../packages/${name}`, join(dir, "node_modules/@ratelock", name))
  }
  cruise = run("dependency-cruiser.mjs", ["--config", config, "--output-type", "json", "packages"])
  result = JSON.parse(cruise.stdout)
})

describe("the layer rules of .dependency-cruiser.mjs", () => {
  it("refuse each illegal import under its rule's name, and nothing else", () => {
    const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort()
    assert.deepStrictEqual(found, refused, cruise.stderr)
  })

  it("see the legal imports, by path and by package name, and let them through", () => {
    const edges = new Map<string, boolean>(
      result.modules.flatMap((m) => m.dependencies.map((d) => [`${m.source} → ${d.resolved}`, d.valid] as const))
    )
    for (const edge of allowed) assert.strictEqual(edges.get(edge), true, edge)
  })

  it("fail as `pnpm lint` runs them, printing each violation with its rule's name and what the rule allows", () => {
    const lint = run("dependency-cruiser.mjs", ["--config", config, "--output-type", "err-long", "packages"])
    // depcruise exits with the number of errors
    assert.strictEqual(lint.status, refused.length, lint.stderr)
    const text = lint.stdout.replace(/\s+/g, " ")
    assert.include(text, `error core-layer-market: ${core}/market/Spot.ts → ${core}/risk/Book.ts`)
    assert.include(
      text,
      "market/ may import only kernel/, terms/ (and market/ itself), never index.ts or WorkerPasses.ts"
    )
    assert.include(text, `${refused.length} dependency violations (${refused.length} errors, 0 warnings)`)
  })
})
