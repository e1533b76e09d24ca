/** This release of the service: the CLI's `--version`, and the `service.version` of its telemetry. */
export const version = "0.1.0"
