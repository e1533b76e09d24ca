/** Flags several command groups take, described once so that their help reads the same everywhere. */
import { Environment } from "@ratelock/core"
import { Flag } from "effect/cli"

export const environmentFlag = Flag.Literals("environment", Environment.all).pipe(
  Flag.withDescription("The environment: sandbox or production")
)

export const partnerFlag = Flag.String("partner").pipe(Flag.withDescription("The partner id"))

/** The most a listing shows. */
export const listLimitFlag = Flag.Int("limit").pipe(
  Flag.withDescription("At most this many (default 100)"),
  Flag.withDefault(100)
)
