/**
 * What the crash tests do to a cluster's workers: every 1–2 s one of them, at random, is SIGKILLed
 * and another started in its place at once, until `stop`. A failure to start one ends the killing;
 * `stop` answers it.
 */
import type { Child, Cluster } from "../processes.ts"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface WorkerKiller {
  /** SIGKILLs so far. */
  readonly kills: () => number
  /** Whether the killing ended by itself (a worker failed to start). */
  readonly ended: () => boolean
  /** Stops the killing; resolves with the failure that ended it, if any. */
  readonly stop: () => Promise<unknown>
}

export const killWorkers = (cluster: Cluster, pool: Array<Child>, leaseMs: number): WorkerKiller => {
  let kills = 0
  let killing = true
  let ended = false
  const loop = (async () => {
    while (killing) {
      await sleep(1_000 + Math.random() * 1_000)
      const i = Math.floor(Math.random() * pool.length)
      await cluster.kill(pool[i]!)
      kills++
      pool[i] = await cluster.startWorker(`worker-${kills}`, { leaseMs })
    }
  })().then(
    () => undefined,
    (error: unknown) => error
  )
  void loop.then(() => (ended = true))
  return {
    kills: () => kills,
    ended: () => ended,
    stop: () => {
      killing = false
      return loop
    }
  }
}
