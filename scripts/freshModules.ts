/**
 * A setup file for projects whose files share their workers (`isolate: false`): each test file
 * starts on fresh copies of the workspace's own modules, as it would in a worker of its own, so
 * no module-level value one file touched (a constant's lazily cached field, a counter) reaches the
 * next. What Node loads itself (`effect` and the rest of node_modules) stays loaded: importing it
 * once per worker rather than once per file is what sharing the workers saves.
 */
import { vi } from "vitest"

vi.resetModules()
