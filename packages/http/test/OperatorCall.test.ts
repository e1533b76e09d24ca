/**
 * What the CLI prints of the operator API's refusal in API mode (`remoteMessage`): the envelope's
 * message, and for a request the API could not decode (422 `validation_error`, its message only a
 * count) each field with what is wrong with it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Conflict, envelope, ValidationFailed } from "../src/api/Errors.ts"
import { remoteMessage, throughApi } from "../src/cli/OperatorCall.ts"

const url = new URL("http://127.0.0.1:8081")

describe("remoteMessage", () => {
  it("a request that does not decode: the count, then each field's place and rule", () => {
    const one = new ValidationFailed({
      ...envelope("validation_error", "1 invalid field"),
      detail: [{ loc: ["body", "role"], msg: "Expected OperatorRole", type: "enum" }]
    })
    assert.strictEqual(remoteMessage(url, one), "1 invalid field: body.role: Expected OperatorRole")
    const two = new ValidationFailed({
      ...envelope("validation_error", "2 invalid fields"),
      detail: [
        { loc: ["query", "limit"], msg: "Expected a value between 1 and 1000", type: "less_than_equal" },
        { loc: ["query", "status"], msg: 'Expected "pending" | "stuck" | "failed"', type: "enum" }
      ]
    })
    assert.strictEqual(
      remoteMessage(url, two),
      '2 invalid fields: query.limit: Expected a value between 1 and 1000; query.status: Expected "pending" | "stuck" | "failed"'
    )
  })

  it("a refusal with a message of its own prints that message alone, as on the database", () => {
    const cursor = new ValidationFailed({
      ...envelope("validation_error", "Invalid cursor: not a page of this list"),
      detail: [{ loc: ["query", "cursor"], msg: "Invalid cursor: not a page of this list", type: "value_error" }]
    })
    assert.strictEqual(remoteMessage(url, cursor), "Invalid cursor: not a page of this list")
    const invalid = new ValidationFailed({
      ...envelope("invalid_name", "a token name is 1 to 100 characters"),
      detail: []
    })
    assert.strictEqual(remoteMessage(url, invalid), "a token name is 1 to 100 characters")
    const conflict = new Conflict(envelope("already_refunded", "0xabc:0 is already refunded"))
    assert.strictEqual(remoteMessage(url, conflict), "0xabc:0 is already refunded")
  })
})

/** A loopback port nothing listens on (one just closed). */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

describe("throughApi", () => {
  it.live("an operator API nobody answers at: the CLI says it cannot reach it, naming the setting", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(closedPort)
      const url = new URL(`http://127.0.0.1:${port}`)
      const error = yield* Effect.flip(
        throughApi({ url, token: Redacted.make("rlop_x") }, (api) => api.operator.status())
      )
      assert.match(
        error.message,
        new RegExp(`^Cannot reach the operator API at http://127\\.0\\.0\\.1:${port} \\(RATELOCK_OPERATOR_URL\\): `)
      )
    })
  )
})
