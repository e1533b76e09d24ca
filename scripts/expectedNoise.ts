/**
 * Console lines a clean test run prints that are no problem, dropped from `pnpm test`'s output
 * (vitest's `onConsoleLog`) so that what remains is worth reading:
 * - bigint-buffer (under @solana/spl-token) announces that its optional native binding is absent
 *   and it uses its pure-JS code, which is correct;
 * - the failures the tests provoke on purpose, logged by the code under test as it should log
 *   them (a stub chain's defect, a refusing RPC node).
 */
const expected = [
  "bigint: Failed to load bindings, pure JS will be used",
  "stub chain: SELECT * FROM secrets",
  "rpc at 10.0.0.7 refused",
  "refused by the test"
]

/** `false` drops the line. */
export const onConsoleLog = (log: string): false | undefined =>
  expected.some((text) => log.includes(text)) ? false : undefined
