/** This release of Ratelock: the CLI's `--version` and the operator status's `versions.ratelock`. */
export const version = "0.1.0"
