/**
 * @ratelock/http: the Partner API definition (importable without server code) and its server,
 * and the operator API's (status, market data, metrics), served on a listener of its own.
 */
export * as Api from "./api/Api.ts"
export * as ApiErrors from "./api/Errors.ts"
export * as Groups from "./api/Groups.ts"
export * as Sandbox from "./api/Sandbox.ts"
export * as Security from "./api/Security.ts"
export * as Validation from "./api/Validation.ts"
export * as OperatorApi from "./api/OperatorApi.ts"
export * as OperatorSecurity from "./api/OperatorSecurity.ts"

// The server: `Server.layer` serves every route; the rest are its settings and ports.
export * as BodyLimit from "./server/BodyLimit.ts"
export * as ChainAvailability from "./server/ChainAvailability.ts"
export * as RateLimiter from "./server/RateLimiter.ts"
export * as RateLimitShares from "./server/RateLimitShares.ts"
export * as Readiness from "./server/Readiness.ts"
export * as Server from "./server/Server.ts"
export * as WebApp from "./server/WebApp.ts"

// The lifecycle workers: their loops and what their programs run on.
export * as Workers from "./Workers.ts"

// The operator listener: its server, what it reports of this process, and the host's metrics.
export * as Metrics from "./Metrics.ts"
export * as OperatorInfo from "./operator/OperatorInfo.ts"
export * as OperatorServer from "./operator/Server.ts"
