/** This release of Ratelock: the CLI's `--version`, the operator status's `versions.ratelock` and the `service.version` of its telemetry. */
export const version = "0.1.0"
