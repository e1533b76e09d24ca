/**
 * A payout's `failure_code` is one list, core's `OutboundEvent.payoutFailureCodes` (the chain's
 * `ChainGateway.failureReasons` and core's own): the OpenAPI document states it as the field's
 * `enum` and says what each code means in the `payout_failed` webhook, and partner-api.md's table,
 * written by hand, has exactly its rows, in its order, with the same meanings.
 */
import { assert, describe, it } from "@effect/vitest"
import { ChainGateway, OutboundEvent } from "@ratelock/core"
import { OpenApi } from "effect/http-api"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Api } from "../src/api/Api.ts"

const codes = Object.entries(OutboundEvent.payoutFailureCodes)

/** The rows of the first table after `heading` in `markdown`, each as its cells (code spans unwrapped). */
const tableAfter = (markdown: string, heading: string): Array<Array<string>> => {
  const lines = markdown.split("\n")
  const start = lines.indexOf(heading)
  assert.isAtLeast(start, 0, `no heading ${heading}`)
  const table: Array<Array<string>> = []
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("#")) break
    if (line.startsWith("|"))
      table.push(
        line
          .slice(1, -1)
          .split(" | ")
          .map((cell) => cell.trim())
      )
    else if (table.length > 0) break
  }
  // the header and the |---| line
  return table.slice(2).map((cells) => cells.map((cell) => cell.replace(/^`(.*)`$/, "$1")))
}

describe("payout failure codes", () => {
  it("are the chain's reasons and no_conversion_rate, each with its meaning", () => {
    assert.deepStrictEqual(OutboundEvent.PayoutFailureCode.literals, [
      ...ChainGateway.FailureReason.literals,
      "no_conversion_rate"
    ])
    for (const [code, meaning] of codes) assert.match(meaning, /^\S.*\.$/, code)
  })

  it("are the OpenAPI document's enum of failure_code, each explained in the payout_failed webhook", () => {
    // biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
    const doc: any = OpenApi.fromApi(Api)
    const payout = doc.components.schemas.PayoutFailedEvent.properties.payout
    assert.deepStrictEqual(
      payout.properties.failure_code.enum,
      codes.map(([code]) => code)
    )
    const description: string = doc.webhooks.payout_failed.post.description
    for (const [code, meaning] of codes) assert.include(description, `- \`${code}\`: ${meaning}`)
    assert.notInclude(doc.webhooks.payout_settled.post.description, "failure_code")
  })

  it("are partner-api.md's table, row by row", () => {
    const markdown = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "partner-api.md"), "utf8")
    assert.deepStrictEqual(tableAfter(markdown, "#### Payout failure codes"), codes)
  })
})
