/**
 * The operator console in a real browser: headless Chromium (Debian's package, driven by
 * playwright-core) against `pnpm start`'s service on a fresh embedded data directory, set up first
 * with the CLI as an operator would: two sandbox partners (one whose webhook endpoint is down), an
 * operator token, a hedge policy on USD/BRL and capacity limits on two corridors.
 *
 * The page asks for a token and refuses a wrong one; it opens on an environment the deployment
 * serves (the sandbox here, production being off; production when the status says it is served),
 * or on the one the address names; with a market snapshot older than production's limit it says
 * the market is stale, and stops saying so once a fresh one is imported; it shows the book of a
 * seeded set of sandbox locks (revalued, and hedged by the simulated venue) with every figure equal
 * to the operator routes' JSON, the limits' gauges (red above 90 %), the failing partner and the
 * market's curves and smiles, and the audit log (the set-up's actions and a viewer's refused import,
 * filtered by outcome on the page and by actor and action through the route, its figures the
 * filtered answer's), and the P&L between two closes taken with `ratelock finance close` (through the API) around
 * the sales and the hedging, its days stacked in a chart; a part with nothing to show (no limit, no alert) reads nothing, not
 * "null", and production's empty book says how to set a limit; it is used with the keyboard; it
 * reaches no other host, logs no console error, keeps the token out of URLs and of the service's
 * output; and once the service is gone it says every source is unavailable instead of passing the
 * last figures off as current. Screenshots at 1280×800 and 390×844 are kept in `test-artifacts/console/`: the
 * sandbox book (`desktop.png`, `phone.png`, and their whole pages `*-full.png`), the first screen
 * under a stale market (`stale.png`), production's empty book (`production.png`), the audit log
 * (`audit.png`), the sandbox's P&L (`pnl.png`) and the service gone (`unavailable.png`).
 */
import { WebhookInbox } from "@ratelock/core"
import { freePort } from "@ratelock/test-support/Processes"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, assert, describe, it } from "vitest"
import { figuresOf, launch, mismatches, runBrowserSuites } from "./support/browser.ts"
import { eventually } from "./support/process.ts"
import { cliJson, cliWith, packageDir, removeTempDirs, type Service, start, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

const artifacts = join(packageDir, "test-artifacts", "console")
const example = JSON.parse(
  readFileSync(join(packageDir, "..", "..", "docs", "market", "example-snapshot.json"), "utf8")
)

/** The example snapshot as observed `secondsAgo` before now (each a different document). */
const snapshotAged = (secondsAgo: number) =>
  JSON.stringify({ ...example, as_of: new Date(Date.now() - secondsAgo * 1000).toISOString() })

const poll = async <A>(test: () => Promise<A | undefined>, what: () => string, timeoutMs = 90_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await test()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

const band = "2000"

/** The sections of the page holding a text "null" (a missing part written out), by their id. */
const nullTexts = (page: Page) =>
  page.evaluate(() => {
    const found: Array<string> = []
    const walker = document.createTreeWalker(document.querySelector("#app")!, NodeFilter.SHOW_TEXT)
    while (walker.nextNode()) {
      const text = walker.currentNode
      if (text.textContent?.trim() === "null") found.push(text.parentElement?.closest("[id]")?.id ?? "?")
    }
    return found
  })

describe.skipIf(!runBrowserSuites)("the operator console in Chromium", () => {
  it("shows the book, limits, market, pipes and audit log as the routes say, and says what is stale or unavailable", {
    timeout: 400_000
  }, async () => {
    mkdirSync(artifacts, { recursive: true })
    const dataDir = tempDataDir()
    const [port, operatorPort, closedPort] = [await freePort(), await freePort(), await freePort()]
    const baseUrl = `http://127.0.0.1:${port}`
    const origin = `http://127.0.0.1:${operatorPort}`

    // the operator's set-up, with the CLI, before the service runs (the embedded database is locked while it does)
    const acme = await cliJson(dataDir, "partner", "create", "--name", "Acme Pay")
    await cliJson(
      dataDir,
      "webhook",
      "set",
      "--partner",
      acme.partner_id,
      "--environment",
      "sandbox",
      "--url",
      `http://localhost:${port}${WebhookInbox.path(acme.partner_id)}`
    )
    const bolt = await cliJson(
      dataDir,
      "partner",
      "create",
      "--name",
      "Bolt Remit",
      "--webhook-url-sandbox",
      `http://127.0.0.1:${closedPort}/hooks`
    )
    const token = (await cliJson(dataDir, "operator", "token", "create", "--name", "console-test", "--role", "admin"))
      .token as string
    await cliJson(
      dataDir,
      "hedge",
      "policy",
      "set",
      "--environment",
      "sandbox",
      "--pair",
      "USD/BRL",
      "--band",
      band,
      "--instrument",
      "spot"
    )
    await cliJson(
      dataDir,
      "limits",
      "set",
      "--environment",
      "sandbox",
      "--corridor",
      "USD_TO_BRL",
      "--max-open-notional",
      "420000"
    )
    await cliJson(
      dataDir,
      "limits",
      "set",
      "--environment",
      "sandbox",
      "--corridor",
      "BRL_TO_USD",
      "--max-net-delta",
      "1000000"
    )

    const service: Service = start(dataDir, {
      PORT: String(port),
      RATELOCK_OPERATOR_PORT: String(operatorPort),
      RATELOCK_HEDGING: "simulated",
      // the book is revalued on each import, not meanwhile: the figures hold still while they are compared
      RATELOCK_RISK_INTERVAL_SECONDS: "3600"
    })
    let browser: Browser | undefined
    try {
      await eventually(
        () => (service.stdout().includes("Ratelock ready on") ? true : undefined),
        90_000,
        () => `the service: ${service.output()}`
      )
      // biome-ignore lint/suspicious/noExplicitAny: route answers are inspected field by field
      const api = async (path: string, init: RequestInit = {}): Promise<{ status: number; json: any }> => {
        const response = await fetch(`${origin}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers }
        })
        return { status: response.status, json: await response.json() }
      }
      const imported = async (secondsAgo: number) => {
        const reply = await api("/operator/v1/market/snapshots", { method: "POST", body: snapshotAged(secondsAgo) })
        assert.strictEqual(reply.status, 201, JSON.stringify(reply.json))
        return reply.json.snapshot_id as string
      }

      // --- the page, its headers, and signing in ---------------------------------------------------------
      const page0 = await fetch(`${origin}/console`)
      assert.strictEqual(page0.status, 200)
      assert.match(page0.headers.get("content-type") ?? "", /^text\/html/)
      assert.match(
        page0.headers.get("content-security-policy") ?? "",
        /default-src 'none'.*script-src 'self'.*connect-src 'self'/
      )
      for (const asset of [
        "/console/assets/console.js",
        "/console/vendor/plot.umd.min.js",
        "/console/vendor/d3.min.js"
      ]) {
        const reply = await fetch(`${origin}${asset}`)
        assert.strictEqual(reply.status, 200, asset)
        assert.match(reply.headers.get("content-type") ?? "", /^text\/javascript/, asset)
      }
      assert.strictEqual((await fetch(`${origin}/console/assets/secrets.json`)).status, 404)
      // the data itself needs the token
      assert.strictEqual((await fetch(`${origin}/operator/v1/risk`)).status, 401)

      browser = await launch()
      const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      const page = await desktop.newPage()
      const problems: Array<string> = []
      const foreign: Array<string> = []
      const requested: Array<string> = []
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`console: ${message.text()}`)
      })
      page.on("pageerror", (error) => problems.push(`page: ${error.message}`))
      page.on("request", (request) => {
        requested.push(request.url())
        if (new URL(request.url()).origin !== origin) foreign.push(request.url())
      })

      // a wrong token is refused, in a tab of its own (its 401 is a console error there)
      const other = await browser.newContext()
      const refusedPage = await other.newPage()
      await refusedPage.goto(`${origin}/console`)
      await refusedPage.fill("#token", "rlop_not-a-token")
      await refusedPage.click("#login-form button[type=submit]")
      await refusedPage.waitForFunction(() => document.querySelector("#login-error")?.textContent?.includes("refused"))
      assert.isTrue(await refusedPage.isHidden("#app"))
      assert.isNull(await refusedPage.evaluate(() => sessionStorage.getItem("ratelock.operatorToken")))
      await other.close()

      // where the status says production is served (answered so here), the page opens on production
      const servedEverywhere = await browser.newContext()
      const servedPage = await servedEverywhere.newPage()
      await servedPage.route("**/operator/v1/status", async (route) => {
        const response = await route.fetch()
        const json = await response.json()
        // biome-ignore lint/suspicious/noExplicitAny: the status JSON, one field changed
        const environments = json.environments.map((e: any) => ({ ...e, served: true }))
        await route.fulfill({ response, json: { ...json, environments } })
      })
      await servedPage.goto(`${origin}/console`)
      await servedPage.fill("#token", token)
      await servedPage.click("#login-form button[type=submit]")
      // once the first refresh has drawn the page
      await servedPage.waitForSelector("#refreshed-at")
      assert.match(await servedPage.title(), /· production$/)
      assert.strictEqual(await servedPage.getAttribute("button[data-environment=production]", "aria-pressed"), "true")
      // a status read still in flight when the tab closes is no failure
      await servedPage.unrouteAll({ behavior: "ignoreErrors" })
      await servedEverywhere.close()

      // a snapshot two hours old: the market is stale for production
      const staleId = await imported(2 * 3600)
      await page.goto(`${origin}/console`)
      assert.isTrue(await page.isVisible("#login"))
      await page.fill("#token", token)
      await page.click("#login-form button[type=submit]")
      await page.waitForSelector("#stale-banner")
      // production is off on this deployment: the page opens on the sandbox, which it serves
      assert.strictEqual(await page.getAttribute("button[data-environment=sandbox]", "aria-pressed"), "true")
      assert.strictEqual(await page.getAttribute("button[data-environment=production]", "aria-pressed"), "false")
      assert.match(await page.title(), /· sandbox$/)
      // a part with nothing to show (no hot wallet alert) is left out, not written "null"
      assert.deepStrictEqual(await nullTexts(page), [])
      const stale = await page.textContent("#stale-banner")
      assert.include(stale, "Market data stale")
      assert.include(stale, staleId.slice(0, 8))
      assert.match(stale ?? "", /is 2 h 0\d min old, over production's limit of 15 min 00 s/)
      assert.isTrue(await page.locator("#snapshot-in-force.stale").isVisible())
      await page.screenshot({ path: join(artifacts, "stale.png"), fullPage: true })
      assert.notInclude(page.url(), token)
      assert.strictEqual(await page.evaluate(() => sessionStorage.getItem("ratelock.operatorToken")), token)
      assert.strictEqual(await page.evaluate(() => localStorage.length + document.cookie.length), 0)
      // another tab has its own session: it asks for the token again
      const secondTab = await desktop.newPage()
      await secondTab.goto(`${origin}/console`)
      assert.isTrue(await secondTab.isVisible("#login"))
      await secondTab.close()

      // --- a book: locks sold and funded in the sandbox ------------------------------------------------------
      await imported(60)
      // the sandbox's book closed before the sales and after the hedging, as an operator does it: the P&L between
      const closeBook = async () => {
        const closed = await cliWith(
          dataDir,
          { RATELOCK_OPERATOR_URL: origin, RATELOCK_OPERATOR_TOKEN: token },
          "finance",
          "close",
          "--environment",
          "sandbox",
          "--json"
        )
        assert.strictEqual(closed.code, 0, closed.stderr)
        return JSON.parse(closed.stdout)
      }
      await closeBook()
      const sell = async (key: { api_key_id: string; api_key_secret: string }, body: Record<string, unknown>) => {
        const headers = {
          "X-Partner-Key-Id": key.api_key_id,
          "X-Partner-Key-Secret": key.api_key_secret,
          "X-Partner-Environment": "sandbox",
          "content-type": "application/json"
        }
        // biome-ignore lint/suspicious/noExplicitAny: API answers are inspected field by field
        const post = async (path: string, payload?: unknown): Promise<{ status: number; json: any }> => {
          const response = await fetch(`${baseUrl}${path}`, {
            method: "POST",
            headers: { ...headers, "Idempotency-Key": crypto.randomUUID() },
            ...(payload === undefined ? {} : { body: JSON.stringify(payload) })
          })
          return { status: response.status, json: await response.json() }
        }
        const now = Date.now()
        const quote = await post("/api/v1/fx/quotes", {
          customer_reference_id: `customer-${crypto.randomUUID()}`,
          customer_name: "Ana Souza",
          contract_type: "option",
          direction: "USD_TO_BRL",
          notional_currency: "USD",
          notional_amount: "50000",
          provider_rate: "5.40",
          market_rate: "5.41",
          market_rate_timestamp: new Date(now).toISOString(),
          window_start: new Date(now).toISOString(),
          window_end: new Date(now + 28 * 86_400_000).toISOString(),
          chain: "polygon",
          settlement_currency: "USDC",
          ...body
        })
        assert.strictEqual(quote.json.status, "created", JSON.stringify(quote.json))
        const contract = await post("/api/v1/fx/contracts", { quote_id: quote.json.id })
        assert.strictEqual(contract.status, 201, JSON.stringify(contract.json))
        const funded = await post(`/api/v1/sandbox/contracts/${contract.json.id}/fund`)
        assert.strictEqual(funded.status, 202, JSON.stringify(funded.json))
      }
      const acmeKey = acme.environments.sandbox
      const brl = {
        direction: "BRL_TO_USD",
        notional_currency: "BRL",
        notional_amount: "100000",
        provider_rate: "0.1848",
        market_rate: "0.1848"
      }
      const eur = {
        direction: "EUR_TO_USD",
        notional_currency: "EUR",
        notional_amount: "80000",
        provider_rate: "1.16",
        market_rate: "1.165"
      }
      for (let i = 0; i < 8; i++) await sell(acmeKey, {})
      for (let i = 0; i < 3; i++) await sell(acmeKey, brl)
      for (let i = 0; i < 2; i++) await sell(acmeKey, eur)
      await sell(bolt.environments.sandbox, { notional_amount: "10000" })
      const locks = 14

      // funded once the simulated chain confirms; revalued now (and stored), then hedged by the workers
      await poll(
        async () =>
          (await api("/operator/v1/risk?environment=sandbox&fresh=true")).json.open_locks === locks ? true : undefined,
        () => `${locks} open locks`
      )
      let risk:
        | {
            pairs: ReadonlyArray<{
              pair: string
              hedge: { pending_order: string | null; position: string; residual_delta: string }
            }>
          }
        | undefined
      await poll(
        async () => {
          risk = (await api("/operator/v1/risk?environment=sandbox")).json
          const usdBrl = risk?.pairs.find((p) => p.pair === "USD/BRL")
          return usdBrl !== undefined &&
            usdBrl.hedge.pending_order === null &&
            Number(usdBrl.hedge.position) !== 0 &&
            Math.abs(Number(usdBrl.hedge.residual_delta)) <= Number(band)
            ? true
            : undefined
        },
        () => `USD/BRL hedged within its band: ${JSON.stringify(risk?.pairs[0]?.hedge)}`
      )
      // Bolt's endpoint is down: its delivery is retrying
      await poll(
        async () =>
          (await api("/operator/v1/deliveries?environment=sandbox")).json.partners.length > 0 ? true : undefined,
        () => "Bolt's failing delivery"
      )
      const closed = await closeBook()
      assert.isAbove(Number(closed.pnl.usd.premiums), 0, "the locks' premiums between the two closes")
      // a viewer's token, made through the API, is refused an import: the log holds a forbidden action
      const viewer = await api("/operator/v1/tokens", {
        method: "POST",
        body: JSON.stringify({ name: "console-viewer", role: "viewer" })
      })
      assert.strictEqual(viewer.status, 201, JSON.stringify(viewer.json))
      const refusedImport = await api("/operator/v1/market/snapshots", {
        method: "POST",
        body: snapshotAged(30),
        headers: { authorization: `Bearer ${viewer.json.token}` }
      })
      assert.strictEqual(refusedImport.status, 403)

      // --- production, then the sandbox again, chosen with the keyboard ----------------------------------
      await page.click("#refresh-now")
      await page.waitForSelector("#stale-banner", { state: "detached" })
      const choose = async (environment: string) => {
        await page.focus("#refresh-now")
        for (let i = 0; i < 12; i++) {
          if (await page.evaluate((e) => document.activeElement?.getAttribute("data-environment") === e, environment))
            break
          await page.keyboard.press("Shift+Tab")
        }
        await page.keyboard.press("Enter")
        assert.strictEqual(await page.getAttribute(`button[data-environment=${environment}]`, "aria-pressed"), "true")
        // the choice is in the address, so a reload or a bookmark keeps it
        assert.strictEqual(new URL(page.url()).hash, `#${environment}`)
      }
      const emptyBook = () =>
        page.waitForFunction(() => document.querySelector('#book [data-path="open_locks"]')?.textContent === "0")
      await choose("production")
      await emptyBook()
      // production has no limit: the summary says how to set one, and nothing after it reads "null"
      assert.strictEqual(
        await page.textContent("#limits-summary"),
        "No corridor has a capacity limit (max_open_notional, max_net_delta): set one with ratelock limits set."
      )
      assert.deepStrictEqual(await nullTexts(page), [])
      // reopened with the token kept by the tab, it stays on production, as the address says
      await page.reload()
      await emptyBook()
      assert.strictEqual(await page.getAttribute("button[data-environment=production]", "aria-pressed"), "true")
      await page.screenshot({ path: join(artifacts, "production.png"), fullPage: true })
      await choose("sandbox")
      await page.waitForFunction(
        (n) => document.querySelector('#book [data-path="open_locks"]')?.textContent === String(n),
        locks
      )

      // --- every figure on the page is the routes' ----------------------------------------------------------
      const routes = {
        risk: "/operator/v1/risk?environment=sandbox",
        market: "/operator/v1/market",
        deliveries: "/operator/v1/deliveries?environment=sandbox",
        hedgeOrders: "/operator/v1/hedge/orders?environment=sandbox&status=pending",
        status: "/operator/v1/status",
        treasury: "/operator/v1/treasury?environment=sandbox",
        pnl: "/operator/v1/finance/pnl?environment=sandbox",
        audit: "/operator/v1/audit?limit=50"
      }
      const readRoutes = async () =>
        Object.fromEntries(
          await Promise.all(Object.entries(routes).map(async ([name, path]) => [name, (await api(path)).json]))
        )
      // a route whose answer moved while the page was read (an outbox draining) is read again; ages move with the clock alone
      let compared = 0
      for (let attempt = 1; ; attempt++) {
        const before = await readRoutes()
        const refreshedAt = await page.getAttribute("#refreshed-at", "datetime")
        await page.click("#refresh-now")
        await page.waitForFunction(
          (at) => document.querySelector("#refreshed-at")?.getAttribute("datetime") !== at,
          refreshedAt
        )
        const figures = await figuresOf(page)
        const after = await readRoutes()
        const moved = Object.keys(routes).filter(
          (name) => JSON.stringify(withoutClock(before[name])) !== JSON.stringify(withoutClock(after[name]))
        )
        if (moved.length > 0 && attempt < 5) continue
        const steady = Object.keys(routes).filter((name) => !moved.includes(name))
        for (const name of ["risk", "market", "deliveries", "hedgeOrders", "pnl", "audit"])
          assert.include(steady, name, `${name} held still`)
        const shown = figures.filter((f) => steady.includes(f.source))
        assert.deepStrictEqual(mismatches(shown, after), [], "figures that differ from the routes")
        for (const name of ["risk", "market", "deliveries", "status", "pnl", "audit"]) {
          assert.isAbove(shown.filter((f) => f.source === name).length, 0, `${name} figures shown`)
        }
        compared = shown.length
        break
      }
      assert.isAbove(compared, 300, "figures compared")

      // the book in words and charts
      const worst = (await api(routes.risk)).json.stress[0]
      const worstText = await page.textContent("#worst-stress")
      assert.include(worstText, `Worst case: ${worst.name}`)
      assert.strictEqual((await page.locator("#book figure.card svg").count()) >= 3, true)
      assert.isAbove(
        await page.locator("#book figure.card").filter({ hasText: "USD/BRL" }).locator("svg rect").count(),
        3
      )
      assert.include(await page.textContent("#book"), `Within its band of ±2,000.00 around the target.`)
      // the limits: USD_TO_BRL holds 410,000 of 420,000 (97.62 %), red; BRL_TO_USD 300,000 of 1,000,000
      const usdBrlLimit = page.locator('.limit[data-corridor="USD_TO_BRL"]')
      assert.isTrue(await usdBrlLimit.evaluate((e) => e.classList.contains("over")))
      assert.include(await usdBrlLimit.textContent(), "97.62 %")
      assert.include(await page.textContent('.limit[data-corridor="BRL_TO_USD"]'), "30.00 %")
      assert.isFalse(
        await page.locator('.limit[data-corridor="BRL_TO_USD"]').evaluate((e) => e.classList.contains("over"))
      )
      assert.include(await page.textContent("#limits-summary"), "USD_TO_BRL")
      // the pipes: Bolt Remit's webhook is down
      const failing = await page.textContent("#failing-deliveries")
      assert.include(failing, "Bolt Remit")
      assert.notInclude(failing, "Acme Pay")
      // at a glance: the corridor over 90 % and the failing partner in red, the market fresh
      const glance = page.locator("#glance")
      assert.include(await glance.locator(".glance-item.bad").allTextContents(), "Limits1 over 90 %")
      assert.include(await glance.locator(".glance-item.bad").allTextContents(), "Webhooks1 partner failing")
      assert.match((await glance.locator(".glance-item", { hasText: "Market" }).textContent()) ?? "", /^Marketfresh, /)
      // the market: a line per pair and per currency, a smile at 1M and at 3M
      assert.strictEqual(await page.locator("#market figure.card svg").count(), 4)
      assert.isTrue(await page.locator("#snapshot-in-force:not(.stale)").isVisible())
      // the P&L: the day of the two closes, its explained lines moved (the sales' new business, the hedges), drawn
      // as stacked bars with the cumulative line, its figures the route's
      const report = (await api(routes.pnl)).json
      assert.isAtLeast(report.periods, 2)
      const explained = ["new_business", "theta", "delta", "hedges"]
      assert.isTrue(
        report.days.some((d: { lines: Record<string, string> }) =>
          explained.some((line) => Number(d.lines[line]) !== 0)
        ),
        JSON.stringify(report.days)
      )
      assert.isAbove(await page.locator("#pnl figure.card svg rect").count(), 3)
      assert.strictEqual((await page.locator("#pnl figure.card svg path").count()) >= 1, true)
      assert.strictEqual(
        await page.locator('#pnl-totals [data-path="totals.total"]').getAttribute("data-source"),
        "pnl"
      )
      assert.strictEqual(await page.locator("#pnl-days tbody tr").count(), report.days.length + 1)
      // the last close, as the status says: the operator's second
      assert.match(
        (await page.textContent("#last-close")) ?? "",
        /^Last close of the book at \d\d:\d\d:\d\d \(.+ ago\), an operator's\.$/
      )
      await page.locator("#pnl").screenshot({ path: join(artifacts, "pnl.png") })
      // the audit log: the CLI's set-up and the API's imports, the viewer's refusal among them
      const log = (await api(routes.audit)).json
      const tracked = new Set(["operator.token.create", "limits.set", "market.snapshot.import"])
      assert.deepStrictEqual(
        log.items
          .filter((e: { action: string }) => tracked.has(e.action))
          .map((e: { actor: string; action: string; outcome: string }) =>
            [e.actor.startsWith("cli:") ? "cli" : e.actor, e.action, e.outcome].join(" ")
          )
          .reverse(),
        [
          "cli operator.token.create ok",
          "cli limits.set ok",
          "cli limits.set ok",
          "console-test market.snapshot.import ok",
          "console-test market.snapshot.import ok",
          "console-test operator.token.create ok",
          "console-viewer market.snapshot.import forbidden"
        ]
      )
      const auditRows = page.locator("#audit-log tbody tr")
      assert.strictEqual(await auditRows.count(), log.items.length)
      assert.include(
        await page.textContent("#audit-summary"),
        `${log.items.length} of the last ${log.items.length} actions; 1 refused`
      )
      const forbiddenRow = auditRows.filter({ hasText: "forbidden: needs the risk role" })
      assert.include(await forbiddenRow.textContent(), "console-viewer")
      assert.isTrue(await forbiddenRow.locator(".outcome.warn").isVisible())
      // filtered by outcome: the page's records narrowed at once
      await page.selectOption("#audit-filter select[name=outcome]", "forbidden")
      await page.waitForFunction(() => document.querySelectorAll("#audit-log tbody tr").length === 1)
      assert.include(await page.textContent("#audit-log"), "console-viewer")
      // filtered by actor: the route asked again, its figures the filtered answer's
      await page.selectOption("#audit-filter select[name=outcome]", "")
      await page.fill("#audit-filter input[name=actor]", "console-test")
      await page.click("#audit-filter button[type=submit]")
      await page.waitForFunction(() =>
        document.querySelector("#audit-summary")?.textContent?.includes("actor console-test")
      )
      const byActor = (await api("/operator/v1/audit?limit=50&actor=console-test")).json
      assert.deepStrictEqual(
        byActor.items.map((e: { action: string }) => e.action),
        ["operator.token.create", "finance.close", "finance.close", "market.snapshot.import", "market.snapshot.import"]
      )
      const auditFigures = (await figuresOf(page)).filter((f) => f.source === "audit")
      assert.strictEqual(auditFigures.filter((f) => f.path.endsWith(".actor")).length, byActor.items.length)
      assert.deepStrictEqual(mismatches(auditFigures, { audit: byActor }), [], "the filtered log's figures")
      // and by action, through the same form
      await page.fill("#audit-filter input[name=action]", "market.snapshot.import")
      await page.click("#audit-filter button[type=submit]")
      await page.waitForFunction(() => document.querySelectorAll("#audit-log tbody tr").length === 2)
      await page.click("#audit-filter button[type=reset]")
      await page.waitForFunction((n) => document.querySelectorAll("#audit-log tbody tr").length === n, log.items.length)
      await page.locator("#audit").screenshot({ path: join(artifacts, "audit.png") })

      // a card's JSON opens with the token, in a dialog
      await page.click('#pipes a[data-json^="/operator/v1/deliveries"]')
      await page.waitForFunction(() => document.querySelector("#json-body")?.textContent?.includes("Bolt Remit"))
      await page.keyboard.press("Escape")

      // --- what it looks like --------------------------------------------------------------------------------
      await page.evaluate(() => window.scrollTo(0, 0))
      await page.screenshot({ path: join(artifacts, "desktop.png") })
      await page.screenshot({ path: join(artifacts, "desktop-full.png"), fullPage: true })
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
      const phonePage = await phone.newPage()
      phonePage.on("console", (message) => {
        if (message.type() === "error") problems.push(`phone console: ${message.text()}`)
      })
      phonePage.on("request", (request) => {
        if (new URL(request.url()).origin !== origin) foreign.push(request.url())
      })
      await phonePage.goto(`${origin}/console#sandbox`)
      await phonePage.fill("#token", token)
      await phonePage.click("#login-form button[type=submit]")
      await phonePage.waitForFunction(
        (n) => document.querySelector('#book [data-path="open_locks"]')?.textContent === String(n),
        locks
      )
      // nothing wider than the phone but the tables, which scroll in their own regions
      const overflow = await phonePage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      assert.isAtMost(overflow, 0, "the page scrolls sideways on a phone")
      await phonePage.screenshot({ path: join(artifacts, "phone.png") })
      await phonePage.screenshot({ path: join(artifacts, "phone-full.png"), fullPage: true })

      assert.deepStrictEqual(problems, [], "console errors")
      assert.deepStrictEqual(foreign, [], "requests to another host")
      assert.isFalse(
        requested.some((url) => url.includes(token)),
        "the token in a URL"
      )
      assert.notInclude(service.output(), token, "the token in the service's output")

      // --- the service gone: every source unavailable, the last figures marked with their time -------------
      service.child.kill("SIGTERM")
      await service.exited
      await page.click("#refresh-now")
      await page.waitForSelector("#unavailable-banner")
      assert.include(
        await page.textContent("#unavailable-banner"),
        "status, market data, the book, deliveries, hedge orders, treasury, P&L, audit log"
      )
      // at a glance shows nothing from before as current
      assert.strictEqual(
        await page.locator("#glance .glance-item.unknown").count(),
        await page.locator("#glance .glance-item").count()
      )
      for (const section of ["book", "limits", "market", "pipes", "treasury", "pnl", "audit"]) {
        assert.isAbove(await page.locator(`#${section} .unavailable`).count(), 0, section)
      }
      assert.isTrue(await page.locator("#book.outdated").isVisible())
      assert.include(await page.textContent("#refreshed"), "Nothing answered")
      await page.screenshot({ path: join(artifacts, "unavailable.png") })
    } finally {
      await browser?.close()
      service.child.kill("SIGKILL")
      await service.exited
    }
  })
})

/** A route's JSON without what moves with the clock alone (ages, check times, workers' heartbeats). */
// biome-ignore lint/suspicious/noExplicitAny: route answers are walked whole
const withoutClock = (json: any): any =>
  JSON.parse(JSON.stringify(json), (key, value) =>
    /age_seconds$|^checked_at$|^last_seen_at$|^last_pass_at$|^uptime_seconds$|^workers$/.test(key) ? undefined : value
  )
