/**
 * The operator console (`GET /console`): one page on the operator listener that draws what the
 * operator routes answer (book, limits, market, pipes) and refreshes itself. The page and its files
 * carry no data, so they are served without a token; every figure it shows comes from the
 * operator JSON routes, which the page calls with the token kept in the tab's `sessionStorage`.
 *
 * Its files are plain HTML, CSS and JavaScript modules in `packages/http/console/` (no build step:
 * the same files for `pnpm start` and the built package), with Observable Plot and d3 served from
 * their installed packages. Everything is read once when the listener starts, so a missing file
 * stops the start instead of a page half drawn. The Content-Security-Policy lets the page reach its
 * own origin only.
 */
import { Data, Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import { existsSync } from "node:fs"
import { readdir, readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export class ConsoleAssetsMissing extends Data.TaggedError("ConsoleAssetsMissing")<{ readonly message: string }> {}

/** What the page may load: its own origin only; no inline script or style, no frame, no form elsewhere. */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml"
}

/**
 * The console's folder: `packages/http/console/`, found from this module in `src/operator/` (run
 * from source) or from the bundle in `dist/` (the built package).
 */
export const consoleDir = (): string | undefined => {
  const here = dirname(fileURLToPath(import.meta.url))
  return [join(here, "..", "..", "console"), join(here, "..", "console")].find((dir) =>
    existsSync(join(dir, "index.html"))
  )
}

/** The file an installed package names under its `umd` export (Plot's and d3's browser builds). */
const umdFile = (name: string): string => {
  const require = createRequire(import.meta.url)
  let dir = dirname(require.resolve(name))
  while (!existsSync(join(dir, "package.json")) || require(join(dir, "package.json")).name !== name) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`${name}: no package.json above its entry`)
    dir = parent
  }
  const umd = require(join(dir, "package.json")).exports?.umd
  if (typeof umd !== "string") throw new Error(`${name}: its package names no umd build`)
  return join(dir, umd)
}

/** The libraries, by the name they are served under (`/console/vendor/NAME`). */
const vendorFiles = {
  "d3.min.js": () => umdFile("d3"),
  "plot.umd.min.js": () => umdFile("@observablehq/plot")
} as const

interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
  readonly etag: string
}

const load = (path: string, name: string) =>
  Effect.tryPromise({
    try: () => readFile(path),
    catch: () => new ConsoleAssetsMissing({ message: `console file ${name} not found at ${path}` })
  }).pipe(
    Effect.map(
      (body): Asset => ({
        body,
        contentType: contentTypes[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream",
        etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`
      })
    )
  )

/** Every file of the console, read now. */
export const loadAssets = Effect.gen(function* () {
  const dir = consoleDir()
  if (dir === undefined) {
    return yield* new ConsoleAssetsMissing({ message: "the console's folder (packages/http/console) was not found" })
  }
  const page = yield* load(join(dir, "index.html"), "index.html")
  // every script, style sheet and image of the folder, by its name (`/console/assets/NAME`)
  const names = yield* Effect.tryPromise({
    try: () => readdir(dir),
    catch: () => new ConsoleAssetsMissing({ message: `the console's folder ${dir} could not be read` })
  })
  const assets = new Map<string, Asset>()
  for (const name of names.filter((n) => n !== "index.html" && /\.(js|css|svg)$/.test(n)).sort()) {
    assets.set(name, yield* load(join(dir, name), name))
  }
  const vendor = new Map<string, Asset>()
  for (const [name, locate] of Object.entries(vendorFiles)) {
    const path = yield* Effect.try({
      try: locate,
      catch: (e) => new ConsoleAssetsMissing({ message: `console library ${name}: ${String(e)}` })
    })
    vendor.set(name, yield* load(path, name))
  }
  return { page, assets, vendor }
})

/** Headers every console response carries: its policy, and no sniffing, no referrer, no framing. */
const guarded = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

/** The asset, or 304 when the browser holds this very version; revalidated on every load. */
const serve = (asset: Asset) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    request.headers["if-none-match"] === asset.etag
      ? HttpServerResponse.empty({ status: 304, headers: { ...guarded, etag: asset.etag } })
      : HttpServerResponse.uint8Array(asset.body, {
          contentType: asset.contentType,
          headers: { ...guarded, etag: asset.etag, "cache-control": "no-cache" }
        })
  )

const notFound = Effect.succeed(HttpServerResponse.empty({ status: 404 }))

const named = (files: ReadonlyMap<string, Asset>) =>
  Effect.flatMap(HttpRouter.params, (params) => {
    const asset = files.get(params.name ?? "")
    return asset === undefined ? notFound : serve(asset)
  })

/** The console's routes on the operator listener's router. */
export const layer: Layer.Layer<never, ConsoleAssetsMissing, HttpRouter.HttpRouter> = Layer.unwrap(
  Effect.map(loadAssets, ({ assets, page, vendor }) =>
    Layer.mergeAll(
      HttpRouter.add("GET", "/console", serve(page)),
      HttpRouter.add("GET", "/console/assets/:name", named(assets)),
      HttpRouter.add("GET", "/console/vendor/:name", named(vendor))
    )
  )
)
