/**
 * Contract routes over core's `Contracts` programs: create from a quote (idempotent) and the
 * customer's locks.
 */
import {
  type ChainGateway,
  Contract,
  type ContractRepo,
  Contracts,
  type IdempotencyRepo,
  type IdGenerator,
  type QuoteRepo
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
  "contracts",
  | QuoteRepo.QuoteRepo
  | ContractRepo.ContractRepo
  | ChainGateway.ChainGateway
  | IdempotencyRepo.IdempotencyRepo
  | IdGenerator.IdGenerator
  | Digest.Digest
> = HttpApiBuilder.group(Api, "contracts", (handlers) =>
  handlers
    .handle("create", (call) =>
      Idempotent.post(call, Contract.ContractResponse, 201, (partner) => Contracts.create(partner, call.payload)).pipe(
        mapErrors
      )
    )
    .handle("locks", ({ params, query }) =>
      Effect.flatMap(CurrentPartner, (partner) =>
        Contracts.listLocks(partner, params.customer_reference_id, query)
      ).pipe(mapErrors)
    )
)
