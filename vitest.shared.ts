/**
 * What every package's vitest project shares. Vitest resolves a project's `maxWorkers` from the
 * project's own config, not from the root's, and the projects of one run must agree on it, so it
 * is set here once and spread into each package's `vitest.config.ts`.
 */
import { availableParallelism } from "node:os"

/**
 * At least three test files at a time. Vitest's default is one worker less than the cores: one
 * file at a time on a 2-core machine, while most of the long files (servers, CLI commands, crash
 * tests) wait on child processes, sockets and timers with the CPU idle. On more cores it is
 * vitest's default. `--maxWorkers` overrides it.
 */
export const workers = { maxWorkers: Math.max(3, availableParallelism() - 1) } as const
