/**
 * The balances by the books that `MovementRepo` reads (computed by its statements, not stored): a
 * funding address's (`FundingBalance`) and a wallet's (`WalletBalance`); and the trial balance a
 * daily close reads (`LedgerBalance`). Each sum as `numeric` text.
 */
import { Contract, DailyClose, MovementRepo, Rail, TreasuryLedger } from "@ratelock/core"
import { Schema } from "effect"
import { decimal, Numeric, rowSchema } from "./columns.ts"

const FundingBalanceColumns = Schema.Struct({
  contract_id: Schema.String,
  partner_id: Schema.String,
  address: Schema.String,
  funding_index: Schema.NullOr(Schema.Int),
  currency: Rail.SettlementCurrency,
  status: Contract.ContractStatus,
  balance: Numeric,
  sweeping: Schema.Boolean
})

/** A row of `fundingBalances` → `FundingBalance`. */
export const FundingBalanceRow = rowSchema(
  "FundingBalanceRow",
  FundingBalanceColumns,
  MovementRepo.FundingBalance,
  (r) => ({
    contractId: r.contract_id,
    partnerId: r.partner_id,
    address: r.address,
    fundingIndex: r.funding_index,
    currency: r.currency,
    status: r.status,
    balance: decimal(r.balance),
    sweeping: r.sweeping
  })
)

const WalletAccount = Schema.Literals(["payout_wallet", "treasury"])

const WalletBalanceColumns = Schema.Struct({
  account: WalletAccount,
  address: Schema.NullOr(Schema.String),
  currency: TreasuryLedger.TreasuryCurrency,
  balance: Numeric
})

/** `MovementRepo.WalletBalance` as a schema, for the row's decoding. */
const WalletBalance = Schema.Struct({
  account: WalletAccount,
  address: Schema.NullOr(Schema.String),
  currency: TreasuryLedger.TreasuryCurrency,
  balance: Schema.BigDecimal
})

/** A row of `walletBalances` → `WalletBalance`. */
export const WalletBalanceRow = rowSchema("WalletBalanceRow", WalletBalanceColumns, WalletBalance, (r) => ({
  account: r.account,
  address: r.address,
  currency: r.currency,
  balance: decimal(r.balance)
}))

const TrialBalanceColumns = Schema.Struct({
  ledger: DailyClose.LedgerBalance.fields.ledger,
  account: Schema.String,
  currency: Schema.String,
  balance: Numeric
})

/** A row of `trialBalance` → `LedgerBalance` (its balance with the scale the sum has). */
export const TrialBalanceRow = rowSchema("TrialBalanceRow", TrialBalanceColumns, DailyClose.LedgerBalance, (r) => r)
