/** The types of `parse-prometheus-text-format` (the package ships none): prom2json's output. */
declare module "parse-prometheus-text-format" {
  export interface Sample {
    readonly labels?: Readonly<Record<string, string>>
    /** Counters, gauges, untyped. */
    readonly value?: string
    /** Histograms: upper bound → cumulative count. */
    readonly buckets?: Readonly<Record<string, string>>
    /** Summaries. */
    readonly quantiles?: Readonly<Record<string, string>>
    readonly count?: string
    readonly sum?: string
  }
  export interface Family {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
    readonly metrics: ReadonlyArray<Sample>
  }
  export default function parsePrometheusTextFormat(text: string): Array<Family>
}
