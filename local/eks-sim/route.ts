/** One REST-JSON route of the simulator: method, path pattern (`:name` segments are parameters), EKS operation, handler. */
import type { Handler } from './request.js';

export type Route = readonly [method: string, pattern: readonly string[], op: string, handler: Handler];

/** A cluster's path, the prefix of every per-cluster route. */
export const CLUSTER_PATH = ['clusters', ':name'] as const;
