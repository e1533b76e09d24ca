/**
 * Why a payout can fail: the chains' reasons, one list, written here below the lifecycle because a
 * partner reads them on the wire (a payout's `failure_code`, `OutboundEvent.payoutFailureCodes`).
 */
import { Record, Schema } from "effect"

/**
 * Every reason a gateway gives for a failure, with what it means: the one list. A partner sees it
 * as a payout's `failure_code` (`OutboundEvent.payoutFailureCodes`, the OpenAPI description of
 * `payout_failed` and partner-api.md's table are written from it). A new reason is a line here.
 */
export const failureReasons = {
  insufficient_funds: "The hot wallet holds too little of the token, or of the native currency for the fee.",
  reverted: "The chain executed the payout transaction and it failed, or the node's simulation of it failed.",
  nonce_consumed: "EVM: another transaction took the payout's nonce, so it can never be mined; a new one is prepared.",
  nonce_conflict: "EVM: the node holds a different pending transaction with the payout's nonce.",
  fee_too_low: "EVM: the node refused the transaction's fee as too low.",
  blockhash_expired: "Solana: the transaction's blockhash expired before it landed; a new one is prepared.",
  no_hot_wallet: "No hot wallet key is configured for the chain, so nothing can be signed.",
  rpc_unavailable: "The chain's RPC node could not be reached (for the sandbox: its ledger could not be read).",
  rate_limited: "The chain's RPC node rate-limited the call (HTTP 429 or JSON-RPC -32005).",
  rpc_error: "The chain's RPC node answered with an error.",
  invalid_address: "The destination is not a wallet address the chain can pay.",
  invalid_amount: "The amount is not positive, or has more decimals than the token.",
  invalid_index: "Funding only: a deposit address index out of range.",
  invalid_cursor: "Funding only: a funding cursor that is not a block number.",
  invalid_prepared: "The persisted transaction was not prepared by this gateway.",
  unsupported_rail: "The chain is not enabled for the environment.",
  unsupported_token: "The token is not issued, or not configured, on the chain.",
  token_mismatch: "Start-up only: the token's contract or mint on the chain does not match its configuration.",
  chain_mismatch: "Start-up only: the RPC node serves another chain than the one configured.",
  invalid_config: "Start-up only: a setting of the chain (RPC URL, keys) is missing or malformed.",
  unsupported: "Sandbox helpers only: the simulated chain cannot do what was asked of it.",
  rejected: "Sandbox: the simulated chain rejected the payout, as its forced-failure helper asked."
} as const

/** Machine-readable reason of a `ChainError` or a failed payout lookup: a key of {@link failureReasons}. */
export const FailureReason = Schema.Literals(Record.keys(failureReasons))
export type FailureReason = typeof FailureReason.Type
