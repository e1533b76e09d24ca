/**
 * The type of one group's handler layer, written out so the exported layers have nameable types
 * (declaration emit): the group's routes, the API's middleware, and what each request needs.
 */
import type { Layer } from "effect"
import type { HttpRouter } from "effect/http"
import type { HttpApiGroup } from "effect/http-api"
import type { PartnerAuth } from "../api/Security.ts"
import type { RequestValidation } from "../api/Validation.ts"

export type GroupLayer<Group extends string, PerRequest = never, AtBuild = never> = Layer.Layer<
  HttpApiGroup.Service<"ratelock", Group>,
  never,
  PartnerAuth | RequestValidation | HttpRouter.Request.From<"Requires", PerRequest> | AtBuild
>
