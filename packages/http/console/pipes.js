// What is waiting or failing in one environment: the outbox, the partners whose webhooks fail, payouts
// awaiting confirmation or given up on, hedge orders waiting for an outcome, unmatched funds, and the
// workers. Each card names the route it comes from, and opens that route's JSON.

import { routes } from "./api.js"
import { age, clock, figure, h, shortId, table } from "./format.js"

/** A link to a route's JSON; the console opens it with the token (a plain link would carry none). */
export const jsonLink = (path) => h("a", { class: "json-link", href: path, dataset: { json: path } }, "JSON")

const card = (title, state, path, ...body) =>
  h("article", { class: `card pipe ${state}` }, h("h3", {}, title, " ", jsonLink(path)), ...body)

/** A card as wide as the grid: for a table. */
const wide = (element) => {
  element.classList.add("wide")
  return element
}

/** `bad` when any is non-zero, else `ok`. */
const tone = (bad, ...counts) => (counts.some((n) => n > 0) ? bad : "ok")

/** A count and what it counts, singular or plural: `[one, many]`. */
const big = (source, path, value, [one, many]) =>
  h("p", { class: "big" }, figure(source, path, value, "count", "strong"), ` ${value === 1 ? one : many}`)

const outbox = (e, i) =>
  card(
    "Outbox",
    e.outbox.oldest_undelivered_age_seconds > 300 ? "bad" : tone("warn", e.outbox.undelivered),
    routes.status(),
    big("status", `environments.${i}.outbox.undelivered`, e.outbox.undelivered, [
      "webhook event not yet delivered",
      "webhook events not yet delivered"
    ]),
    h(
      "p",
      {},
      "Oldest waiting: ",
      e.outbox.oldest_undelivered_age_seconds === null ? "none" : age(e.outbox.oldest_undelivered_age_seconds),
      "."
    )
  )

const payouts = (e, i) =>
  card(
    "Payouts",
    e.payouts.failed > 0 ? "bad" : tone("warn", e.payouts.awaiting_confirmation),
    routes.status(),
    big("status", `environments.${i}.payouts.awaiting_confirmation`, e.payouts.awaiting_confirmation, [
      "payout awaiting confirmation",
      "payouts awaiting confirmation"
    ]),
    h(
      "p",
      {},
      "Oldest: ",
      e.payouts.oldest_awaiting_age_seconds === null ? "none" : age(e.payouts.oldest_awaiting_age_seconds),
      ". Given up on (an operator's to settle): ",
      figure("status", `environments.${i}.payouts.failed`, e.payouts.failed, "count", "strong"),
      "."
    )
  )

const unmatched = (e, i) =>
  card(
    "Unmatched funds",
    tone("warn", e.unmatched_funds),
    routes.status(),
    big("status", `environments.${i}.unmatched_funds`, e.unmatched_funds, [
      "transfer that funded nothing",
      "transfers that funded nothing"
    ]),
    h("p", {}, "To refund; listed by ", h("code", {}, "ratelock funds unmatched"), ".")
  )

const deliveries = (d, environment) =>
  card(
    "Deliveries failing, by partner",
    d === undefined ? "unknown" : tone("bad", d.partners.length),
    routes.deliveries(environment),
    d === undefined
      ? h("p", {}, "Unavailable.")
      : table(
          "Partners whose webhooks are not getting through",
          [
            { head: "Partner", cell: (p) => h("span", { title: p.partner_id }, p.partner_name) },
            {
              head: "Retrying",
              numeric: true,
              cell: (p, i) => figure("deliveries", `partners.${i}.retrying`, p.retrying, "count")
            },
            {
              head: "Oldest",
              numeric: true,
              cell: (p) => (p.oldest_retrying_age_seconds === null ? "—" : age(p.oldest_retrying_age_seconds))
            },
            {
              head: "Given up",
              numeric: true,
              cell: (p, i) => figure("deliveries", `partners.${i}.failed`, p.failed, "count")
            },
            {
              head: "Last error",
              wrap: true,
              cell: (p, i) => figure("deliveries", `partners.${i}.last_error`, p.last_error ?? "—", "text")
            }
          ],
          d.partners,
          { id: "failing-deliveries", empty: "every partner's webhooks are getting through." }
        )
  )

const hedgeOrders = (o, environment) =>
  card(
    "Hedge orders waiting",
    o === undefined ? "unknown" : tone("warn", o.items.length),
    routes.hedgeOrders(environment),
    o === undefined
      ? h("p", {}, "Unavailable.")
      : table(
          "Hedge orders intended or sent, newest first",
          [
            { head: "Order", cell: (x) => h("code", { title: x.id }, shortId(x.id)) },
            { head: "Pair", cell: (x) => x.pair },
            { head: "Side", cell: (x) => x.side },
            { head: "Amount", numeric: true, cell: (x, i) => figure("hedgeOrders", `items.${i}.amount`, x.amount) },
            { head: "Status", cell: (x) => x.status },
            { head: "Venue", cell: (x) => x.venue },
            {
              head: "Created",
              cell: (x) => h("time", { datetime: x.created_at, title: x.created_at }, clock(x.created_at))
            }
          ],
          o.items,
          { id: "pending-hedge-orders", empty: "none waiting." }
        )
  )

const workers = (status) =>
  card(
    "Workers",
    status.workers.length === 0 || status.workers.some((w) => w.passes.some((p) => !p.ok)) ? "warn" : "ok",
    routes.status(),
    table(
      "Worker processes seen in the last 24 hours",
      [
        { head: "Process", cell: (w) => w.owner },
        { head: "Last seen", numeric: true, cell: (w) => `${age(w.age_seconds)} ago` },
        {
          head: "Failing passes",
          cell: (w) => {
            const failing = w.passes.filter((p) => !p.ok).map((p) => p.pass)
            return failing.length === 0 ? "none" : failing.join(", ")
          }
        }
      ],
      status.workers,
      { empty: "no worker has run: nothing delivers webhooks, pays out or revalues the book." }
    )
  )

/** The pipes section's content for `environment`; each part says so when its route did not answer. */
export const pipes = (environment, status, deliveriesData, ordersData) => {
  const i = status?.environments.findIndex((e) => e.environment === environment) ?? -1
  const e = i >= 0 ? status.environments[i] : undefined
  return [
    h(
      "div",
      { class: "grid pipes" },
      e === undefined
        ? h("p", { class: "note" }, "The status route did not answer: outbox, payouts and unmatched funds unknown.")
        : [outbox(e, i), payouts(e, i), unmatched(e, i)],
      wide(deliveries(deliveriesData, environment)),
      wide(hedgeOrders(ordersData, environment)),
      status === undefined ? null : workers(status)
    )
  ]
}
