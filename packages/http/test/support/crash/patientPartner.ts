/**
 * A partner's integration as it should be written against a service that can restart under it:
 * every request is retried until it gets an answer, on a refused or cut connection, a 5xx or 429,
 * and `idempotency_key_in_use` (the first try is still running, or died), always with the same
 * body and `Idempotency-Key`, so a retry can never do the thing twice.
 */
import { Requests } from "@ratelock/core"
import { DateTime } from "effect"

export interface PartnerKey {
  readonly keyId: string
  readonly secret: string
}

export interface Reply {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field
  readonly json: any
}

export interface Lifecycle {
  readonly contractId: string
  /** Exercised below the locked rate: a payout is owed. Above it: a zero payout. */
  readonly paid: boolean
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Tries `attempt` until it gives an answer worth keeping: a throw (the connection refused or cut)
 * is always tried again, an answer when `retryCause` names why. Each retry is counted by `onRetry`
 * under its cause; after `patienceMs` the call fails with the last one.
 */
export const untilAnswered = async <R>(
  what: string,
  attempt: () => Promise<R>,
  retryCause: (reply: R) => string | undefined,
  patienceMs: number,
  onRetry: (cause: string) => void = () => undefined
): Promise<R> => {
  const deadline = Date.now() + patienceMs
  for (;;) {
    let cause: string | undefined
    try {
      const reply = await attempt()
      cause = retryCause(reply)
      if (cause === undefined) return reply
    } catch (error) {
      cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name
    }
    onRetry(cause)
    if (Date.now() > deadline) throw new Error(`${what}: no answer in ${patienceMs} ms (last: ${cause})`)
    await sleep(100 + Math.random() * 150)
  }
}

/** A restart's answers: a 5xx or 429 of a service going down or starting, and a key held by a try a kill cut off. */
const restartCause = (reply: Reply) =>
  reply.status >= 500 || reply.status === 429 || reply.json?.error?.code === "idempotency_key_in_use"
    ? `${reply.status} ${reply.json?.error?.code ?? ""}`.trim()
    : undefined

export class PatientPartner {
  /** Requests that had to be tried again, by cause. */
  readonly retries = new Map<string, number>()
  private readonly baseUrl: string
  private readonly key: PartnerKey
  private readonly patienceMs: number
  // a hang guard, not a timing assertion: under the full suite on two cores, a service killed again and again
  // 0.5 to 5 s after each start can leave one request unanswered for minutes
  constructor(baseUrl: string, key: PartnerKey, patienceMs = 300_000) {
    this.baseUrl = baseUrl
    this.key = key
    this.patienceMs = patienceMs
  }

  private count(cause: string) {
    this.retries.set(cause, (this.retries.get(cause) ?? 0) + 1)
  }

  /** One attempt: an answer, or the error that cut it off. */
  private async once(method: string, path: string, body?: unknown, key?: string): Promise<Reply> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        "x-partner-key-id": this.key.keyId,
        "x-partner-key-secret": this.key.secret,
        "x-partner-environment": "sandbox",
        ...(key === undefined ? {} : { "idempotency-key": key })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000)
    })
    const text = await response.text()
    return { status: response.status, json: text === "" ? undefined : JSON.parse(text) }
  }

  /** The first answer that is not worth retrying. */
  request(method: string, path: string, body?: unknown, key?: string): Promise<Reply> {
    return untilAnswered(
      `${method} ${path}`,
      () => this.once(method, path, body, key),
      restartCause,
      this.patienceMs,
      (cause) => this.count(cause)
    )
  }

  private async expect(status: number, method: string, path: string, body?: unknown, key?: string) {
    const reply = await this.request(method, path, body, key)
    if (reply.status !== status) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.json)}`)
    return reply.json
  }

  /** The customer's one lock (each lifecycle has its own customer). */
  async lockOf(customer: string) {
    const page = await this.expect(200, "GET", `/api/v1/fx/customers/${customer}/locks`)
    return page.items[0]
  }

  async waitStatus(customer: string, wanted: string, timeoutMs = 120_000) {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const lock = await this.lockOf(customer)
      if (lock?.status === wanted) return lock
      if (Date.now() > deadline) throw new Error(`${customer}: ${lock?.status} instead of ${wanted}`)
      await sleep(200)
    }
  }

  /**
   * quote → contract, for the customer `customer-n` (`quote` overrides the request's fields: the
   * corridor, the notional). A contract whose creation answered but was cut off is found through
   * the customer's locks, as a partner's reconciliation would.
   */
  async contract(n: number, quote: Partial<Requests.QuoteRequestBody> = {}) {
    const customer = `customer-${n}`
    const quoted = await this.expect(
      201,
      "POST",
      "/api/v1/fx/quotes",
      Requests.quoteAt(DateTime.nowUnsafe(), { ...quote, customer_reference_id: customer }),
      `quote-key-${n}`
    )
    const created = await this.request(
      "POST",
      "/api/v1/fx/contracts",
      { quote_id: quoted.id, partner_transaction_reference: `ptx-${n}` },
      `contract-key-${n}`
    )
    const contract =
      created.status === 201
        ? created.json
        : created.json?.error?.code === "quote_already_accepted"
          ? await this.lockOf(customer)
          : undefined
    if (contract === undefined) throw new Error(`contract ${n}: ${created.status} ${JSON.stringify(created.json)}`)
    return { customer, quote: quoted, contract }
  }

  /**
   * A lock sold and funded with the sandbox's fund helper, left open: resolves once it is active.
   * The helper takes no `Idempotency-Key`: a retry after an answer lost in a crash finds nothing
   * left to send (400 `funding_amount_invalid`), or the contract already funded (409), and the
   * transfer already on its way confirms all the same.
   */
  async openLock(n: number, quote: Partial<Requests.QuoteRequestBody> = {}): Promise<string> {
    const { customer, contract } = await this.contract(n, quote)
    const funded = await this.request("POST", `/api/v1/sandbox/contracts/${contract.id}/fund`)
    const code = funded.json?.error?.code
    if (funded.status !== 202 && code !== "funding_amount_invalid" && code !== "invalid_contract_state") {
      throw new Error(`fund ${n}: ${funded.status} ${JSON.stringify(funded.json)}`)
    }
    await this.waitStatus(customer, "active")
    return contract.id
  }

  /**
   * quote → contract → `funds_in_route` with the amount (the sandbox's chain receives it) →
   * active → exercise below or above the locked rate.
   */
  async lifecycle(n: number, paid: boolean, quote: Partial<Requests.QuoteRequestBody> = {}): Promise<Lifecycle> {
    const { customer, quote: quoted, contract } = await this.contract(n, quote)
    await this.expect(
      200,
      "POST",
      "/api/v1/fx/webhooks/inbound",
      { event_type: "funds_in_route", fx_contract_id: contract.id, amount: contract.total_amount },
      `route-${contract.id}`
    )
    await this.waitStatus(customer, "active")
    await this.expect(
      200,
      "POST",
      "/api/v1/fx/webhooks/inbound",
      {
        event_type: "contract_exercised",
        fx_contract_id: contract.id,
        executed_at: new Date().toISOString(),
        live_execution_rate: (Number(quoted.locked_rate) * (paid ? 0.95 : 1.05)).toFixed(6),
        payout_wallet_address: "0x1111111111111111111111111111111111111111",
        chain: "polygon"
      },
      `exercise-${contract.id}`
    )
    return { contractId: contract.id, paid }
  }

  /** Every outbound event of the contract, once all are delivered (and, if `settled`, its payout's among them). */
  async waitDelivered(contractId: string, settled = true, timeoutMs = 120_000) {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const page = await this.expect(
        200,
        "GET",
        `/api/v1/fx/webhook-events?direction=outgoing&fx_contract_id=${contractId}&limit=100`
      )
      const events: ReadonlyArray<{ readonly status: string; readonly event_type: string }> = page.items
      const ended = !settled || events.some((e) => e.event_type === "payout_settled")
      if (ended && events.length > 0 && events.every((e) => e.status === "delivered")) return
      if (Date.now() > deadline) throw new Error(`${contractId}: events not delivered: ${JSON.stringify(events)}`)
      await sleep(250)
    }
  }
}
