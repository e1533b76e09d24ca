/**
 * The README's examples are test files, so they cannot drift: every ```ts block announced by
 * `<!-- example: path -->` is that file byte for byte, and every file under `test/examples` and
 * `test/node` is shown. The commands the README gives to run them run here as child processes,
 * word for word, and must pass.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify, stripVTControlCharacters } from "node:util"

const root = join(import.meta.dirname, "..")
const readme = readFileSync(join(root, "README.md"), "utf8")
const shown = [...readme.matchAll(/<!-- example: (\S+) -->\n```ts\n([\s\S]*?)```\n/g)].map(([, path, code]) => ({
  path: path!,
  code: code!
}))
const exampleFiles = ["test/examples", "test/node"].flatMap((dir) =>
  readdirSync(join(root, dir)).map((file) => `${dir}/${file}`)
)

/** The commands of the README's `<!-- commands: … -->` block, one per line, split into words. */
const commands = (/[<]!-- commands: [^>]*-->\n```sh\n([\s\S]*?)```\n/.exec(readme)?.[1] ?? "")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => line.trim().split(/\s+/))

/** The children run as from a shell: not as workers of this vitest run. */
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && name !== "TINYPOOL_WORKER_ID")
)

describe("README", () => {
  it("shows every example file", () => {
    assert.isAtLeast(shown.length, 5)
    assert.deepStrictEqual(shown.map((s) => s.path).sort(), [...exampleFiles].sort())
  })

  for (const { path, code } of shown) {
    it(`${path} is shown exactly`, () => {
      assert.strictEqual(code, readFileSync(join(root, path), "utf8"))
    })
  }

  it("opens with how to add it to a project and how to run the examples", () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map(([, heading]) => heading)
    assert.deepStrictEqual(headings.slice(0, 2), ["Add it to your project", "Run the examples"])
  })

  it("its commands run the examples with vitest and with node --test", () => {
    assert.deepStrictEqual(
      commands.map((command) => command[0]),
      ["pnpm", "node"]
    )
    assert.includeMembers(commands[0]!, ["vitest", "run", "test/examples"])
    // the node:test command runs every node:test example, with no build step
    assert.includeMembers(commands[1]!, ["--test", "--conditions=source"])
    assert.includeMembers(
      commands[1]!,
      exampleFiles.filter((file) => file.startsWith("test/node/"))
    )
  })

  for (const [program, ...args] of commands) {
    it(`\`${[program, ...args].join(" ")}\` passes`, { timeout: 180_000 }, async () => {
      const { stdout } = await promisify(execFile)(program === "node" ? process.execPath : program!, args, {
        cwd: root,
        env: childEnv
      })
      // a failing test makes either runner exit non-zero, which rejects; these say something ran
      const output = stripVTControlCharacters(stdout)
      if (program === "node") {
        assert.match(output, /^\S* ?pass [1-9]\d*$/m)
        assert.match(output, /^\S* ?fail 0$/m)
      } else {
        assert.match(output, /Tests\s+[1-9]\d* passed/)
      }
    })
  }
})
