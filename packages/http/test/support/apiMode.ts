/**
 * The CLI in API mode, as an operator sets it up: a token made on the database (`operator token
 * create`, the first token of a deployment), the service started on the same data directory, and
 * the two settings that make every later command act through its operator API.
 */
import { stop } from "@ratelock/test-support/Processes"
import { cliJson, operatorUrlOf, type Service, start } from "./process.ts"

export interface ApiMode {
  /** `RATELOCK_OPERATOR_URL` and `RATELOCK_OPERATOR_TOKEN`, for `cliWith`. */
  readonly env: Record<string, string>
  readonly tokenId: string
  readonly token: string
  readonly operatorUrl: string
  readonly service: Service
  readonly stop: () => Promise<void>
}

/** Makes a `role` token named `name` on `dataDir`'s database, then starts the service on it. */
export const apiMode = async (
  dataDir: string,
  options: { readonly name?: string; readonly role?: string; readonly env?: Record<string, string> } = {}
): Promise<ApiMode> => {
  const created = await cliJson(
    dataDir,
    "operator",
    "token",
    "create",
    "--name",
    options.name ?? "alice",
    "--role",
    options.role ?? "admin"
  )
  const service = start(dataDir, options.env ?? {})
  const operatorUrl = await operatorUrlOf(service)
  return {
    env: { RATELOCK_OPERATOR_URL: operatorUrl, RATELOCK_OPERATOR_TOKEN: created.token },
    tokenId: created.token_id,
    token: created.token,
    operatorUrl,
    service,
    stop: () => stop(service.child)
  }
}

/**
 * `text` with what differs between two runs of the same commands made the same: ids, instants,
 * secrets and tokens, hashes, ports.
 */
export const normalized = (text: string): string =>
  text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<instant>")
    .replace(/rl(k|op|whsec)_[A-Za-z0-9_-]+/g, "<secret>")
    .replace(/whsec_[A-Za-z0-9+/=_-]+/g, "<secret>")
    .replace(/0x[0-9a-fA-F]{64}/g, "<hash>")
    .replace(/localhost:\d+|127\.0\.0\.1:\d+/g, "<host>")
