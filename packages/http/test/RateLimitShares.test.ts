/**
 * How API replicas split a key's budget (`RateLimitShares.next`) and how a replica's bucket
 * enforces its share (`RateLimiter.take`), as pure functions; `RateLimit.e2e.test.ts` runs them in
 * two real processes on PostgreSQL.
 */
import { assert, describe, it } from "@effect/vitest"
import { alone, type Demand, next, shareOf, type Shares } from "../src/server/RateLimitShares.ts"
import { take } from "../src/server/RateLimiter.ts"

const demand = (entries: Record<string, number> = {}): Demand => new Map(Object.entries(entries))

/** Every replica's shares after one heartbeat on the same demands, starting from `before`. */
const heartbeat = (demands: ReadonlyArray<Demand>, before: ReadonlyArray<Shares>) =>
  demands.map((own, i) =>
    next(
      own,
      demands.filter((_, j) => j !== i),
      before[i]!
    )
  )

const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)

describe("RateLimitShares.next", () => {
  it("alone, or for a key no replica saw: the whole budget split evenly", () => {
    assert.strictEqual(shareOf(next(demand({ k: 500 }), [], alone), "k"), 1)
    const three = heartbeat([demand(), demand(), demand()], [alone, alone, alone])
    assert.deepStrictEqual(
      three.map((s) => shareOf(s, "unseen")),
      [1 / 3, 1 / 3, 1 / 3]
    )
  })

  it("a key's shares follow its traffic and sum to one, at most", () => {
    const demands = [demand({ k: 300 }), demand({ k: 100 })]
    let shares = heartbeat(demands, [alone, alone])
    shares = heartbeat(demands, shares)
    const k = shares.map((s) => shareOf(s, "k"))
    assert.isTrue(k[0]! > 0.74 && k[0]! < 0.76 && k[1]! > 0.24 && k[1]! < 0.26, String(k))
    assert.isTrue(sum(k) <= 1 + 1e-12)
  })

  it("a share rises in two heartbeats and falls at once", () => {
    // two replicas that knew each other; then all of k's traffic goes to the first
    const known = heartbeat([demand(), demand()], [alone, alone])
    const first = heartbeat([demand({ k: 200 }), demand()], known)
    assert.strictEqual(shareOf(first[0]!, "k"), 0.5, "not yet: one heartbeat could be out of step")
    const second = heartbeat([demand({ k: 200 }), demand()], first)
    assert.isTrue(shareOf(second[0]!, "k") > 0.99)
    assert.isTrue(sum(second.map((s) => shareOf(s, "k"))) <= 1 + 1e-12)
    // the traffic moves to the second replica: the first gives its share up at the next heartbeat
    const moved = heartbeat([demand(), demand({ k: 200 })], second)
    assert.isTrue(shareOf(moved[0]!, "k") < 0.01)
  })

  it("out of step at a key's start, the replicas take no more than the budget", () => {
    const known = heartbeat([demand(), demand()], [alone, alone])
    // the first replica beats 0.3 s into the traffic, before the second published any of it
    const a = next(demand({ k: 30 }), [demand()], known[0]!)
    const b = next(demand({ k: 80 }), [demand({ k: 30 })], known[1]!)
    assert.isTrue(shareOf(a, "k") + shareOf(b, "k") <= 1 + 1e-12)
  })
})

describe("RateLimiter.take with a share", () => {
  const config = { ratePerSecond: 10, burst: 20 }

  it("a replica with half the budget starts with half the burst and refills at half the rate", () => {
    let bucket: Parameters<typeof take>[2]
    let allowed = 0
    for (let i = 0; i < 30; i++) {
      const [verdict, next] = take(config, 0.5, bucket, 0)
      bucket = next
      if (verdict.allowed) allowed++
    }
    assert.strictEqual(allowed, 10)
    const [later] = take(config, 0.5, bucket, 400)
    assert.deepStrictEqual(later, { allowed: true }, "2 tokens in 400 ms at 5 a second")
  })

  it("Retry-After: at least 1 s, and at most 3 s on a small share (shares change every second)", () => {
    const [none] = take(config, 0.001, undefined, 0)
    assert.deepStrictEqual(none, { allowed: false, retryAfterSeconds: 3 })
    const [, empty] = take({ ratePerSecond: 1, burst: 1 }, 1, undefined, 0)
    assert.deepStrictEqual(take({ ratePerSecond: 1, burst: 1 }, 1, empty, 0)[0], {
      allowed: false,
      retryAfterSeconds: 1
    })
  })
})
