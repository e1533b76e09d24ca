/**
 * The benchmarks' reference price for a window option: a plain CRR tree of 10,000 steps with the production
 * window rule (`Pricing.windowLattice`), against which engines' errors are reported in basis points of notional,
 * `|v − v_ref| / spot × 10⁴`. About 0.1 s a price: long runs print their progress.
 */
import { windowLattice, type WindowOptionInput } from "../src/pricing/Pricing.ts"

export const referenceSteps = 10_000

export const referencePrice = (input: WindowOptionInput): number =>
  windowLattice({ ...input, steps: referenceSteps, method: "crr" })

/** The reference price of every input, with progress on long runs. */
export const referenceValues = (inputs: ReadonlyArray<WindowOptionInput>): ReadonlyArray<number> => {
  const refStart = performance.now()
  const values = inputs.map((c, i) => {
    if (i % 50 === 0) {
      const line = `  reference ${i}/${inputs.length} (${((performance.now() - refStart) / 1000).toFixed(1)} s)`
      if (process.stdout.isTTY) process.stdout.write(`${line}\r`)
      else console.log(line)
    }
    return referencePrice(c)
  })
  console.log(
    `  reference ${inputs.length}/${inputs.length} in ${((performance.now() - refStart) / 1000).toFixed(1)} s`
  )
  return values
}

/** An error in basis points of notional: `|value − reference| / spot × 10⁴`. */
export const errorBp = (value: number, reference: number, spot: number): number =>
  (Math.abs(value - reference) / spot) * 1e4
