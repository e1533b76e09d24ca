/**
 * The workers' last reading of each hot wallet (`HotWalletRepo`): one row per environment, chain
 * and asset (`NATIVE` for the chain's own currency, else a token), replaced at every reading. A
 * handful of rows, written once a minute, read by the status, the treasury view and the gauges.
 */
import { statements } from "./statements.ts"

// the assets as core named them when this was written (the funds currencies and NATIVE), copied
// rather than imported: a released migration stands alone
const assets = `('NATIVE', 'USDC', 'USDT', 'EURC', 'BRLA')`

export const hotWalletReadings = statements([
  `CREATE DOMAIN ratelock_hot_wallet_asset AS text CHECK (VALUE IN ${assets})`,
  `CREATE TABLE hot_wallet_readings (
    environment ratelock_environment NOT NULL,
    chain ratelock_chain NOT NULL,
    asset ratelock_hot_wallet_asset NOT NULL,
    address text NOT NULL,
    amount ratelock_nonnegative_numeric NOT NULL,
    read_at timestamptz(3) NOT NULL,
    PRIMARY KEY (environment, chain, asset)
  )`
])
