/**
 * Waiting for a contract's webhooks at the benchmark's receiver: `arrival(contractId, eventType)`
 * resolves when the first delivery of that event has arrived (at once if it already has).
 */
import type { Receiver } from "@ratelock/test-support/WebhookReceiver"

export const arrivals = (receiver: Receiver, timeoutMs = 60_000) => {
  const waiting = new Map<string, () => void>()
  const seen = new Set<string>()
  receiver.onDelivery((d) => {
    const key = `${d.contractId}:${d.eventType}`
    seen.add(key)
    waiting.get(key)?.()
  })
  return (contractId: string, eventType: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const key = `${contractId}:${eventType}`
      if (seen.has(key)) return resolve()
      const timer = setTimeout(
        () => reject(new Error(`no ${eventType} for ${contractId} within ${timeoutMs} ms`)),
        timeoutMs
      )
      waiting.set(key, () => {
        clearTimeout(timer)
        waiting.delete(key)
        resolve()
      })
    })
}

/** Samples per step, in milliseconds. */
export class Steps {
  readonly samples = new Map<string, Array<number>>()
  record(step: string, ms: number): void {
    const list = this.samples.get(step)
    if (list === undefined) this.samples.set(step, [ms])
    else list.push(ms)
  }
}

export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
