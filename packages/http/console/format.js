// How the console writes what the routes answer. Every amount arrives as a decimal string and is shown
// from that string (digits grouped, never through a float), so what the page says is what the route
// said. Elements that show a route's value carry `data-source` (the route) and `data-path` (where in
// its JSON), and `data-format` (how it was written), so anyone can check one against the other.

const minus = "\u2212"

/** "-1234567.5" → "−1,234,567.50" (at least `decimals` decimals; every digit of the string kept). */
export const decimal = (text, decimals = 2) => {
  if (typeof text !== "string" || !/^-?\d+(\.\d+)?$/.test(text)) return "—"
  const negative = text.startsWith("-")
  const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".")
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")
  const digits = fraction.padEnd(decimals, "0")
  const shown = digits.length > 0 ? `${grouped}.${digits}` : grouped
  const zero = /^[0.]+$/.test(whole + digits)
  return negative && !zero ? `${minus}${shown}` : shown
}

/** A count, grouped: 12345 → "12,345". */
export const count = (n) => (typeof n === "number" ? decimal(String(n), 0) : "—")

/** "0.4523" → "45.23 %", moving the decimal point in the string (exact). */
export const percent = (ratio) => {
  if (typeof ratio !== "string" || !/^-?\d+(\.\d+)?$/.test(ratio)) return "—"
  const negative = ratio.startsWith("-")
  const [whole, fraction = ""] = (negative ? ratio.slice(1) : ratio).split(".")
  const digits = `${whole}${fraction.padEnd(2, "0")}`
  const point = whole.length + 2
  const integer = digits.slice(0, point).replace(/^0+(?=\d)/, "")
  const rest = digits.slice(point)
  return `${negative ? minus : ""}${decimal(rest.length > 0 ? `${integer}.${rest}` : integer, Math.min(rest.length, 2))} %`
}

/** A rate or vol as a decimal fraction, in per cent for the eye: "0.1425" → "14.25 %". */
export const rate = percent

/** Whole seconds as the desk says them: "42 s", "3 min 12 s", "2 h 05 min", "3 d 04 h". */
export const age = (seconds) => {
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) return "—"
  const s = Math.max(0, Math.floor(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`
  return `${Math.floor(s / 86_400)} d ${String(Math.floor((s % 86_400) / 3600)).padStart(2, "0")} h`
}

/** An instant as a time of day on the desk's clock, "14:03:07" (the full instant in the title). */
export const clock = (iso) => {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return "—"
  const pad = (n) => String(n).padStart(2, "0")
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

/** The first 8 characters of an id: enough to tell snapshots and orders apart on screen. */
export const shortId = (id) => (typeof id === "string" ? id.slice(0, 8) : "—")

/** A number for a chart's scale (charts only: what is written on the page is the string itself). */
export const toNumber = (text) => (text === null || text === undefined ? Number.NaN : Number(text))

/**
 * An element: `h("td", { class: "num", dataset: { path: "x" } }, "text", child)`. Text is always set
 * as text, never parsed as markup, so names and errors from the routes cannot inject anything.
 */
export const h = (tag, attributes = {}, ...children) => {
  const element = document.createElement(tag)
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue
    if (key === "dataset") Object.assign(element.dataset, value)
    else if (key === "class") element.className = value
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value)
    else element.setAttribute(key, value === true ? "" : String(value))
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    element.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return element
}

/**
 * A value from a route, written with `format` and marked with where it came from. `path` is the
 * JSON path in the route's answer (`pairs.0.mtm`).
 */
export const figure = (source, path, value, format = "decimal", tag = "span", attributes = {}) => {
  const text =
    format === "decimal"
      ? decimal(value)
      : format === "count"
        ? count(value)
        : format === "percent"
          ? percent(value)
          : format === "exact"
            ? decimal(value, 0)
            : String(value ?? "—")
  return h(tag, { ...attributes, dataset: { source, path, format } }, text)
}

/** A headline figure: its label, its value (a `figure()`), its unit and a note in words. */
export const tile = (label, value, unit, note) =>
  h(
    "div",
    { class: "tile" },
    h("span", { class: "tile-label" }, label),
    h("span", { class: "tile-value" }, value, unit ? h("span", { class: "unit" }, ` ${unit}`) : null),
    note ? h("span", { class: "tile-note" }, note) : null
  )

/**
 * A table of `rows` with a caption, scrolling sideways inside its own region on a narrow screen (the
 * region takes the keyboard's focus, so it scrolls with the arrow keys). Each column is
 * `{ head, cell: (row, index) => node or text, numeric, wrap }` (`wrap`: long text, wrapped).
 *
 * @param {string} caption
 * @param {ReadonlyArray<{ head: string, cell: (row: any, index: number) => any, numeric?: boolean, wrap?: boolean }>} columns
 * @param {ReadonlyArray<any>} rows
 * @param {{ id?: string, empty?: string }} [options]
 */
export const table = (caption, columns, rows, { id, empty = "None." } = {}) => {
  if (rows.length === 0) return h("p", { class: "empty", id }, `${caption}: ${empty}`)
  return h(
    "div",
    { class: "table-wrap", role: "region", "aria-label": caption, tabindex: "0", id },
    h(
      "table",
      {},
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map((c) => h("th", { scope: "col", class: c.numeric ? "num" : undefined }, c.head))
        )
      ),
      h(
        "tbody",
        {},
        rows.map((row, i) =>
          h(
            "tr",
            {},
            columns.map((c, j) =>
              h(
                j === 0 ? "th" : "td",
                { scope: j === 0 ? "row" : undefined, class: c.numeric ? "num" : c.wrap ? "wrap" : undefined },
                c.cell(row, i)
              )
            )
          )
        )
      )
    )
  )
}
