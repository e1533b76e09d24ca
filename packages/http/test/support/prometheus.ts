/**
 * `/metrics` of a running process's operator listener, parsed by a Prometheus text-format parser
 * from npm (never matched with a regex), and the value of one series.
 */
import { getMetricsFromIterator, type PromMetrics } from "prom2javascript"

export type { PromMetrics }

/** GETs `/metrics` with the operator token and parses it; fails on anything but a 200. */
export const scrape = async (operatorUrl: string, token: string): Promise<PromMetrics> => {
  const reply = await fetch(`${operatorUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })
  const text = await reply.text()
  if (reply.status !== 200) throw new Error(`GET ${operatorUrl}/metrics: ${reply.status} ${text.slice(0, 500)}`)
  return getMetricsFromIterator(text.split("\n")[Symbol.iterator]())
}

type Datum = { readonly labels: Record<string, string>; readonly value?: number; readonly count?: number }

/**
 * The value (a histogram: its count) of the data of `name` whose labels include `labels`, summed
 * (0 when there is none: a counter appears once it has counted something).
 */
export const valueOf = (metrics: PromMetrics, name: string, labels: Record<string, string> = {}): number =>
  ((metrics[name]?.data ?? []) as ReadonlyArray<Datum>)
    .filter((d) => Object.entries(labels).every(([k, v]) => d.labels[k] === v))
    .reduce((sum, d) => sum + (d.value ?? d.count ?? 0), 0)
