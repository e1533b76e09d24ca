/**
 * Plain-text output of the operator CLI (`--json` prints the records as they are instead).
 */
import {
  type ApiError,
  type CorridorLimits,
  MarketOverview,
  type MarketSnapshotRepo,
  Money,
  type Partners,
  type QuoteExplain
} from "@ratelock/core"
import { DateTime, Duration, Option } from "effect"
import type { RefundRecorded, UnmatchedFunds as UnmatchedFundsView } from "../api/OperatorMoney.ts"

const field = (name: string, value: string) => `  ${name.padEnd(15)} ${value}`

export const createdPartner = (created: Partners.CreatedPartner): string => {
  const lines = [`Partner created: ${created.name}`, field("partner_id", created.partner_id), ""]
  lines.push("Secrets below are shown only this once: store them now.")
  for (const [environment, c] of Object.entries(created.environments)) {
    lines.push("", `${environment}:`)
    lines.push(field("api_key_id", c.api_key_id), field("api_key_secret", c.api_key_secret))
    lines.push(field("webhook_url", c.webhook_url ?? "(none)"))
    lines.push(
      field(
        "webhook_secret",
        c.webhook_secret ??
          `(none until a URL is set: pnpm ratelock webhook set --partner ${created.partner_id} --environment ${environment} --url URL)`
      )
    )
  }
  return lines.join("\n")
}

export const partnerList = (partners: ReadonlyArray<Partners.PartnerListing>): string => {
  if (partners.length === 0) return "No partners yet. Create one: pnpm ratelock partner create --name NAME"
  return partners
    .map((p) => {
      const lines = [`${p.partner_id}  ${p.name}  (created ${p.created_at})`]
      for (const key of p.keys) {
        const state = key.revoked_at === null ? "live" : `revoked ${key.revoked_at}`
        lines.push(`  key ${key.api_key_id}  ${key.environment.padEnd(10)}  created ${key.created_at}  ${state}`)
      }
      for (const [environment, url] of Object.entries(p.webhook_urls)) {
        lines.push(`  webhook ${environment.padEnd(10)}  ${url}`)
      }
      for (const [environment, chains] of Object.entries(p.refund_addresses)) {
        for (const [chain, address] of Object.entries(chains ?? {})) {
          lines.push(`  refund  ${environment.padEnd(10)}  ${chain.padEnd(8)}  ${address}`)
        }
      }
      return lines.join("\n")
    })
    .join("\n\n")
}

export const refundAddressSet = (r: Partners.RefundAddressSet): string =>
  [
    `Refund address set for partner ${r.partner_id} (${r.environment} ${r.chain}).`,
    field("address", r.address),
    field("updated_at", r.updated_at)
  ].join("\n")

export const issuedKey = (key: Partners.IssuedKey): string =>
  [
    `API key created for partner ${key.partner_id} (${key.environment}). The secret is shown only this once.`,
    field("api_key_id", key.api_key_id),
    field("api_key_secret", key.api_key_secret)
  ].join("\n")

export const revokedKey = (r: { readonly api_key_id: string; readonly already_revoked: boolean }): string =>
  r.already_revoked ? `API key ${r.api_key_id} was already revoked.` : `API key ${r.api_key_id} revoked.`

export const webhookSet = (w: {
  readonly partner_id: string
  readonly environment: string
  readonly webhook_url: string
  readonly webhook_secret: string
}): string =>
  [
    `Webhook URL set for partner ${w.partner_id} (${w.environment}). The secret is shown only this once;`,
    "the previous secret, if any, keeps signing alongside it for 24 hours.",
    field("webhook_url", w.webhook_url),
    field("webhook_secret", w.webhook_secret)
  ].join("\n")

export const unmatchedFunds = (view: typeof UnmatchedFundsView.Type): string =>
  view.items.length === 0
    ? "No unmatched funds."
    : view.items
        .map((t) =>
          [
            `${t.observed_at}  ${t.chain} ${t.transaction_hash} #${t.index}`,
            field("contract", `${t.fx_contract_id} (${t.contract_status}, ${t.environment})`),
            field("partner", t.partner_id),
            field("amount", `${t.amount} ${t.unit === "token" ? t.token : `base units of ${t.token}`}`),
            field("reason", t.reason)
          ].join("\n")
        )
        .join("\n\n")

export const refund = (refund: typeof RefundRecorded.Type): string =>
  `Refund ${refund.id} of ${refund.amount} ${refund.currency} recorded against ${refund.key}; ` +
  `the workers send it to ${refund.destination ?? "the partner's refund address"} from the hot wallet (\`ratelock treasury show\`).`

export const importedSnapshotJson = (imported: MarketSnapshotRepo.Inserted) => ({
  snapshot_id: imported.snapshot.id,
  hash: imported.snapshot.hash,
  as_of: DateTime.formatIso(imported.snapshot.asOf),
  source: imported.snapshot.source,
  created: imported.created
})

export const importedSnapshot = (imported: ReturnType<typeof importedSnapshotJson>): string =>
  [
    imported.created ? "Snapshot imported." : "Snapshot already stored (same document): nothing new written.",
    field("snapshot_id", imported.snapshot_id),
    field("hash", imported.hash),
    field("as_of", imported.as_of),
    field("source", imported.source)
  ].join("\n")

/** Every rule a refused document (`Snapshot`, `Scenarios`) broke, one line each with its path. */
export const refusedDocument = (detail: ReadonlyArray<ApiError.ValidationIssue>, what: string): string =>
  [
    `${what} refused, nothing stored: ${detail.length} problem${detail.length === 1 ? "" : "s"}`,
    ...detail.map(
      (issue) => `  ${issue.loc.length === 0 ? "(document)" : issue.loc.join(".")}: ${issue.msg} [${issue.type}]`
    )
  ].join("\n")

type InForce = Option.Option<{ readonly snapshot: MarketSnapshotRepo.StoredSnapshot; readonly age: Duration.Duration }>

/** What `market show --json` prints and the operator API answers: the snapshot in force, or `{snapshot: null}`. */
export const marketJson = (inForce: InForce) =>
  Option.match(inForce, {
    onNone: () => ({ snapshot: null }),
    onSome: ({ age, snapshot }) => ({
      snapshot: {
        snapshot_id: snapshot.id,
        hash: snapshot.hash,
        as_of: DateTime.formatIso(snapshot.asOf),
        source: snapshot.source,
        imported_at: DateTime.formatIso(snapshot.importedAt),
        age_seconds: Math.floor(Duration.toSeconds(age))
      },
      corridors: MarketOverview.corridors(snapshot.document),
      curves: MarketOverview.curves(snapshot.document),
      vols: MarketOverview.vols(snapshot.document)
    })
  })

/** What the market's text reads of its JSON (`marketJson`, or the operator API's answer). */
export interface MarketText {
  readonly snapshot: {
    readonly snapshot_id: string
    readonly hash: string
    readonly as_of: string
    readonly source: string
    readonly age_seconds: number
  } | null
  readonly corridors?: ReadonlyArray<{
    readonly corridor: string
    readonly spot: string
    readonly points: ReadonlyArray<{ readonly forward: string; readonly atm_vol: string }>
  }>
}

const figure = (value: string, digits: number) => Money.formatFixed(Money.unsafe(value), digits).padStart(12)

/** A vol as a percentage with two decimals, from its decimal string (no float on the way). */
const percent = (value: string) => `${Money.formatFixed(Money.multiply(Money.unsafe(value), Money.unsafe("100")), 2)}%`

/** Decimals a forward is shown with: fewer for large rates (USD/NGN), more for small ones (BRL/USD). */
const decimalsFor = (forward: string) => {
  const value = Money.unsafe(forward)
  return Money.greaterThan(value, Money.unsafe("100")) ? 2 : Money.greaterThan(value, Money.one) ? 4 : 6
}

/** The market's JSON (`marketJson`, the operator API's `GET /operator/v1/market`) as text. */
export const market = (view: MarketText): string => {
  const { snapshot, corridors = [] } = view
  if (snapshot === null) {
    return "No snapshot stored: the sandbox prices from the built-in illustrative one, production quotes fail market_data_stale.\nImport one: pnpm ratelock market import FILE"
  }
  const lines = [
    `Snapshot ${snapshot.snapshot_id} (${snapshot.source})`,
    field("as_of", `${snapshot.as_of} (${Duration.format(Duration.seconds(snapshot.age_seconds))} ago)`),
    field("hash", snapshot.hash),
    "",
    `${"corridor".padEnd(12)} ${"spot".padStart(12)}  ${MarketOverview.tenors.map((t) => `${`F ${t.label}`.padStart(12)} ${`vol ${t.label}`.padStart(8)}`).join(" ")}`
  ]
  for (const c of corridors) {
    const digits = decimalsFor(c.points[0]!.forward)
    lines.push(
      `${c.corridor.padEnd(12)} ${c.spot.padStart(12)}  ${c.points.map((p) => `${figure(p.forward, digits)} ${percent(p.atm_vol).padStart(8)}`).join(" ")}`
    )
  }
  return lines.join("\n")
}

/** A quote's explanation (`QuoteExplain.encode`, the operator API's answer) as text. */
export const explainedQuote = (e: typeof QuoteExplain.Explanation.Encoded): string => {
  const lines = [`Quote ${e.quote_id}`, field("snapshot_id", e.snapshot_id ?? "(built-in illustrative snapshot)")]
  if (e.inputs !== null) {
    for (const [name, value] of Object.entries(e.inputs)) lines.push(field(name, String(value)))
  }
  lines.push(field("premium", e.premium_amount), field("repriced", e.repriced_premium_amount ?? "(not repriced)"))
  lines.push(e.reproduced ? "Reproduced exactly." : `Not reproduced: ${e.note ?? ""}`)
  return lines.join("\n")
}

const lockLimit = (c: CorridorLimits.CorridorListing): string =>
  c.max_lock_notional !== null
    ? c.max_lock_notional
    : c.default_max_lock_notional === null
      ? "(no default)"
      : c.default_max_lock_notional.currency === c.currency
        ? `${c.default_max_lock_notional.amount} (default)`
        : `${c.default_max_lock_notional.amount} ${c.default_max_lock_notional.currency} (default)`

const columns = [
  ["ENVIRONMENT", (c) => c.environment],
  ["CORRIDOR", (c) => c.corridor],
  ["UNIT", (c) => c.currency],
  ["MAX LOCK", lockLimit],
  ["MAX OPEN", (c) => c.max_open_notional ?? "unlimited"],
  ["MAX NET DELTA", (c) => c.max_net_delta ?? "unlimited"],
  ["OPEN NOTIONAL", (c) => c.open_notional],
  ["HEADROOM", (c) => c.headroom ?? "unlimited"]
] as const satisfies ReadonlyArray<readonly [string, (c: CorridorLimits.CorridorListing) => string]>

/** Every corridor as an aligned table, one line each, amounts in the corridor's BASE (`UNIT`). */
export const corridorLimits = (shown: {
  readonly corridors: ReadonlyArray<CorridorLimits.CorridorListing>
}): string => {
  const rows = [columns.map(([title]) => title), ...shown.corridors.map((c) => columns.map(([, cell]) => cell(c)))]
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)))
  return [
    ...rows.map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd()
    ),
    "",
    "Open notional: Σ N_b of the corridor's contracts in quote_created, funds_in_route and active.",
    "MAX NET DELTA holds the delta bound (a lock's |delta| is at most its N_b): the open notional.",
    "A default MAX LOCK in another unit is the market pair's, converted at the spot in force."
  ].join("\n")
}

/** A corridor after `limits set`, with a warning when it already holds more than a limit allows. */
export const corridorLimitSet = (c: CorridorLimits.CorridorListing): string => {
  const lines = [
    `Limits set for ${c.environment} ${c.corridor} (amounts in ${c.currency}).`,
    field("max_lock", lockLimit(c)),
    field("max_open", c.max_open_notional ?? "unlimited"),
    field("max_net_delta", c.max_net_delta ?? "unlimited"),
    field("open_notional", c.open_notional),
    field("headroom", c.headroom ?? "unlimited")
  ]
  if (c.headroom?.startsWith("-")) {
    lines.push(
      "",
      `The corridor holds more than its limits now allow: no new lock is sold until ${c.headroom.slice(1)} ${c.currency} falls away.`
    )
  }
  return lines.join("\n")
}
