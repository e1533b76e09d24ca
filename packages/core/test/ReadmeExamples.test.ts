/**
 * The README's examples run as a partner runs them (issue 30: "embedding core as a partner does it works
 * as written"): core is built (tsup and its declarations) and packed (`pnpm pack`, what a publish would
 * upload), a scratch project
 * outside the workspace installs the tarball and `effect` (the workspace's version, from the registry
 * through pnpm's store, offline when it has them), and every block after a `<!-- example: name -->`
 * comment is written as `name.mts` and run with node (which strips its types). Each must exit 0 and
 * print what the README's `<!-- output: name -->` block shows, line for line (`…` stands for any text), and
 * type-check (strict) against the packed declarations.
 * The scratch project must hold one copy of Effect, the one core resolves too: `effect` is core's peer
 * dependency, so a second copy (which fails at run time) is a packaging bug this test catches.
 */
import { execFile } from "node:child_process"
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"

const run = promisify(execFile)

const coreDir = join(import.meta.dirname, "..")
const repoRoot = join(coreDir, "..", "..")
const readme = readFileSync(join(coreDir, "README.md"), "utf8")

/** The examples the README marks, in order: an example dropped from the README fails here, not silently. */
const expectedExamples = ["simulate-lock", "payout", "monte-carlo", "backtest"]

/** The fenced block right after each `<!-- kind: name -->` line. */
const blocks = (kind: "example" | "output"): Map<string, string> => {
  const found = new Map<string, string>()
  const marker = new RegExp(`^<!-- ${kind}: ([a-z0-9-]+) -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)^\`\`\`$`, "gm")
  for (const match of readme.matchAll(marker)) found.set(match[1]!, match[2]!)
  return found
}
const examples = blocks("example")
const outputs = blocks("output")

/** An output line as a pattern: literal text, `…` any text. */
const linePattern = (line: string) =>
  new RegExp(
    `^${line
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".+?")}$`
  )

/** The environment without what `pnpm test` sets for its own run (a frozen lockfile, the workspace's package). */
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_)/i.test(key) || key === "PNPM_HOME")
)

/** Where node resolves `name` from `dir` (the first `node_modules/name` going up), as a real path. */
const resolveFrom = (dir: string, name: string): string | undefined => {
  for (let d = dir; ; d = dirname(d)) {
    const candidate = join(d, "node_modules", name)
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate)
    if (dirname(d) === d) return undefined
  }
}

const timings: Array<string> = []
const timed = async <A>(label: string, f: () => Promise<A>): Promise<A> => {
  const started = performance.now()
  const result = await f()
  timings.push(`${label} ${Math.round(performance.now() - started)} ms`)
  return result
}

let scratch = ""
let project = ""

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "ratelock-readme-"))
  project = join(scratch, "project")
  const effectVersion: string = JSON.parse(
    readFileSync(join(resolveFrom(coreDir, "effect")!, "package.json"), "utf8")
  ).version
  // built beside the tree, not into packages/core/dist: the built http service a concurrent test runs imports
  // core's dist, which tsup empties before it writes
  const built = join(scratch, "dist")
  await timed("build", async () => {
    await run("pnpm", ["exec", "tsup", "--out-dir", built], { cwd: coreDir, env: childEnv })
    await run("pnpm", ["exec", "tsc", "-p", "tsconfig.build.json", "--outDir", built], { cwd: coreDir, env: childEnv })
  })
  // pnpm pack writes the manifest a publish uploads (workspace versions resolved) and the files it lists;
  // the tarball's dist is then this build's, whatever packages/core/dist holds
  const tarball = await timed("pack", async () => {
    const packed = join(scratch, "packed")
    mkdirSync(packed)
    await run("pnpm", ["pack", "--pack-destination", packed], { cwd: coreDir, env: childEnv })
    const file = readdirSync(packed).find((f) => f.endsWith(".tgz"))
    assert.isDefined(file, "pnpm pack wrote no tarball")
    await run("tar", ["xzf", join(packed, file!), "-C", packed])
    rmSync(join(packed, "package", "dist"), { recursive: true, force: true })
    cpSync(built, join(packed, "package", "dist"), { recursive: true })
    const repacked = join(scratch, file!)
    await run("tar", ["czf", repacked, "-C", packed, "package"])
    return repacked
  })
  mkdirSync(project)
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "partner-scratch", private: true, type: "module" }, null, 2)
  )
  copyFileSync(join(repoRoot, "docs", "market", "example-snapshot.json"), join(project, "example-snapshot.json"))
  await timed("install", () =>
    run("pnpm", ["add", "--prefer-offline", tarball, `effect@${effectVersion}`], {
      cwd: project,
      env: childEnv
    })
  )
  for (const [name, code] of examples) writeFileSync(join(project, `${name}.mts`), code)
}, 120_000)

afterAll(() => {
  console.log(`README examples: ${timings.join(", ")}`)
  if (scratch !== "") rmSync(scratch, { recursive: true, force: true })
})

describe("core's README examples, run as a partner runs them", () => {
  it("the README marks the expected examples, each with its output", () => {
    assert.deepStrictEqual([...examples.keys()], expectedExamples)
    assert.deepStrictEqual([...outputs.keys()], expectedExamples)
  })

  it("the packed core takes effect as a peer, and the project holds one copy of Effect, the one core resolves", () => {
    const core = resolveFrom(project, "@ratelock/core")!
    const manifest = JSON.parse(readFileSync(join(core, "package.json"), "utf8"))
    assert.isDefined(manifest.peerDependencies?.effect)
    assert.isUndefined(manifest.dependencies?.effect)
    assert.isTrue(existsSync(join(core, "dist", "index.js")), "the tarball has no dist: core was not built")
    const ours = resolveFrom(project, "effect")
    assert.isDefined(ours)
    assert.strictEqual(resolveFrom(core, "effect"), ours, "core resolves another copy of effect than the project's")
    const copies = readdirSync(join(project, "node_modules", ".pnpm")).filter((entry) => entry.startsWith("effect@"))
    assert.deepStrictEqual(copies.length, 1, `copies of effect installed: ${copies.join(", ")}`)
  })

  it("the examples type-check, strict, against the packed declarations (what a partner's editor shows)", async () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: "nodenext",
          target: "es2024",
          skipLibCheck: true,
          // node's own types from the workspace: the scratch project installs only core and effect
          typeRoots: [join(repoRoot, "node_modules", "@types")],
          types: ["node"]
        },
        include: ["*.mts"]
      })
    )
    const checked = await timed("typecheck", () =>
      run("pnpm", ["exec", "tsc", "-p", join(project, "tsconfig.json")], { cwd: repoRoot, env: childEnv }).then(
        () => "",
        (error: { readonly stdout?: string }) => error.stdout ?? String(error)
      )
    )
    assert.strictEqual(checked, "")
  })

  for (const name of expectedExamples) {
    it(`${name}: runs with node and prints what the README shows`, async () => {
      const file = join(project, `${name}.mts`)
      const { stdout } = await timed(`run ${name}`, () =>
        run(process.execPath, [file], { cwd: project, env: childEnv, timeout: 30_000 })
      )
      const printed = stdout.trimEnd().split("\n")
      const expected = (outputs.get(name) ?? "").trimEnd().split("\n")
      assert.strictEqual(printed.length, expected.length, `printed:\n${stdout}`)
      expected.forEach((line, i) => {
        assert.match(printed[i]!, linePattern(line), `line ${i + 1} of ${name}'s output`)
      })
    })
  }
})
