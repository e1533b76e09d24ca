/**
 * An in-test fake of the chain port: tests push confirmed transfers (of the settlement token, or
 * stray ones of another token) onto addresses and decide how payouts end. It records every
 * broadcast so tests can prove a payout went out once.
 *
 * A payout's versions are written into its persisted form (`signed:<id>:<attempt>` then one
 * `|<suffix>` per replacement: `r` the workers', `b` a bump, `c` a cancellation); the version
 * mined is the latest one broadcast.
 */
import { DateTime, Effect } from "effect"
import { ChainGateway, Money, type TreasuryLedger } from "@ratelock/core"

/** `reject_prepare`: nothing can be signed (no hot wallet); `unfunded`: the hot wallet is short of funds. */
export type PayoutOutcome = "confirm" | "pending" | "fail" | "reject_prepare" | "unfunded"

export class FakeChain {
  readonly transfers = new Map<string, Array<ChainGateway.ConfirmedTransfer>>()
  readonly strays = new Map<string, Array<ChainGateway.StrayTransfer>>()
  readonly prepared = new Map<string, ChainGateway.PreparedPayout>()
  readonly broadcasts: Array<string> = []
  /** What the chain does with the next payouts (consumed in order; "confirm" once empty). */
  readonly outcomes: Array<PayoutOutcome> = []
  private readonly fate = new Map<string, PayoutOutcome>()
  /** What `replacePayout(…, "due")` answers next (consumed in order; "mining" once empty). */
  readonly replies: Array<"replace" | "fee_cap"> = []
  /** Reasons the next broadcasts are refused with (consumed in order; accepted once empty). */
  readonly refusals: Array<ChainGateway.FailureReason> = []
  /**
   * The hot wallet of each `environment|chain` (`hotWallet` answers null for the others, as the
   * simulated chains do); tests change its balances as the chain would.
   */
  readonly hotWallets = new Map<string, ChainGateway.HotWallet>()
  /**
   * What `hotWallet` answers instead, for each `environment|chain` set: the latest block's balances,
   * where a movement is mined and not yet confirmed. `balances` and `nativeBalances` of the hot
   * wallet's address answer `hotWallets`, the confirmed ones (an asset it does not list: zero).
   */
  readonly latestHotWallets = new Map<string, ChainGateway.HotWallet>()
  /**
   * The hot wallet's token balance of each `environment|chain|token` a test set: a draft on that
   * rail is refused `insufficient_funds` unless it covers the order's `committed` plus its amount,
   * as the real gateways do, and a payout's amount leaves it when its lookup first answers it
   * confirmed. Rails without one are never short of the token.
   */
  readonly tokenBalances = new Map<string, Money.Decimal>()
  /** The payouts signed against a set balance, by their first version: what each will debit, once. */
  private readonly debits = new Map<string, { readonly key: string; readonly amount: Money.Decimal }>()
  /** Chains whose funding and hot wallet cannot be read (their RPC is down). */
  readonly unreachable = new Set<string>()
  /** `environment|chain` rails the deployment has no gateway for (the router answers `unsupported_rail`). */
  readonly disabled = new Set<string>()
  /** Every address `checkAddress` was asked about, as `environment|chain|address`. */
  readonly checkedAddresses: Array<string> = []
  private block = 100
  /** Token balances of funding addresses and sweep destinations, by address: funded, swept out, swept in. */
  readonly addressBalances = new Map<string, Money.Decimal>()
  /** The sweeps signed, by their first version's hash: what each moves once it is mined. */
  private readonly sweeps = new Map<
    string,
    { readonly from: string; readonly to: string; readonly amount: Money.Decimal }
  >()
  /** `environment|chain` rails whose funding keys are only watched (an xpub). */
  readonly watchOnly = new Set<string>()
  /** When set, what each mined transaction pays in fees from the hot wallet (for the treasury ledger). */
  nativeFee: Money.Decimal | undefined = undefined
  /** Where sweeps with no destination go: the rail's hot wallet. */
  static readonly hotWalletAddress = "hot-wallet"

  /** Payouts left pending by their outcome are mined from now on. */
  minePending() {
    for (const [hash, fate] of this.fate) if (fate === "pending") this.fate.set(hash, "confirm")
  }

  /** A confirmed transfer of `amount` to `address`. */
  fund(address: string, amount: Money.Decimal, at: DateTime.Utc) {
    const list = this.transfers.get(address) ?? []
    this.block++
    list.push({ transactionHash: `0xfund${this.block}`, index: 0, blockNumber: this.block, amount, confirmedAt: at })
    this.transfers.set(address, list)
    this.credit(address, amount)
  }

  /** A confirmed transfer of another token (`token` = its contract address / mint) to `address`. */
  sendStray(address: string, token: string, baseUnits: string) {
    const list = this.strays.get(address) ?? []
    this.block++
    list.push({ transactionHash: `0xstray${this.block}`, index: 0, blockNumber: this.block, token, baseUnits })
    this.strays.set(address, list)
  }

  readonly gateway = ChainGateway.ChainGateway.of({
    // a stand-in for the gateways' rules: EVM `0x` + 40 hex (stored lowercase), Solana 32 to 44 base58 characters
    checkAddress: (rail, address) =>
      Effect.suspend(() => {
        this.checkedAddresses.push(`${rail.environment}|${rail.chain}|${address}`)
        const fail = (reason: ChainGateway.FailureReason, message: string) =>
          Effect.fail(new ChainGateway.ChainError({ chain: rail.chain, reason, message }))
        if (this.disabled.has(`${rail.environment}|${rail.chain}`)) {
          return fail("unsupported_rail", `${rail.chain} is not enabled for ${rail.environment}`)
        }
        if (rail.chain === "solana") {
          return /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)
            ? Effect.succeed(address)
            : fail("invalid_address", `not a solana address (base58 of 32 bytes): ${address}`)
        }
        return /^0x[0-9a-fA-F]{40}$/.test(address)
          ? Effect.succeed(address.toLowerCase())
          : fail("invalid_address", `not a payable ${rail.chain} address (0x and 40 hex digits): ${address}`)
      }),
    fundingAddress: (rail, index) => Effect.succeed(`${rail.chain}:${rail.environment}:addr${index}`),
    observeFunding: (_rail, address, cursor) =>
      Effect.sync(() => {
        const all = this.transfers.get(address) ?? []
        const strays = this.strays.get(address) ?? []
        // the cursor counts what was seen of each: `transfers:strays`
        const [from = 0, strayFrom = 0] = cursor === null ? [] : cursor.split(":").map(Number)
        return {
          transfers: all.slice(from),
          stray: strays.slice(strayFrom),
          cursor: `${all.length}:${strays.length}`
        }
      }),
    observeFundingBatch: (rail, targets) =>
      this.unreachable.has(rail.chain)
        ? FakeChain.down(rail)
        : ChainGateway.observeEach(this.gateway.observeFunding, 1)(rail, targets),
    preparePayout: (order) =>
      Effect.suspend((): Effect.Effect<ChainGateway.PreparedPayout, ChainGateway.ChainError> => {
        const outcome = this.outcomes.shift() ?? "confirm"
        if (outcome === "reject_prepare" || outcome === "unfunded") {
          return Effect.fail(
            new ChainGateway.ChainError({
              chain: order.rail.chain,
              reason: outcome === "unfunded" ? "insufficient_funds" : "no_hot_wallet",
              message: outcome === "unfunded" ? "hot wallet empty" : "no hot wallet key"
            })
          )
        }
        const key = FakeChain.balanceKey(order.rail)
        const held = this.tokenBalances.get(key)
        if (held !== undefined && Money.lessThan(held, Money.sum(order.committed, order.amount))) {
          const token = order.rail.token
          return Effect.fail(
            new ChainGateway.ChainError({
              chain: order.rail.chain,
              reason: "insufficient_funds",
              message: `the hot wallet holds ${Money.format(held)} ${token}, ${Money.format(order.committed)} ${token} committed, this payout needs ${Money.format(order.amount)} ${token}`
            })
          )
        }
        const attempt = [...this.prepared.keys()].filter((k) => k.startsWith(order.payoutId)).length
        const prepared = {
          transactionHash: `0xpay-${order.payoutId}-${attempt}`,
          persisted: `signed:${order.payoutId}:${attempt}`
        }
        this.prepared.set(`${order.payoutId}#${attempt}`, prepared)
        if (held !== undefined) this.debits.set(prepared.transactionHash, { key, amount: order.amount })
        this.fate.set(prepared.transactionHash, outcome)
        return Effect.succeed(prepared)
      }),
    balances: (rail, addresses) =>
      Effect.sync(() =>
        addresses.map(
          (a) => this.confirmedAtHotWallet(rail, a, rail.token) ?? this.addressBalances.get(a) ?? Money.zero
        )
      ),
    nativeBalances: (rail, addresses) =>
      this.unreachable.has(rail.chain)
        ? FakeChain.down(rail)
        : Effect.sync(() => addresses.map((a) => this.confirmedAtHotWallet(rail, a, "NATIVE") ?? Money.zero)),
    fundingKeys: (rail) =>
      Effect.succeed(this.watchOnly.has(`${rail.environment}|${rail.chain}`) ? "watch_only" : "held"),
    draftSweep: (order) =>
      Effect.suspend(() => {
        const held = this.addressBalances.get(order.source) ?? Money.zero
        if (Money.lessThan(held, order.amount)) {
          return Effect.fail(
            new ChainGateway.ChainError({
              chain: order.rail.chain,
              reason: "insufficient_funds",
              message: "source short"
            })
          )
        }
        const sign = Effect.map(
          this.gateway.preparePayout({
            payoutId: order.sweepId,
            rail: { ...order.rail, token: order.rail.token },
            destination: order.destination ?? FakeChain.hotWalletAddress,
            amount: order.amount,
            committed: Money.zero
          }),
          (prepared) => {
            this.sweeps.set(prepared.transactionHash, {
              from: order.source,
              to: order.destination ?? FakeChain.hotWalletAddress,
              amount: order.amount
            })
            return prepared
          }
        )
        return Effect.succeed(ChainGateway.withoutNonce(sign))
      }),
    // a real draft reads the chain: other fibers of the pass run meanwhile
    draftPayout: (order) => Effect.as(Effect.yieldNow, ChainGateway.withoutNonce(this.gateway.preparePayout(order))),
    broadcastPayout: (rail, prepared) =>
      Effect.suspend(() => {
        const refused = this.refusals.shift()
        if (refused !== undefined) {
          return Effect.fail(new ChainGateway.ChainError({ chain: rail.chain, reason: refused, message: "refused" }))
        }
        this.broadcasts.push(prepared.transactionHash)
        return Effect.void
      }),
    lookupPayout: (_rail, prepared) =>
      Effect.map(DateTime.now, (now): ChainGateway.PayoutLookup => {
        const versions = FakeChain.versions(prepared)
        const mined = this.broadcasts.findLast((hash) => versions.includes(hash))
        if (mined === undefined) return { _tag: "Unknown" }
        switch (this.fate.get(versions[0]!)) {
          case "fail":
            return { _tag: "Failed", reason: "reverted", native: this.feePaid() }
          case "pending":
            return { _tag: "Pending" }
          default:
            if (!mined.endsWith("c")) this.debit(versions[0]!)
            this.moveSwept(versions[0]!)
            return {
              _tag: "Confirmed",
              blockNumber: 777,
              confirmedAt: now,
              transactionHash: mined,
              cancelled: mined.endsWith("c"),
              native: this.feePaid()
            }
        }
      }),
    replacePayout: (_rail, prepared, mode) =>
      Effect.sync((): ChainGateway.Replacement => {
        const reply = mode === "due" ? (this.replies.shift() ?? "mining") : "replace"
        if (reply !== "replace") return { _tag: "Waiting", reason: reply, message: `waiting: ${reply}` }
        const count = FakeChain.versions(prepared).length
        const suffix = `${count}${mode === "due" ? "r" : mode === "bump" ? "b" : "c"}`
        return {
          _tag: "Replaced",
          prepared: {
            transactionHash: `${FakeChain.versions(prepared)[0]}-${suffix}`,
            persisted: `${prepared.persisted}|${suffix}`
          }
        }
      }),
    inspectPayout: (_rail, prepared) =>
      Effect.succeed({
        versions: FakeChain.versions(prepared).map((transactionHash) => ({
          transactionHash,
          nonce: null,
          kind: transactionHash.endsWith("c") ? ("cancel" as const) : ("transfer" as const),
          fees: {},
          signedAt: DateTime.makeUnsafe(0)
        })),
        chainAsks: {}
      }),
    hotWallet: (rail) =>
      this.unreachable.has(rail.chain)
        ? FakeChain.down(rail)
        : Effect.sync(() => {
            const key = `${rail.environment}|${rail.chain}`
            return this.latestHotWallets.get(key) ?? this.hotWallets.get(key) ?? null
          })
  })

  /** What the rail's hot wallet holds of `asset` by `hotWallets`, when `address` is that hot wallet. */
  private confirmedAtHotWallet(
    rail: Omit<ChainGateway.Rail, "token">,
    address: string,
    asset: ChainGateway.HotWallet["balances"][number]["asset"]
  ): Money.Decimal | undefined {
    const hot = this.hotWallets.get(`${rail.environment}|${rail.chain}`)
    if (hot?.address !== address) return undefined
    return hot.balances.find((b) => b.asset === asset)?.amount ?? Money.zero
  }

  /** What a call to an `unreachable` chain fails with. */
  static down(rail: Pick<ChainGateway.Rail, "chain">) {
    return Effect.fail(
      new ChainGateway.ChainError({ chain: rail.chain, reason: "rpc_unavailable", message: "the RPC is down" })
    )
  }

  /** The key of a rail's token balance in `tokenBalances`. */
  static balanceKey(rail: ChainGateway.Rail): string {
    return `${rail.environment}|${rail.chain}|${rail.token}`
  }

  /** What a mined transaction cost the hot wallet, when a fee is set. */
  private feePaid(): TreasuryLedger.NativeMovement | undefined {
    return this.nativeFee === undefined
      ? undefined
      : {
          hotWallet: Money.subtract(Money.zero, this.nativeFee),
          fundingAddress: Money.zero,
          fees: this.nativeFee,
          rent: Money.zero
        }
  }

  private credit(address: string, amount: Money.Decimal) {
    this.addressBalances.set(address, Money.sum(this.addressBalances.get(address) ?? Money.zero, amount))
  }

  /** A mined sweep moves its amount (once). */
  private moveSwept(firstVersion: string) {
    const sweep = this.sweeps.get(firstVersion)
    if (sweep === undefined) return
    this.sweeps.delete(firstVersion)
    this.credit(sweep.from, Money.subtract(Money.zero, sweep.amount))
    this.credit(sweep.to, sweep.amount)
  }

  /** The payout's amount leaves the hot wallet (once): it was mined and paid. */
  private debit(firstVersion: string) {
    const paid = this.debits.get(firstVersion)
    if (paid === undefined) return
    this.debits.delete(firstVersion)
    const held = this.tokenBalances.get(paid.key) ?? Money.zero
    this.tokenBalances.set(paid.key, Money.subtract(held, paid.amount))
  }

  /** Every version's hash, oldest first. */
  static versions(prepared: ChainGateway.PreparedPayout): Array<string> {
    const [first = "", ...suffixes] = prepared.persisted.split("|")
    const [, id, attempt] = first.split(":")
    const base = `0xpay-${id}-${attempt}`
    return [base, ...suffixes.map((suffix) => `${base}-${suffix}`)]
  }
}
