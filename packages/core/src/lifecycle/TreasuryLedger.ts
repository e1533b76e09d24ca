/**
 * The treasury's ledger: the money Ratelock moves on chain by itself, beside the contracts' ledger
 * (`Ledger`) whose accounts it continues. A sweep, a refund, a payout's network fee, funds that
 * reached a funding address and funded nothing, an inflow an operator records: each books entries
 * that sum to zero per currency, under one `source` key (booked once, whoever books it again).
 *
 * Every entry names its chain and, where the account is a wallet, the wallet's address, so the
 * books of each address can be set against the chain's balance (`Reconciliation`).
 *
 * Accounts, beside the contracts' `funding_wallet`, `partner_prepayment` and `payout_wallet` (the
 * hot wallet): `treasury`, the cold address sweeps send beyond the hot wallet's float (asset);
 * `refunds_payable`, deposits released to the partner and not yet sent back (liability);
 * `unmatched_funds`, funds received that funded nothing, owed back (liability); `network_fees`,
 * the fees paid to the chains (expense, in the native currency); `account_rent`, Solana rent paid
 * for token accounts or recovered by closing them; `owner_funding`, what the operator put into the
 * wallets (a treasury top-up, equity).
 */
import { Schema } from "effect"
import type { DateTime } from "effect"
import * as Money from "../kernel/Money.ts"
import { Chain, FundsCurrency } from "../kernel/Rail.ts"
import type { ContractRecord } from "../terms/Contract.ts"
import { Environment } from "../terms/Partner.ts"
import type { UnmatchedTransfer } from "./ContractRepo.ts"
import { entryFields } from "./Ledger.ts"

export const TreasuryAccount = Schema.Literals([
  "funding_wallet",
  "partner_prepayment",
  "payout_wallet",
  "treasury",
  "refunds_payable",
  "unmatched_funds",
  "network_fees",
  "account_rent",
  "owner_funding"
])
export type TreasuryAccount = typeof TreasuryAccount.Type

/** What booked an entry. */
export const TreasuryEntryKind = Schema.Literals([
  "sweep",
  "refund",
  "network_fee",
  "unmatched_received",
  "inflow_recorded"
])
export type TreasuryEntryKind = typeof TreasuryEntryKind.Type

/** The chains' own currencies, which pay the fees. */
export const NativeCurrency = Schema.Literals(["ETH", "POL", "SOL"])
export type NativeCurrency = typeof NativeCurrency.Type

export const nativeCurrencyOf = (chain: Chain): NativeCurrency =>
  chain === "ethereum" ? "ETH" : chain === "polygon" ? "POL" : "SOL"

export const TreasuryCurrency = Schema.Union([FundsCurrency, NativeCurrency])
export type TreasuryCurrency = typeof TreasuryCurrency.Type

export const TreasuryEntry = Schema.Struct({
  /** What booked it, unique per booking: `sweep:<id>`, `refund:<id>`, `payout-fee:<id>`, `unmatched:<chain>:<hash>:<index>`, `inflow:<id>`. */
  source: Schema.String,
  environment: Environment,
  chain: Chain,
  /** The wallet the account is held at (a funding address, the treasury); null for the hot wallet and the non-wallet accounts. */
  address: Schema.NullOr(Schema.String),
  contractId: Schema.NullOr(Schema.String),
  partnerId: Schema.NullOr(Schema.String),
  ...entryFields(TreasuryEntryKind, TreasuryAccount, TreasuryCurrency)
}).annotate({ identifier: "TreasuryEntry" })
export type TreasuryEntry = typeof TreasuryEntry.Type

/** Where and for whom a booking is made; each line below adds its account, address and amount. */
export interface Booking {
  readonly source: string
  readonly kind: TreasuryEntryKind
  readonly environment: Environment
  readonly chain: Chain
  readonly contractId: string | null
  readonly partnerId: string | null
  readonly at: DateTime.Utc
}

/** One side of a booking: signed (debit > 0, credit < 0). */
export interface Line {
  readonly account: TreasuryAccount
  readonly address: string | null
  readonly currency: TreasuryCurrency
  readonly amount: Money.Decimal
}

/** The entries of a booking, zero lines left out. */
export const entries = (booking: Booking, lines: ReadonlyArray<Line>): ReadonlyArray<TreasuryEntry> =>
  lines
    .filter((l) => !Money.isZero(l.amount))
    .map((l) => ({
      source: booking.source,
      kind: booking.kind,
      environment: booking.environment,
      chain: booking.chain,
      contractId: booking.contractId,
      partnerId: booking.partnerId,
      at: booking.at,
      account: l.account,
      address: l.address,
      currency: l.currency,
      amount: l.amount
    }))

/** `amount` moved from `from` to `to`: a debit of `to`, a credit of `from`. */
export const transfer = (
  from: Omit<Line, "amount" | "currency">,
  to: Omit<Line, "amount" | "currency">,
  currency: TreasuryCurrency,
  amount: Money.Decimal
): ReadonlyArray<Line> => [
  { ...to, currency, amount },
  { ...from, currency, amount: Money.subtract(Money.zero, amount) }
]

/**
 * What mined transactions moved in a chain's native currency, as a gateway measures it: the hot
 * wallet's change (negative when it paid), a funding address's change (gas received less the fee
 * its own transfer paid), the fees paid in all, and the rent a closed token account returned to the
 * hot wallet (negative when rent was paid to open one). `hotWallet + fundingAddress + fees - rent`
 * is zero.
 */
export interface NativeMovement {
  readonly hotWallet: Money.Decimal
  readonly fundingAddress: Money.Decimal
  readonly fees: Money.Decimal
  readonly rent: Money.Decimal
}

/** The lines a native movement books: the hot wallet, the funding address, the fees and the rent. */
export const nativeLines = (chain: Chain, fundingAddress: string | null, n: NativeMovement): ReadonlyArray<Line> => {
  const currency = nativeCurrencyOf(chain)
  return [
    { account: "payout_wallet", address: null, currency, amount: n.hotWallet },
    { account: "funding_wallet", address: fundingAddress, currency, amount: n.fundingAddress },
    { account: "network_fees", address: null, currency, amount: n.fees },
    { account: "account_rent", address: null, currency, amount: Money.subtract(Money.zero, n.rent) }
  ]
}

/** The source an unmatched transfer's booking is kept under: one per transfer on its chain. */
export const unmatchedSource = (transfer: Pick<UnmatchedTransfer, "chain" | "transactionHash" | "index">): string =>
  `unmatched:${transfer.chain}:${transfer.transactionHash}:${transfer.index}`

/**
 * What a transfer that funded nothing books, when it is of the contract's settlement token: the
 * tokens sit on the funding address (`funding_wallet` there, so a sweep takes them) and are owed
 * back (`unmatched_funds`, until a refund settles it). Another token (raw base units, decimals
 * unknown) books nothing: the treasury keeps the settlement and native currencies only.
 */
export const unmatchedEntries = (
  received: UnmatchedTransfer,
  contract: Pick<ContractRecord, "fundingWalletAddress" | "settlementCurrency">
): ReadonlyArray<TreasuryEntry> => {
  if (received.unit !== "token" || received.token !== contract.settlementCurrency) return []
  const booking: Booking = {
    source: unmatchedSource(received),
    kind: "unmatched_received",
    environment: received.environment,
    chain: received.chain,
    contractId: received.contractId,
    partnerId: received.partnerId,
    at: received.observedAt
  }
  return entries(
    booking,
    transfer(
      { account: "unmatched_funds", address: null },
      { account: "funding_wallet", address: contract.fundingWalletAddress },
      contract.settlementCurrency,
      Money.unsafe(received.amount)
    )
  )
}
