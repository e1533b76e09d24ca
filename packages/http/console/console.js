// The operator console: signs in with an operator token (kept for this tab only), reads the operator
// routes of the chosen environment every 10 seconds, and draws them. A route that does not answer is
// said to be unavailable, with the time of the figures still shown, never passed off as current.

import { forgetToken, getJson, keepToken, Refused, routes, storedToken } from "./api.js"
import { audit, bindAuditFilter } from "./audit.js"
import { book } from "./book.js"
import { glance } from "./glance.js"
import { age, clock, h, shortId } from "./format.js"
import { limits } from "./limits.js"
import { market } from "./market.js"
import { pipes } from "./pipes.js"
import { pnl } from "./pnl.js"
import { treasury } from "./treasury.js"

/** How often the console reads the routes again. */
export const refreshSeconds = 10

const sourceNames = {
  status: "status",
  market: "market data",
  risk: "the book",
  deliveries: "deliveries",
  hedgeOrders: "hedge orders",
  treasury: "treasury",
  pnl: "P&L",
  audit: "audit log"
}

/** @type {(selector: string) => any} */
const $ = (selector) => document.querySelector(selector)

/** The environment switch's buttons. */
const environmentButtons = () =>
  /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("button[data-environment]"))

/** The environments, in the switch's order. */
const environments = ["production", "sandbox"]

/** The environment the address names (`#sandbox`, `#production`: a bookmark), if any. */
const askedEnvironment = () => environments.find((e) => location.hash === `#${e}`)

/**
 * The first environment this deployment serves (the status's `environments[].served`): production
 * turned off would open on zeros only. Production when the status is unknown or serves neither.
 */
const firstServed = (status) =>
  environments.find((e) => status?.environments?.some((s) => s.environment === e && s.served)) ?? "production"

const state = {
  token: null,
  /** Chosen on signing in (`start`). */
  environment: "production",
  /** Per source: `{ data, at, error, since }`: the last figures, when read, and the failure since when. */
  sources: {},
  refreshedAt: null,
  timer: null,
  /** Bumped on every environment switch and sign-out: answers to an older round are dropped. */
  round: 0
}

const freshSources = () => Object.fromEntries(Object.keys(routes).map((name) => [name, {}]))

// ---------------------------------------------------------------------------------------------
// Signing in and out

const showLogin = (message = "") => {
  $("#app").hidden = true
  $("#login").hidden = false
  $("#login-error").textContent = message
  $("#token").focus()
  document.title = "Ratelock console: sign in"
}

const signOut = (message = "") => {
  forgetToken()
  state.token = null
  state.round++
  clearTimeout(state.timer)
  state.sources = freshSources()
  showLogin(message)
}

/** Shows the figures; `status`, when the sign-in just read it, spares reading it again to choose the environment. */
const start = async (token, status) => {
  const asked = askedEnvironment()
  if (asked === undefined) {
    // a status that does not answer leaves production: the refresh then says what is unavailable
    const known = status ?? (await getJson(routes.status(), token).catch(() => undefined))
    state.environment = firstServed(known)
  } else state.environment = asked
  state.token = token
  state.sources = freshSources()
  $("#login").hidden = true
  $("#app").hidden = false
  applyEnvironment()
  refresh()
}

$("#login-form").addEventListener("submit", async (event) => {
  event.preventDefault()
  const input = $("#token")
  const token = input.value.trim()
  if (token === "") return
  const button = event.target.querySelector("button")
  button.disabled = true
  try {
    const status = await getJson(routes.status(), token)
    input.value = ""
    keepToken(token)
    start(token, status)
  } catch (error) {
    $("#login-error").textContent =
      error instanceof Refused
        ? "The operator API refused this token. Check it, or make one: ratelock operator token create --name NAME --role viewer."
        : `The operator API did not answer (${error.message}). Try again in a moment.`
  } finally {
    button.disabled = false
  }
})

$("#sign-out").addEventListener("click", () => signOut("Signed out. The token was forgotten by this tab."))

// ---------------------------------------------------------------------------------------------
// Environment and refreshing

const applyEnvironment = () => {
  for (const button of environmentButtons()) {
    button.setAttribute("aria-pressed", String(button.dataset.environment === state.environment))
  }
  document.body.dataset.view = state.environment
}

for (const button of environmentButtons()) {
  button.addEventListener("click", () => {
    if (button.dataset.environment === state.environment) return
    state.environment = button.dataset.environment
    // in the address, so a reload or a bookmark keeps the choice over the first served one
    history.replaceState(null, "", `#${state.environment}`)
    state.round++
    // the other environment's figures are not this one's: nothing is shown until its routes answer
    state.sources = freshSources()
    applyEnvironment()
    render()
    refresh()
  })
}

$("#refresh-now").addEventListener("click", () => refresh())

// the audit log's filters: another actor or action is another page of the log, read now
bindAuditFilter(
  () => {
    state.round++
    state.sources.audit = {}
    render()
    refresh()
  },
  () => render()
)

const refresh = async () => {
  if (state.token === null) return
  clearTimeout(state.timer)
  const round = state.round
  const names = Object.keys(routes)
  const results = await Promise.allSettled(names.map((name) => getJson(routes[name](state.environment), state.token)))
  if (round !== state.round) return
  if (results.some((r) => r.status === "rejected" && r.reason instanceof Refused)) {
    signOut("The operator API refused the token (revoked?). Sign in again.")
    return
  }
  const now = new Date()
  names.forEach((name, i) => {
    const result = results[i]
    const previous = state.sources[name]
    state.sources[name] =
      result.status === "fulfilled"
        ? { data: result.value, at: now, error: null, since: null }
        : { ...previous, error: result.reason.message, since: previous.since ?? now }
  })
  state.refreshedAt = now
  render()
  state.timer = setTimeout(refresh, refreshSeconds * 1000)
}

// refreshing at once when the tab comes back into view (browsers slow timers in hidden tabs)
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && state.token !== null) refresh()
})

// ---------------------------------------------------------------------------------------------
// Drawing

const failing = () => Object.entries(state.sources).filter(([, s]) => s.error)

/** A source's figures when its last read succeeded, else nothing. */
const current = (source) => (source.error ? undefined : source.data)

const refreshedLine = () => {
  const line = $("#refreshed")
  if (state.refreshedAt === null) {
    line.replaceChildren("Loading…")
    return
  }
  const down = failing()
  line.className = `refreshed ${down.length === 0 ? "ok" : down.length === Object.keys(routes).length ? "down" : "partial"}`
  line.replaceChildren(
    h("span", { class: "dot", "aria-hidden": "true" }),
    down.length === Object.keys(routes).length ? "Nothing answered at " : "Updated ",
    h("time", { datetime: state.refreshedAt.toISOString(), id: "refreshed-at" }, clock(state.refreshedAt)),
    ` · every ${refreshSeconds} s`
  )
}

const banners = () => {
  const list = []
  const status = state.sources.status.data
  if (status !== undefined && status.market === null) {
    list.push(
      h(
        "p",
        { class: "banner warn", id: "no-market-banner", role: "alert" },
        "No market snapshot imported: production sells nothing; the sandbox prices from the built-in illustrative one."
      )
    )
  } else if (status?.market && !status.market.fresh) {
    const m = status.market
    list.push(
      h(
        "p",
        { class: "banner bad", id: "stale-banner", role: "alert" },
        h("strong", {}, "Market data stale. "),
        `The snapshot in force (${shortId(m.snapshot_id)}, ${m.source}) is ${age(m.age_seconds)} old, over production's limit of ${age(m.max_age_seconds)}. `,
        "Production quotes fail with market_data_stale until a fresh snapshot is imported."
      )
    )
  }
  if (status?.degraded) {
    list.push(
      h(
        "p",
        { class: "banner bad", id: "degraded-banner", role: "alert" },
        h("strong", {}, "Degraded. "),
        status.alerts.map((a) => a.message).join(" "),
        " ",
        h("a", { href: "#treasury" }, "Treasury")
      )
    )
  }
  const down = failing()
  if (down.length > 0) {
    // one line per reason: a server that is gone is one reason for every source
    const reasons = new Map()
    for (const [name, s] of down) {
      const key = `${s.error}, since ${clock(s.since)}`
      reasons.set(key, [...(reasons.get(key) ?? []), sourceNames[name]])
    }
    list.push(
      h(
        "p",
        { class: "banner bad", id: "unavailable-banner", role: "alert" },
        h("strong", {}, "Unavailable: "),
        [...reasons].map(([reason, names]) => `${names.join(", ")} (${reason})`).join("; "),
        ". What is still shown from them is greyed and says when it was read: it is not current."
      )
    )
  }
  $("#banners").replaceChildren(...list)
  document.title = `${list.length > 0 ? "⚠ " : ""}Ratelock console · ${state.environment}`
}

/** A section's figures, or what keeps them away: its sources' failures, with the time of what is shown. */
const section = (id, draw) => {
  const element = document.getElementById(id)
  const names = element.dataset.sources.split(" ")
  const primary = state.sources[names[0]]
  const down = names.filter((name) => state.sources[name].error)
  const note = element.querySelector(".source-note")
  const content = element.querySelector(".content")
  element.classList.toggle("outdated", down.length > 0 && primary.data !== undefined)
  note.replaceChildren(
    ...down.map((name) => {
      const s = state.sources[name]
      return h(
        "p",
        { class: "unavailable", role: "status" },
        h("strong", {}, `Unavailable: ${sourceNames[name]}. `),
        `${s.error} (since ${clock(s.since)}). `,
        s.data === undefined
          ? "Nothing to show yet."
          : `What is shown from it was read at ${clock(s.at)} and may be out of date.`
      )
    })
  )
  const later = []
  if (primary.data === undefined) {
    content.replaceChildren(primary.error ? "" : h("p", { class: "note" }, "Loading…"))
  } else {
    // a part with nothing to show is null (the limits' gauges without a limit, the hot wallets'
    // alerts without one): replaceChildren would write it as the text "null"
    content.replaceChildren(...draw(later).filter((part) => part !== null && part !== undefined))
  }
  for (const chart of later) chart()
}

const render = () => {
  if (state.token === null) return
  refreshedLine()
  banners()
  const s = state.sources
  $("#glance").replaceChildren(
    // at a glance is now or nothing: a source that did not answer shows as unavailable there
    glance(state.environment, {
      status: current(s.status),
      risk: current(s.risk),
      deliveries: current(s.deliveries),
      hedgeOrders: current(s.hedgeOrders),
      treasury: current(s.treasury)
    })
  )
  section("book", (later) => book(s.risk.data, s.status.data, later))
  section("limits", () => limits(s.risk.data))
  section("market", (later) => market(s.market.data, s.status.data, later))
  section("pipes", () => pipes(state.environment, s.status.data, s.deliveries.data, s.hedgeOrders.data))
  section("treasury", () => treasury(state.environment, s.treasury.data, s.status.data))
  section("pnl", (later) => pnl(s.pnl.data, s.status.data, state.environment, later))
  section("audit", () => audit(s.audit.data))
}

// charts follow the width of the window
let resizing
new ResizeObserver(() => {
  clearTimeout(resizing)
  resizing = setTimeout(render, 150)
}).observe($("#main"))

// ---------------------------------------------------------------------------------------------
// A route's JSON, opened from its card with this tab's token

document.addEventListener("click", async (event) => {
  const link = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (event.target)?.closest?.("a[data-json]"))
  if (!link || state.token === null) return
  event.preventDefault()
  const path = link.dataset.json
  const dialog = $("#json-dialog")
  $("#json-title").textContent = `GET ${path}`
  $("#json-curl").textContent = `curl -s -H "Authorization: Bearer $OPERATOR_TOKEN" '${location.origin}${path}'`
  $("#json-body").textContent = "Loading…"
  dialog.showModal()
  try {
    $("#json-body").textContent = JSON.stringify(await getJson(path, state.token), null, 2)
  } catch (error) {
    $("#json-body").textContent = `Unavailable: ${error.message}`
  }
})

// ---------------------------------------------------------------------------------------------

const token = storedToken()
state.sources = freshSources()
if (token === null) showLogin()
else start(token)
