/**
 * `POST /api/v1/fx/contracts` request body.
 */
import { Schema } from "effect"
import { ShortString, Uuid } from "../kernel/Fields.ts"

export const ContractRequest = Schema.Struct({
  quote_id: Uuid,
  partner_transaction_reference: Schema.optionalKey(Schema.NullOr(ShortString(256)))
}).annotate({ identifier: "ContractRequest" })
export type ContractRequest = typeof ContractRequest.Type
