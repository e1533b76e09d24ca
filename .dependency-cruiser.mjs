// The import rules that `pnpm lint` enforces (with biome), run as
//   depcruise --config .dependency-cruiser.mjs --output-type err-long packages
// Each violation prints as `error <rule name>: <from> → <to>` followed by the rule's comment.
//
// Parser: dependency-cruiser reads TypeScript through the compiler's JS API. The project's
// typescript 7 is the Go port, which has no such API (and dependency-cruiser accepts only
// typescript < 7), so pnpm-workspace.yaml's packageExtensions give dependency-cruiser its own
// typescript 6, the last release with that API. tsPreCompilationDeps makes it read the
// TypeScript source itself rather than the JavaScript it compiles to, so `import type` and
// `export type … from` count like any import: an upward type import is an upward dependency.
// Tried and dropped: @swc/core (dependency-cruiser walks its AST with @swc/core's JS Visitor,
// which throws on `using` declarations, as in packages/testkit/test/Promise.test.ts), and no
// TypeScript parser at all (dependency-cruiser then skips .ts files: it cruises nothing).
//
// Resolution: workspace packages are pnpm symlinks (node_modules/@ratelock/*) whose package.json
// `exports` map a "source" condition to src/. preserveSymlinks: false follows the links to
// packages/<name>/…, and conditionNames starts with "source", so `@ratelock/core` resolves to
// packages/core/src/index.ts, where the package rules below see it (with preserveSymlinks the
// same import reads packages/<name>/node_modules/@ratelock/core/…, which no rule matches; without
// "source" it points at dist/, absent before a build, and not-to-unresolvable fires).
// No tsConfig: tsconfig.base.json has no `paths`, and its customConditions are not read by
// dependency-cruiser's resolver (conditionNames is); reading it would only tie lint to the
// options typescript 6 knows. combinedDependencies: a package's imports are checked against its
// own package.json and the root's (where vitest, tsup and the like are declared).
//
// The rule test, packages/test-support/test/LayerRules.test.ts, runs this file over a small tree
// with a violation of each kind and checks each is refused under its rule's name.

/** @import { IConfiguration, IRegularForbiddenRuleType } from "dependency-cruiser" */

// packages/core/src's folders, lowest first: a folder imports only itself and the folders
// before it. WorkerPasses.ts comes after them all (it may import every folder), and index.ts,
// the barrel, may import anything; no folder imports either of those two files.
// limits/ sits below pricing/: the pricer refuses a quote that would breach its corridor's limits
// (risk.md), so it reads CorridorLimit, while nothing of limits/ prices anything.
const coreLayers = [
  "kernel",
  "terms",
  "market",
  "limits",
  "pricing",
  "simulation",
  "partners",
  "lifecycle",
  "hedging",
  "risk",
  "finance",
  "operator"
]
const core = "^packages/core/src/"
const coreTopFiles = `${core}(?:index|WorkerPasses)\\.ts$`

/** @type {IRegularForbiddenRuleType[]} */
const coreLayerRules = coreLayers.map((layer, rank) => {
  const below = coreLayers.slice(0, rank)
  const above = coreLayers.slice(rank + 1)
  const may =
    below.length === 0
      ? "no other folder of core"
      : `only ${below.map((l) => `${l}/`).join(", ")} (and ${layer}/ itself)`
  return {
    name: `core-layer-${layer}`,
    severity: "error",
    comment:
      `${layer}/ may import ${may}, never index.ts or WorkerPasses.ts. ` +
      `core's layers, lowest first: ${coreLayers.join(" < ")} < WorkerPasses.ts`,
    from: { path: `${core}${layer}/` },
    to: { path: above.length === 0 ? coreTopFiles : [`${core}(?:${above.join("|")})/`, coreTopFiles] }
  }
})

// The folders a core module may live in: one outside this list would escape the layer rules.
// core/src/internal/ (today's) is unranked: all of core may use it, internal-private keeps it in core.
const coreFolders = `${core}(?!(?:${coreLayers.join("|")}|internal)/)[^/]+/`

// internal/ rules. dependency-cruiser puts the groups that a rule's from.path captured into its
// to.pathNot ($1, $2, …): the importer's folders are captured one by one, and the import is
// allowed when the internal/ folder sits directly in one of them. Optional parts are written as
// alternatives with an empty branch, (x|), since dependency-cruiser refuses regular expressions
// with nested repetition (its ReDoS guard) and drops groups that captured nothing.
// A module's folders, 8 at most under packages/<name>/: $1 is packages/<name>, $2…$9 the folders
// below it (with their leading /), each empty once the path has no more.
const parentFolders = `^(packages/[^/]+)${"(/[^/]+(?=/)|)".repeat(8)}`
// An internal/ folder directly inside one of those folders, with no internal/ nested below it.
const ownInternal = `^$1(?:$2(?:$3(?:$4(?:$5(?:$6(?:$7(?:$8(?:$9|)|)|)|)|)|)|)|)/internal/(?!internal/|.*/internal/)`
const anyInternal = "^packages/[^/]+/src/(?:internal/|.*/internal/)"
const testsAndBenches = "^packages/[^/]+/(?:test|bench)/"

// Between packages: which workspace packages each package's src may import.
const packageDeps = {
  core: [],
  "adapters-store": ["core"],
  "adapters-chain": ["core"],
  http: ["core", "adapters-store", "adapters-chain"],
  testkit: ["core", "adapters-store", "adapters-chain", "http"]
}

/** @type {IRegularForbiddenRuleType[]} */
const packageRules = Object.entries(packageDeps).map(([name, deps]) => ({
  name: `package-${name}`,
  severity: "error",
  comment:
    deps.length === 0
      ? `${name}'s src imports no other workspace package`
      : `${name}'s src may import only these workspace packages: ${deps.join(", ")}`,
  from: { path: `^packages/${name}/src/` },
  // test-support has a rule of its own (test-support-only-in-tests), which says why
  to: { path: "^packages/[^/]+/", pathNot: `^packages/(?:${[name, ...deps, "test-support"].join("|")})/` }
}))

/** @type {IConfiguration} */
export default {
  forbidden: [
    ...coreLayerRules,
    {
      name: "core-layer-WorkerPasses",
      severity: "error",
      comment: "WorkerPasses.ts may import every folder of core, but not index.ts (the barrel)",
      from: { path: `${core}WorkerPasses\\.ts$` },
      to: { path: `${core}index\\.ts$` }
    },
    {
      name: "core-layer-unlisted-folder",
      severity: "error",
      comment:
        "a folder of packages/core/src that is not in core's layer order (coreLayers in " +
        ".dependency-cruiser.mjs) escapes the layer rules: move the module, or add the folder there",
      from: { path: coreFolders },
      to: {}
    },
    {
      name: "core-layer-unlisted-folder",
      severity: "error",
      comment:
        "a folder of packages/core/src that is not in core's layer order (coreLayers in " +
        ".dependency-cruiser.mjs) escapes the layer rules: move the module, or add the folder there",
      from: {},
      to: { path: coreFolders }
    },
    {
      name: "internal-private",
      severity: "error",
      comment:
        "an internal/ folder belongs to the folder that holds it: only modules in that folder " +
        "(or its subfolders) import it. Export what others need from a module of that folder",
      from: { path: parentFolders, pathNot: testsAndBenches },
      to: { path: anyInternal, pathNot: ownInternal }
    },
    {
      name: "internal-private-tests",
      severity: "error",
      comment:
        "a package's tests and benches may reach into its own internal/ folders (white-box tests), " +
        "never into another package's",
      from: { path: "^packages/([^/]+)/(?:test|bench)/" },
      to: { path: anyInternal, pathNot: "^packages/$1/src/" }
    },
    ...packageRules,
    {
      name: "test-support-only-in-tests",
      severity: "error",
      comment:
        "@ratelock/test-support is for tests and benches (packages/*/test/, packages/*/bench/) " +
        "only: it is never built or published, so no src imports it",
      from: { pathNot: "^packages/(?:[^/]+/(?:test|bench)|test-support)/" },
      to: { path: "^packages/test-support/" }
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "a cycle between modules: break it by moving what both sides need into a third module",
      from: {},
      to: { circular: true }
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment:
        "an import that resolves to no file. For @ratelock/<name>: pnpm links only the packages that " +
        "this package's package.json declares, and <name>'s exports must map the \"source\" condition",
      from: {},
      to: { couldNotResolve: true }
    },
    {
      name: "no-non-package-json",
      severity: "error",
      comment: "an npm package that neither this package's package.json nor the root's declares",
      from: {},
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] }
    },
    {
      name: "not-to-dev-dep",
      severity: "error",
      comment:
        "src uses a package declared only in devDependencies: it is missing when the package is installed " +
        "(a peer dependency, also a dev one for the workspace, is the installer's to provide: core's effect)",
      from: { path: "^packages/[^/]+/src/" },
      to: {
        dependencyTypes: ["npm-dev"],
        dependencyTypesNot: ["type-only", "npm-peer"],
        pathNot: "node_modules/@types/"
      }
    },
    {
      name: "no-deprecated-core",
      severity: "error",
      comment: "a deprecated Node.js core module",
      from: {},
      to: { dependencyTypes: ["core"], path: "^(?:punycode|domain|constants|sys|_linklist|_stream_wrap)$" }
    }
  ],
  options: {
    tsPreCompilationDeps: true,
    moduleSystems: ["es6", "cjs", "tsd"],
    doNotFollow: { path: "node_modules" },
    // build output and what test runs leave (all git-ignored) inside a package
    exclude: { path: "^packages/[^/]+/(?:dist|coverage|\\.vitest|\\.data|test-artifacts)/" },
    combinedDependencies: true,
    preserveSymlinks: false,
    enhancedResolveOptions: {
      conditionNames: ["source", "import", "require", "node", "default"],
      exportsFields: ["exports"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".d.ts", ".js", ".mjs", ".cjs", ".json"]
    },
    skipAnalysisNotInRules: true
  }
}
