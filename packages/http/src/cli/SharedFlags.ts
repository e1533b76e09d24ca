/** Flags several command groups take, described once so that their help reads the same everywhere. */
import { Flag } from "effect/cli"

export const environmentFlag = Flag.Literals("environment", ["sandbox", "production"] as const).pipe(
  Flag.withDescription("The environment: sandbox or production")
)
