/**
 * `pnpm start`: the Ratelock service (`serve.ts`), with Node's compile cache on first: V8's
 * compiled code of the modules is kept between starts (under this package's
 * `node_modules/.cache`), so a restart does not compile them all again. Where that directory
 * cannot be written the start goes on without it.
 */
import { enableCompileCache } from "node:module"
import { join } from "node:path"

enableCompileCache(join(import.meta.dirname, "..", "node_modules", ".cache", "node-compile-cache"))
await import("./serve.ts")
