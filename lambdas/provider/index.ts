/** The EKS provider: implements the core's ClusterProvider on `@aws-sdk/client-eks`. */
export { type EksClientOptions, EksClients, ENDPOINT_ENV, HTTP_TIMEOUTS } from './clients.js';
export { DEFAULTS_ENV, defaultsFromEnv } from './defaults.js';
export { EksProvider, type EksProviderOptions, OBSERVE_LIMITS, observeCallBound } from './eks-provider.js';
export { amiTypeFor, ProviderRefusedError } from './ops.js';
export { budgetedRetryStrategy, EKS_RETRY_BUDGET, type RetryBudget, worstCaseBackoffMs } from './retry.js';
export { MalformedResponseError } from './to-observation.js';
