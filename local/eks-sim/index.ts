/** The EKS simulator: a development tool, never imported by lambdas/ code. */
export type { CallCount, CallCounts, FaultSpec } from './admin.js';
export { SimAdminClient } from './admin-client.js';
export { DEFAULT_CONFIG, DEFAULT_DURATIONS, type Durations, type SimConfig } from './model.js';
export { type EksSimulator, type StartOptions, startEksSimulator } from './server.js';
