/**
 * Every relative link in the repository's Markdown resolves inside a clone: its file or folder is
 * in the repository (tracked, or new and not ignored), and its `#anchor` names a heading of the
 * target Markdown file, as GitHub spells heading anchors. It reads the whole repository, not just
 * core: core's suite is the one every change runs, and the quickest.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join, posix } from "node:path"

interface Repository {
  /** Paths relative to the repository root, `/`-separated. */
  readonly files: ReadonlySet<string>
  readonly read: (path: string) => string
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped (but `-` and `_`), each space a `-`. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-")

/** The text with fenced code blocks blanked (line count kept, so line numbers stay right). */
const withoutFences = (text: string): string => {
  let fence: string | null = null
  return text
    .split("\n")
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
      if (fence === null && marker !== undefined) {
        fence = marker
        return ""
      }
      if (fence !== null) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = null
        return ""
      }
      return line
    })
    .join("\n")
}

/** Code spans replaced by a plain word: a link shown as code is not a link, a link around code still is. */
const withoutCodeSpans = (text: string): string => text.replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, "code")

/** The anchors a Markdown file defines: its headings' slugs (repeats numbered as GitHub does) and HTML ids. */
const anchorsOf = (markdown: string): ReadonlySet<string> => {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of withoutFences(markdown).split("\n")) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1]
    if (heading !== undefined) {
      // a heading's rendered text: links and images keep their text, HTML tags go
      const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/<[^>]+>/g, "")
      const base = slug(text)
      const count = seen.get(base) ?? 0
      seen.set(base, count + 1)
      anchors.add(count === 0 ? base : `${base}-${count}`)
    }
    for (const [, id] of line.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(id!)
  }
  return anchors
}

interface Link {
  readonly target: string
  readonly line: number
}

const linksOf = (markdown: string): ReadonlyArray<Link> => {
  const text = withoutCodeSpans(withoutFences(markdown))
  const lineAt = (index: number) => text.slice(0, index).split("\n").length
  const patterns = [
    // [text](target) and ![alt](target), with an optional title; the text may hold [brackets] and wrap lines
    /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>\n]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g,
    // [label]: target
    /^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm,
    // HTML links and images
    /\b(?:href|src)="([^"]+)"/g
  ]
  return patterns.flatMap((pattern) =>
    [...text.matchAll(pattern)].map((match) => ({
      target: match[1]!.replace(/^<(.*)>$/, "$1"),
      line: lineAt(match.index)
    }))
  )
}

/** What is wrong with one link of `from`, or `undefined` when it resolves. */
const problemOf = (repository: Repository, from: string, target: string): string | undefined => {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return undefined // absolute URL
  const hash = target.indexOf("#")
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
  const resolved =
    pathPart === ""
      ? from
      : posix.normalize(pathPart.startsWith("/") ? `.${pathPart}` : posix.join(posix.dirname(from), pathPart))
  const path = resolved.replace(/\/+$/, "")
  if (path === ".." || path.startsWith("../")) return "points outside the repository"
  const isFile = repository.files.has(path)
  const isFolder = path === "." || [...repository.files].some((file) => file.startsWith(`${path}/`))
  if (!isFile && !isFolder) return "no such file or folder in the repository"
  if (anchor === undefined || anchor === "") return undefined
  // a folder shows its README.md; anchors of other kinds of files (source lines, …) are not checked
  const markdown = isFolder ? posix.join(path, "README.md") : path
  if (!markdown.toLowerCase().endsWith(".md")) return undefined
  if (!repository.files.has(markdown)) return `no ${markdown} to hold #${anchor}`
  return anchorsOf(repository.read(markdown)).has(anchor) ? undefined : `no heading #${anchor} in ${markdown}`
}

/** Every broken relative link of the repository's Markdown files, as `file:line: target: problem`. */
const brokenLinks = (repository: Repository): { readonly checked: number; readonly problems: string[] } => {
  let checked = 0
  const problems: string[] = []
  for (const file of [...repository.files].filter((f) => f.toLowerCase().endsWith(".md")).sort()) {
    for (const { target, line } of linksOf(repository.read(file))) {
      const problem = problemOf(repository, file, target)
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) checked++
      if (problem !== undefined) problems.push(`${file}:${line}: ${target}: ${problem}`)
    }
  }
  return { checked, problems }
}

const inMemory = (files: Record<string, string>): Repository => ({
  files: new Set(Object.keys(files)),
  read: (path) => files[path]!
})

/** The repository as a clone will have it: tracked files and new ones not ignored, still on disk. */
const checkout = (): Repository => {
  const root = execFileSync("git", ["rev-parse", "--show-toplevel"], {
    cwd: import.meta.dirname,
    encoding: "utf8"
  }).trim()
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  const files = new Set(listed.split("\0").filter((path) => path !== "" && existsSync(join(root, path))))
  return { files, read: (path) => readFileSync(join(root, path), "utf8") }
}

describe("Markdown links", () => {
  it("every relative link of the repository's Markdown resolves inside it, anchors included", () => {
    const { checked, problems } = brokenLinks(checkout())
    assert.deepStrictEqual(problems, [])
    // the walk found the READMEs' links: an empty walk would pass for the wrong reason
    assert.isAtLeast(checked, 50)
  })

  it("reports a missing file, a missing heading, a link out of the repository, and nothing else", () => {
    const repository = inMemory({
      "README.md": [
        "# Title",
        "See [the guide](docs/guide.md#set-it-up), [its folder](docs/) and [the API](docs/guide.md#the-api-v1).",
        "[Gone](docs/gone.md), [no such part](docs/guide.md#nowhere) and [outside](../secrets.md).",
        "`[not a link](missing.md)` and",
        "```md",
        "[in a fence](missing.md)",
        "```",
        "[a wrapped",
        "link](#title) and [the web](https://example.com/x.md) and [source](packages/a.ts#L3)."
      ].join("\n"),
      "docs/guide.md": "# Guide\n\n## Set it up\n\n## The API (`v1`)\n",
      "packages/a.ts": "export {}\n"
    })
    assert.deepStrictEqual(brokenLinks(repository).problems, [
      "README.md:3: docs/gone.md: no such file or folder in the repository",
      "README.md:3: docs/guide.md#nowhere: no heading #nowhere in docs/guide.md",
      "README.md:3: ../secrets.md: points outside the repository"
    ])
  })

  it("spells anchors as GitHub does", () => {
    assert.strictEqual(slug("Time and the workers: `Simulation`"), "time-and-the-workers-simulation")
    assert.strictEqual(slug("Window-option engine (`pnpm bench`)"), "window-option-engine-pnpm-bench")
    assert.strictEqual(slug("GET /api/v1/fx/quotes/{quote_id}"), "get-apiv1fxquotesquote_id")
    assert.strictEqual(slug("Tenancy, keys and idempotency"), "tenancy-keys-and-idempotency")
    assert.deepStrictEqual([...anchorsOf("# A\n## A\n```\n# B\n```\n## C — d\n")], ["a", "a-1", "c--d"])
  })
})
