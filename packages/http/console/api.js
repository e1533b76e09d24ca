// The operator routes the console reads, with the token of this tab. The token lives in
// sessionStorage (this tab only, gone when it closes), travels only in the Authorization header of
// the page's own fetches, and is never put in a URL.

const tokenKey = "ratelock.operatorToken"

export const storedToken = () => sessionStorage.getItem(tokenKey)
export const keepToken = (token) => sessionStorage.setItem(tokenKey, token)
export const forgetToken = () => sessionStorage.removeItem(tokenKey)

/** The route refused the token (401): missing, unknown or revoked. */
export class Refused extends Error {}

/** How long a route may take before the console calls it unavailable. */
const timeoutMs = 8_000

/** What the audit section asks of the log (the route's actor and action filters), and the outcome it shows. */
export const auditQuery = { actor: "", action: "", outcome: "" }

/** The audit log's page the console reads: the last actions, every environment's. */
export const auditPageSize = 50

const auditPath = () => {
  const query = new URLSearchParams({ limit: String(auditPageSize) })
  if (auditQuery.actor !== "") query.set("actor", auditQuery.actor)
  if (auditQuery.action !== "") query.set("action", auditQuery.action)
  return `/operator/v1/audit?${query}`
}

/** The sources the console reads, per environment, and the route each one is. */
export const routes = {
  status: () => "/operator/v1/status",
  market: () => "/operator/v1/market",
  risk: (environment) => `/operator/v1/risk?environment=${environment}`,
  deliveries: (environment) => `/operator/v1/deliveries?environment=${environment}`,
  hedgeOrders: (environment) => `/operator/v1/hedge/orders?environment=${environment}&status=pending`,
  treasury: (environment) => `/operator/v1/treasury?environment=${environment}`,
  pnl: (environment) => `/operator/v1/finance/pnl?environment=${environment}`,
  audit: () => auditPath()
}

/** A route's JSON, or why not: `Refused` on 401, an Error saying what failed otherwise. */
export const getJson = async (path, token) => {
  let response
  try {
    response = await fetch(path, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      cache: "no-store",
      signal: AbortSignal.timeout(timeoutMs)
    })
  } catch (error) {
    const reason =
      error?.name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : "the server did not answer"
    throw new Error(reason)
  }
  if (response.status === 401) throw new Refused("the operator API refused the token")
  const body = await response.json().catch(() => null)
  if (!response.ok) {
    const said = body?.error?.message ? `: ${body.error.message}` : ""
    throw new Error(`HTTP ${response.status}${said}`)
  }
  if (body === null) throw new Error("the answer was not JSON")
  return body
}
