// The audit log, from GET /operator/v1/audit: the last operator actions, newest first, each with
// when, who (the token's operator, or the CLI's user and host), the role it was taken under, the
// action, its target and its outcome (and why, when it was refused or failed), and what it changed.
// The actor and action filters are the route's (they reach back past the page); the outcome filter
// narrows the records read.

import { auditQuery, routes } from "./api.js"
import { h, figure, table } from "./format.js"
import { jsonLink } from "./pipes.js"

const source = "audit"

export const outcomes = ["ok", "refused", "forbidden", "failed"]

/** Refused and forbidden are an operator's to look at; failed is the service's. */
const tone = (outcome) => (outcome === "failed" ? "bad" : outcome === "ok" ? "ok" : "warn")

/** What a record changed, when it says: before and after as recorded (never a secret). */
const change = (e) =>
  e.before === null && e.after === null
    ? "—"
    : h(
        "details",
        { class: "audit-change" },
        h("summary", {}, e.before === null ? "after" : "before → after"),
        e.before === null ? null : h("pre", { "aria-label": "before" }, JSON.stringify(e.before, null, 2)),
        e.after === null ? null : h("pre", { "aria-label": "after" }, JSON.stringify(e.after, null, 2))
      )

/** The filters' suggestions: the actors and actions of the records read. */
const suggest = (id, values) => {
  const list = document.getElementById(id)
  if (list === null) return
  list.replaceChildren(...[...new Set(values)].sort().map((value) => h("option", { value })))
}

/** The section's content: `page` is the route's answer; the outcome filter picks what of it is shown. */
export const audit = (page) => {
  const outcome = auditQuery.outcome
  suggest(
    "audit-actors",
    page.items.map((e) => e.actor)
  )
  suggest(
    "audit-actions",
    page.items.map((e) => e.action)
  )
  // each row keeps its index in the route's answer: its figures are checked against it
  const rows = page.items.map((e, i) => ({ e, i })).filter(({ e }) => outcome === "" || e.outcome === outcome)
  const notOk = page.items.filter((e) => e.outcome !== "ok").length
  const filters = [
    auditQuery.actor ? `actor ${auditQuery.actor}` : null,
    auditQuery.action ? `action ${auditQuery.action}` : null,
    outcome ? `outcome ${outcome}` : null
  ].filter((f) => f !== null)
  return [
    h(
      "p",
      { class: "note", id: "audit-summary" },
      `${rows.length} of the last ${page.items.length} actions`,
      filters.length > 0 ? ` (${filters.join(", ")})` : "",
      `; ${notOk} refused, forbidden or failed. `,
      page.next_cursor === null
        ? auditQuery.actor || auditQuery.action
          ? "No older one matches."
          : "That is the whole log."
        : h(
            "span",
            {},
            "Older ones: ",
            h("code", {}, "ratelock audit list --cursor …"),
            " or the route's next_cursor."
          ),
      " ",
      jsonLink(routes.audit())
    ),
    table(
      "Operator actions, newest first",
      [
        {
          head: "When (UTC)",
          cell: ({ e, i }) => figure(source, `items.${i}.at`, e.at, "text", "time", { datetime: e.at })
        },
        {
          head: "Actor",
          cell: ({ e, i }) =>
            h(
              "span",
              {
                title:
                  e.via === "api" ? `token ${e.token_id} from ${e.client_address ?? "?"}` : "the CLI on the database"
              },
              figure(source, `items.${i}.actor`, e.actor, "text")
            )
        },
        { head: "Role", cell: ({ e, i }) => figure(source, `items.${i}.role`, e.role, "text") },
        { head: "Action", cell: ({ e, i }) => figure(source, `items.${i}.action`, e.action, "text", "code") },
        {
          head: "Target",
          wrap: true,
          cell: ({ e, i }) => [
            figure(source, `items.${i}.target_kind`, e.target_kind, "text"),
            " ",
            figure(source, `items.${i}.target_id`, e.target_id, "text", "code")
          ]
        },
        {
          head: "Outcome",
          cell: ({ e, i }) =>
            figure(source, `items.${i}.outcome`, e.outcome, "text", "span", { class: `outcome ${tone(e.outcome)}` })
        },
        {
          head: "Why",
          wrap: true,
          cell: ({ e, i }) => (e.reason === null ? "—" : figure(source, `items.${i}.reason`, e.reason, "text"))
        },
        { head: "Change", wrap: true, cell: ({ e }) => change(e) }
      ],
      rows,
      {
        id: "audit-log",
        empty: filters.length > 0 ? "none match the filters." : "no operator action recorded yet."
      }
    )
  ]
}

/**
 * Wires the filter form: the actor and action are asked of the route (`reread`), the outcome only
 * changes what is shown (`redraw`).
 */
export const bindAuditFilter = (reread, redraw) => {
  const form = /** @type {HTMLFormElement | null} */ (document.getElementById("audit-filter"))
  if (form === null) return
  const value = (name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name)).value.trim()
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    auditQuery.actor = value("actor")
    auditQuery.action = value("action")
    auditQuery.outcome = value("outcome")
    reread()
  })
  form.addEventListener("reset", () => {
    auditQuery.actor = ""
    auditQuery.action = ""
    auditQuery.outcome = ""
    reread()
  })
  const select = /** @type {HTMLSelectElement} */ (form.elements.namedItem("outcome"))
  select.addEventListener("change", () => {
    auditQuery.outcome = value("outcome")
    redraw()
  })
}
