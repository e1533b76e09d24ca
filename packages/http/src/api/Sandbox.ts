/**
 * The sandbox helpers' wire schemas (beyond the spec, api-decisions.md "Sandbox"), and
 * `SandboxOnly`: their routes do not exist for production keys (404 `not_found`, as an unknown
 * route), checked after authentication and before the request is decoded.
 */
import { Fields, Money, Rail } from "@ratelock/core"
import { Schema } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { NotFound } from "./Errors.ts"
import type { CurrentPartner } from "./Security.ts"

export class SandboxOnly extends HttpApiMiddleware.Service<SandboxOnly, { requires: CurrentPartner }>()(
  "@ratelock/http/SandboxOnly",
  { error: NotFound }
) {}

/** `POST /sandbox/contracts/{id}/fund`: the amount to send; without it, what is still due. */
export const SandboxFundRequest = Schema.Struct({
  amount: Schema.optionalKey(Money.DecimalString)
}).annotate({ identifier: "SandboxFundRequest" })
export type SandboxFundRequest = typeof SandboxFundRequest.Type

/** A transfer the simulated chain recorded to a contract's funding address. */
export const SandboxTransfer = Schema.Struct({
  fx_contract_id: Fields.Uuid,
  chain: Rail.Chain,
  currency: Rail.SettlementCurrency,
  funding_wallet_address: Schema.String,
  amount: Money.DecimalString,
  transaction_hash: Schema.String,
  block_number: Schema.Int,
  /** When the simulated chain confirms it; the funding worker counts it from then on. */
  confirms_at: Fields.Datetime
}).annotate({ identifier: "SandboxTransfer" })
export type SandboxTransfer = typeof SandboxTransfer.Type

/** The contract's next payout transaction will be rejected by the simulated chain. */
export const SandboxPayoutFailure = Schema.Struct({
  fx_contract_id: Fields.Uuid,
  next_payout_attempt: Schema.Literal("fails")
}).annotate({ identifier: "SandboxPayoutFailure" })
export type SandboxPayoutFailure = typeof SandboxPayoutFailure.Type
