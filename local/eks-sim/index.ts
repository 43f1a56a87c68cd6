/** The EKS simulator: a development tool, never imported by lambdas/ code. */

export { ADDON_ISSUE_CODES, type AddonIssueCode } from './addon-state.js';
export type { CallCount, CallCounts, FaultSpec } from './admin.js';
export { type AddonHealthIssue, type SimAccount, SimAdminClient, SimAdminError } from './admin-client.js';
export { INSIGHT_STATUSES, type InsightInput } from './insights.js';
export { DEFAULT_CONFIG, DEFAULT_DURATIONS, type Durations, type SimConfig } from './model.js';
export { type EksSimulator, type StartOptions, startEksSimulator } from './server.js';
