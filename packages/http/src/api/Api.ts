/**
 * The Partner API (`partner-api.md`), importable on its own: the server, the typed client and
 * the OpenAPI document are all made from this one definition.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { RequestDecoding } from "@ratelock/core"
import {
  ContractsGroup,
  PartnersGroup,
  QuotesGroup,
  SandboxGroup,
  SandboxInboxGroup,
  SystemGroup,
  WebhooksGroup
} from "./Groups.ts"
import { optionalBodies } from "./OptionalBody.ts"
import { eventSchemas, outboundWebhooks } from "./OutboundWebhooks.ts"
import { parameterValues } from "./ParameterValues.ts"
import { credentialSchemes } from "./Security.ts"
import { RequestValidation } from "./Validation.ts"

const Routes = HttpApi.make("ratelock")
  .add(PartnersGroup)
  .add(QuotesGroup)
  .add(ContractsGroup)
  .add(WebhooksGroup)
  .add(SandboxGroup)
  .add(SandboxInboxGroup)
  .add(SystemGroup)
  // after the groups: it applies to the groups added so far
  .middleware(RequestValidation)
  // report every failure of a request, and refuse unknown body properties
  .annotate(HttpApi.ParseOptions, { errors: "all" })
  .annotate(HttpApi.PayloadParseOptions, RequestDecoding.parseOptions)

export class Api extends Routes.annotate(HttpApi.AdditionalSchemas, eventSchemas).annotateMerge(
  OpenApi.annotations({
    title: "Ratelock Partner API",
    version: "0.1.0",
    description:
      "FX rate locks for partner platforms: quotes, contracts, inbound events and webhook audit; sandbox helpers to drive a contract's life.",
    // the server the document is read from
    servers: [{ url: "/" }],
    transform: (spec) => outboundWebhooks(optionalBodies(credentialSchemes(parameterValues(Routes)(spec))))
  })
) {}
