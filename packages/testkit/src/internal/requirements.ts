/**
 * What the worker passes run on: the stores, the chain, market data, ids, the webhook transport
 * and MACs for signing (the same set as `@ratelock/http`'s workers).
 */
import type {
  ChainGateway,
  ContractRepo,
  EventRepo,
  IdGenerator,
  MarketData,
  PartnerRepo,
  PayoutRepo,
  WebhookTransport
} from "@ratelock/core"
import type { Mac } from "effect/crypto"

export type Requirements =
  | ContractRepo.ContractRepo
  | EventRepo.EventRepo
  | PayoutRepo.PayoutRepo
  | PartnerRepo.PartnerRepo
  | ChainGateway.ChainGateway
  | MarketData.MarketData
  | IdGenerator.IdGenerator
  | WebhookTransport.WebhookTransport
  | Mac.Mac
