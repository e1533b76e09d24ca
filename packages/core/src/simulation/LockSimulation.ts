/**
 * Simulating locks: what one lock is likely to pay (`monteCarlo`), and what locks bought along a
 * history would have paid (`backtest`), from the same market data and the same rules the service prices and
 * settles with: the premium and deposit from `QuotePricer`, every payout from `Settlement.payout` (exact, rounded
 * down to the token unit as a real payout is), the snapshot's age judged by `MarketFreshness`.
 *
 * The model is risk-neutral: spot drifts along the snapshot's forward curve (the two currencies' discount
 * curves). Real-world drift is not ours to guess; every result says so in `drift`. Paths are float64 (the
 * model), money is exact (`BigDecimal`).
 */
export * from "./Backtest.ts"
export * from "./MonteCarlo.ts"
export * from "./Simulated.ts"
export * from "./SpotSeries.ts"
