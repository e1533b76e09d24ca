/**
 * `ratelock simulate lock --quote-id`: a quote a partner took from `pnpm start`'s service, simulated with its own
 * terms, locked rate, premium and deposit. Read through the operator API while the service runs
 * (`RATELOCK_OPERATOR_URL`), then from the embedded database once it has stopped: the same figures either way.
 */
import { Requests } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { request } from "./support/http.ts"
import {
  baseUrlOf,
  cli,
  cliWith,
  eventually,
  operatorUrlOf,
  removeTempDirs,
  type Service,
  start,
  tempDataDir
} from "./support/process.ts"

afterAll(removeTempDirs)

const snapshot = join(import.meta.dirname, "..", "..", "..", "docs", "market", "example-snapshot.json")
const unknownQuote = "00000000-0000-4000-8000-00000000dead"

/** A decimal's digits without trailing zeros, to compare amounts written at different scales. */
const exact = (decimal: string) => (decimal.includes(".") ? decimal.replace(/\.?0+$/, "") : decimal)

describe("ratelock simulate lock --quote-id", { timeout: 180_000 }, () => {
  it("simulates a stored forward with its own price, through the operator API and on the database alike", async () => {
    const dataDir = tempDataDir()
    const service: Service = start(dataDir)
    let stopped = false
    const stop = async () => {
      if (stopped) return
      stopped = true
      service.child.kill("SIGTERM")
      await service.exited
    }
    try {
      const baseUrl = await baseUrlOf(service)
      const operatorUrl = await operatorUrlOf(service)
      const banner = await eventually(() =>
        service.stdout().includes("operator_token") ? service.stdout() : undefined
      )
      const key = {
        keyId: /api_key_id\s+(\S+)/.exec(banner)![1]!,
        secret: /api_key_secret\s+(rlk_\S+)/.exec(banner)![1]!,
        environment: "sandbox"
      }
      const token = /operator_token\s+(rlop_\S+)/.exec(banner)![1]!

      const body = Requests.quoteAt(DateTime.nowUnsafe(), { contract_type: "forward", notional_amount: "25000" })
      const quoted = await Effect.runPromise(request(baseUrl, "POST", "/api/v1/fx/quotes", { key, body }))
      assert.strictEqual(quoted.status, 201, quoted.text)
      const quote = quoted.json
      assert.strictEqual(quote.status, "created")

      // the operator's view of it: any partner's quote, its terms and price as the partner was told them
      const bearer = { Authorization: `Bearer ${token}` }
      const viewed = await Effect.runPromise(
        request(operatorUrl, "GET", `/operator/v1/quotes/${quote.id}`, { headers: bearer })
      )
      assert.strictEqual(viewed.status, 200, viewed.text)
      const view = viewed.json
      assert.deepInclude(view, {
        id: quote.id,
        environment: "sandbox",
        status: "created",
        contract_type: "forward",
        direction: body.direction,
        notional_currency: body.notional_currency,
        premium_amount: quote.premium_amount,
        deposit_amount: quote.deposit_amount,
        locked_rate: quote.locked_rate,
        window_start: quote.window_start,
        window_end: quote.window_end
      })
      assert.strictEqual(exact(view.market_rate), exact(body.market_rate!))
      const missing = await Effect.runPromise(
        request(operatorUrl, "GET", `/operator/v1/quotes/${unknownQuote}`, { headers: bearer })
      )
      assert.strictEqual(missing.status, 404)

      const simulate = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
        cliWith(dataDir, env, "simulate", "lock", "--snapshot", snapshot, ...args)
      const figures = ["--paths", "2000", "--seed", "3", "--exercise", "uniform", "--now", quote.created_at, "--json"]
      const api = { RATELOCK_OPERATOR_URL: operatorUrl, RATELOCK_OPERATOR_TOKEN: token }

      const remote = await simulate(api, "--quote-id", quote.id, ...figures)
      assert.strictEqual(remote.code, 0, remote.stderr)
      const result = JSON.parse(remote.stdout)
      // the quote's own price, not a new one on the file's snapshot
      assert.strictEqual(exact(result.premium), exact(quote.premium_amount))
      assert.strictEqual(exact(result.deposit), exact(quote.deposit_amount))
      assert.strictEqual(exact(result.lockedRate), exact(quote.locked_rate))
      assert.isNotNull(result.forfeiture)
      assert.isAbove(result.probabilityOfPayout, 0)

      const refusedTerms = await simulate(api, "--quote-id", quote.id, "--direction", "USD_TO_MXN", "--tenor-days", "9")
      assert.strictEqual(refusedTerms.code, 1)
      assert.include(refusedTerms.stderr, "--quote-id simulates the quote's own terms: drop --direction, --tenor-days")
      const remoteMissing = await simulate(api, "--quote-id", unknownQuote)
      assert.strictEqual(remoteMissing.code, 1)
      assert.include(remoteMissing.stderr, `quote ${unknownQuote} not found`)
      const noTerms = await simulate(api, "--tenor-days", "30")
      assert.strictEqual(noTerms.code, 1)
      assert.include(noTerms.stderr, "--direction is needed (or --quote-id, to simulate a stored quote)")

      // the service stopped: the same quote read from its database gives the same figures, bit for bit
      await stop()
      const local = await cli(dataDir, "simulate", "lock", "--snapshot", snapshot, "--quote-id", quote.id, ...figures)
      assert.strictEqual(local.code, 0, local.stderr)
      assert.strictEqual(local.stdout, remote.stdout)
      const localMissing = await cli(dataDir, "simulate", "lock", "--snapshot", snapshot, "--quote-id", unknownQuote)
      assert.strictEqual(localMissing.stderr, remoteMissing.stderr)
    } finally {
      await stop()
    }
  })
})
