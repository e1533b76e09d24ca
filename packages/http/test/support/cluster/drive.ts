/**
 * Contract lifecycles driven as a partner and its customers would, over HTTP against one or more
 * API replicas (requests spread round-robin, so one contract's steps land on different replicas):
 * quote → contract → the customer's transfer to the funding address → (funding confirmed by the
 * workers) → exercise below or above the locked rate.
 */
import { Requests } from "@ratelock/core"
import { DateTime } from "effect"
import type { Agent } from "node:http"
import { agent, send } from "../raw.ts"

export interface PartnerKey {
  readonly keyId: string
  readonly secret: string
}

export interface FundableContract {
  readonly id: string
  readonly chain: "solana" | "ethereum" | "polygon"
  readonly settlement_currency: "USDC" | "USDT" | "EURC"
  readonly funding_wallet_address: string
  readonly total_amount: string
}

export interface Lifecycle {
  readonly contractId: string
  /** Exercised below the locked rate: a payout is owed. Above it: a zero payout. */
  readonly paid: boolean
}

export interface DriverOptions {
  readonly baseUrls: ReadonlyArray<string>
  readonly key: PartnerKey
  /** The customer's transfer of the contract's total to its funding address. */
  readonly fund: (contract: FundableContract) => Promise<void>
  /** Resolves once the contract is `active` (funding confirmed). */
  readonly waitActive: (contractId: string) => Promise<void>
  /** Requests in flight at most. */
  readonly sockets: number
  /** Told each request's path and how long its answer took (ms). */
  readonly onRequest?: (path: string, ms: number) => void
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field
type Json = any

export const payoutWallet = "0x1111111111111111111111111111111111111111"

export class Driver {
  private readonly options: DriverOptions
  private readonly via: Agent
  private turn = 0
  constructor(options: DriverOptions) {
    this.options = options
    this.via = agent(options.sockets)
  }

  /** A POST to the next API in turn: its status and answer, whatever they are. */
  async call(
    path: string,
    body: unknown,
    headers: Record<string, string> = {}
  ): Promise<{ readonly status: number; readonly text: string; readonly baseUrl: string }> {
    const baseUrl = this.options.baseUrls[this.turn++ % this.options.baseUrls.length]!
    const started = performance.now()
    const reply = await send(baseUrl, this.via, {
      method: "POST",
      path,
      headers: {
        "content-type": "application/json",
        "x-partner-key-id": this.options.key.keyId,
        "x-partner-key-secret": this.options.key.secret,
        "x-partner-environment": "sandbox",
        ...headers
      },
      body: JSON.stringify(body)
    })
    this.options.onRequest?.(path, performance.now() - started)
    return { status: reply.status, text: reply.text, baseUrl }
  }

  private async post(
    path: string,
    body: unknown,
    expected: number,
    headers: Record<string, string> = {}
  ): Promise<Json> {
    const reply = await this.call(path, body, headers)
    if (reply.status !== expected) throw new Error(`POST ${path} on ${reply.baseUrl}: ${reply.status} ${reply.text}`)
    return JSON.parse(reply.text)
  }

  /** A quote (201, priced or failed). */
  quote(body: unknown): Promise<Json> {
    return this.post("/api/v1/fx/quotes", body, 201)
  }

  /** A contract from the quote: `201`, or the status and error code it was refused with. */
  async contract(quoteId: string): Promise<string> {
    const reply = await this.call("/api/v1/fx/contracts", { quote_id: quoteId })
    return reply.status === 201 ? "201" : `${reply.status} ${JSON.parse(reply.text).error?.code}`
  }

  /**
   * A lock sold and funded, once it is active: quote (`quote` overrides the request's fields: the
   * corridor, the notional) → contract → the customer's transfer → funding confirmed.
   */
  async lock(n: number, quote: Partial<Requests.QuoteRequestBody> = {}) {
    const quoted = await this.post(
      "/api/v1/fx/quotes",
      Requests.quoteAt(DateTime.nowUnsafe(), { ...quote, customer_reference_id: `customer-${n}` }),
      201
    )
    const contract: FundableContract = await this.post(
      "/api/v1/fx/contracts",
      { quote_id: quoted.id, partner_transaction_reference: `ptx-${n}` },
      201
    )
    await this.options.fund(contract)
    await this.options.waitActive(contract.id)
    return { quote: quoted, contract }
  }

  /** One whole lifecycle, up to the exercise (the payout is the workers' part). */
  async run(n: number, paid: boolean, quote: Partial<Requests.QuoteRequestBody> = {}): Promise<Lifecycle> {
    const { quote: quoted, contract } = await this.lock(n, quote)
    const rate = (Number(quoted.locked_rate) * (paid ? 0.95 : 1.05)).toFixed(6)
    await this.post(
      "/api/v1/fx/webhooks/inbound",
      {
        event_type: "contract_exercised",
        fx_contract_id: contract.id,
        executed_at: new Date().toISOString(),
        live_execution_rate: rate,
        payout_wallet_address: payoutWallet,
        chain: "polygon"
      },
      200,
      { "idempotency-key": `exercise-${contract.id}` }
    )
    return { contractId: contract.id, paid }
  }

  close(): void {
    this.via.destroy()
  }
}

/**
 * Runs `count` lifecycles, `concurrency` at a time, every other one paid; with `spreadMs`, the
 * n-th starts no earlier than `n × spreadMs / count` after the first (a steady pace).
 */
export const runMany = async (
  driver: Driver,
  count: number,
  concurrency: number,
  spreadMs = 0
): Promise<Array<Lifecycle>> => {
  const done: Array<Lifecycle> = []
  const started = Date.now()
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next++
        const wait = started + (n * spreadMs) / count - Date.now()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
        done.push(await driver.run(n, n % 2 === 0))
      }
    })
  )
  return done
}
