/**
 * Quote routes over core's `Quotes` programs: create (idempotent), list, get. Every read and write
 * is scoped by the authenticated partner and environment.
 */
import {
  type CorridorLimitRepo,
  type IdempotencyRepo,
  type IdGenerator,
  type MarketData,
  Quote,
  type QuoteRepo,
  Quotes
} from "@ratelock/core"
import { Effect } from "effect"
import type { Digest } from "effect/crypto"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { CurrentPartner } from "../api/Security.ts"
import { mapErrors } from "./HttpErrors.ts"
import type { GroupLayer } from "./GroupLayer.ts"
import * as Idempotent from "./Idempotent.ts"

export const layer: GroupLayer<
  "quotes",
  | QuoteRepo.QuoteRepo
  | IdempotencyRepo.IdempotencyRepo
  | IdGenerator.IdGenerator
  | MarketData.MarketData
  | CorridorLimitRepo.CorridorLimitRepo
  | Digest.Digest
> = HttpApiBuilder.group(Api, "quotes", (handlers) =>
  handlers
    .handle("create", (call) =>
      Idempotent.post(call, Quote.QuoteResponse, 201, (partner) => Quotes.create(partner, call.payload)).pipe(mapErrors)
    )
    .handle("list", ({ query }) =>
      Effect.flatMap(CurrentPartner, (partner) => Quotes.list(partner, query)).pipe(mapErrors)
    )
    .handle("get", ({ params }) =>
      Effect.flatMap(CurrentPartner, (partner) => Quotes.get(partner, params.quote_id)).pipe(mapErrors)
    )
)
