// openapi-typescript (the OpenAPI tests' client generator) builds its output with TypeScript 5's JS
// API, which TypeScript 7 (the workspace's native compiler) no longer has: it gets its own
// TypeScript 5 instead of sharing the workspace's as a peer.
module.exports = {
  hooks: {
    readPackage(pkg) {
      if (pkg.name === "openapi-typescript") {
        delete pkg.peerDependencies?.typescript
        pkg.dependencies = { ...pkg.dependencies, typescript: "^5.9.0" }
      }
      return pkg
    }
  }
}
