/**
 * CPU time per component of a multi-process run, from `/proc` (Linux): named child processes,
 * every PostgreSQL server process together, and this process. Take a sample before and after a
 * measured window; `spent` is the CPU seconds each used in between.
 */
import { readdirSync, readFileSync } from "node:fs"

/** Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`, 100 on Linux). */
const ticks = 100

/** The CPU seconds a process has used so far (0 once it is gone). */
export const cpuOf = (pid: number | string): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / ticks
  } catch {
    return 0
  }
}

const postgres = (): number => {
  let total = 0
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres") total += cpuOf(pid)
    } catch {
      // gone meanwhile
    }
  }
  return total
}

export type Sample = ReadonlyMap<string, number>

export const sample = (processes: ReadonlyMap<string, number | undefined>): Sample => {
  const out = new Map<string, number>()
  for (const [name, pid] of processes) out.set(name, pid === undefined ? 0 : cpuOf(pid))
  out.set("postgres (all backends)", postgres())
  const self = process.cpuUsage()
  out.set("bench driver + receiver", (self.user + self.system) / 1e6)
  return out
}

/** CPU seconds per component between two samples. */
export const spent = (before: Sample, after: Sample): ReadonlyMap<string, number> =>
  new Map([...after].map(([name, s]) => [name, s - (before.get(name) ?? 0)]))
