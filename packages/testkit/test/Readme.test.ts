/**
 * The README's examples are test files, so they cannot drift: every ```ts block announced by
 * `<!-- example: path -->` is that file byte for byte, and every file under `test/examples` and
 * `test/node` is shown. The `node:test` example runs here under `node --test`.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"

const root = join(import.meta.dirname, "..")
const readme = readFileSync(join(root, "README.md"), "utf8")
const shown = [...readme.matchAll(/<!-- example: (\S+) -->\n```ts\n([\s\S]*?)```\n/g)].map(([, path, code]) => ({
  path: path!,
  code: code!
}))
const exampleFiles = ["test/examples", "test/node"].flatMap((dir) =>
  readdirSync(join(root, dir)).map((file) => `${dir}/${file}`)
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

  it("the node:test example passes under node --test", { timeout: 60_000 }, async () => {
    const files = exampleFiles.filter((file) => file.startsWith("test/node/"))
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--conditions=source", "--test", "--test-reporter=tap", ...files],
      {
        cwd: root
      }
    )
    assert.match(stdout, /# fail 0/)
    assert.match(stdout, new RegExp(`# pass ${files.length}`))
  })
})
