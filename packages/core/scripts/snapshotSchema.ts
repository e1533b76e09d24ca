/**
 * Writes the JSON Schema of the market snapshot document to docs/market/snapshot.schema.json, derived from
 * `MarketSnapshot.MarketSnapshot` (core's MarketSnapshot test fails while the committed file differs).
 *
 * Run: `pnpm --filter @ratelock/core snapshot-schema`, then `pnpm format` (biome lays the JSON out).
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonSchema } from "../src/market/MarketSnapshot.ts"

export const schemaPath = join(import.meta.dirname, "../../../docs/market/snapshot.schema.json")

writeFileSync(schemaPath, `${JSON.stringify(jsonSchema(), null, 2)}\n`)
console.log(`wrote ${schemaPath}`)
