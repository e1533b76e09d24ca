export * as Probe from "./Probe.ts"
