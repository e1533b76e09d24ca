/**
 * `ratelock <args>` run in the test's own process: the CLI's own command tree (`OperatorCli.runWith`)
 * with the environment given as its configuration, what it prints collected as a process's stdout
 * and stderr, and its exit code as `NodeRuntime.runMain` would set it. A command started as a
 * process costs about 1.7 s of CPU, most of it Node loading the CLI's modules and PGlite's; in the
 * test's process both are loaded once. `process.ts`'s `cliProcess` runs a command as a process,
 * for the tests of the command line itself.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, ConfigProvider, Console, Effect, Runtime } from "effect"
import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import * as OperatorCli from "../../src/OperatorCli.ts"

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** What a stream was given: a Node `Console` writes each line to it at once. */
const collector = () => {
  const chunks: Array<string> = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk))
      done()
    }
  })
  return { stream, text: () => chunks.join("") }
}

/** Logs a failure the CLI did not report itself, as `runMain` does before the process exits. */
const reportedAsRunMain = <A, E, R>(program: Effect.Effect<A, E, R>) =>
  Effect.tapCause(program, (cause) =>
    Cause.hasInterruptsOnly(cause) || !Runtime.getErrorReported(Cause.squash(cause))
      ? Effect.void
      : Effect.logError(cause)
  )

/** Runs `ratelock <args>` with `env` as its environment variables (an undefined one is unset). */
export const runCli = async (
  env: Record<string, string | undefined>,
  args: ReadonlyArray<string>
): Promise<CliResult> => {
  const stdout = collector()
  const stderr = collector()
  const exit = await OperatorCli.runWith(args).pipe(
    reportedAsRunMain,
    Effect.provide(NodeServices.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env)),
    Effect.provideService(
      Console.Console,
      new NodeConsole({ stdout: stdout.stream, stderr: stderr.stream, colorMode: false })
    ),
    Effect.runPromiseExit
  )
  let code = 1
  Runtime.defaultTeardown(exit, (exitCode) => {
    code = exitCode
  })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}

/** Runs `ratelock <args> --json` and parses what it printed; a command that fails throws its stderr. */
export const runCliJson = async (
  env: Record<string, string | undefined>,
  args: ReadonlyArray<string>
): Promise<unknown> => {
  const result = await runCli(env, [...args, "--json"])
  if (result.code !== 0) throw new Error(`ratelock ${args.join(" ")} exited ${result.code}: ${result.stderr}`)
  return JSON.parse(result.stdout)
}
