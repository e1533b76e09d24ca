/**
 * The two environments a partner works in: `sandbox` (simulated chains, test money) and
 * `production` (real chains, real money). Every list of them is this one.
 */
import { Schema } from "effect"

export const Environment = Schema.Literals(["sandbox", "production"])
export type Environment = typeof Environment.Type

/** Every environment, in the order partners meet them: sandbox, then production. */
export const all: ReadonlyArray<Environment> = Environment.literals

/** Production first: the order an operator reads the book in, real money before test money. */
export const productionFirst: ReadonlyArray<Environment> = [...all].reverse()
