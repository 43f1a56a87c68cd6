/**
 * Every client maker, for a process that hosts every function (`cloudorch dev`, the CLI). A Lambda
 * entry imports only the makers its capabilities name, never this module.
 */

import { cloudWatchAlarms } from './alarms.js';
import { eksProvider } from './eks-provider.js';
import { lambdaShardInvoker } from './lambda.js';
import { snsNotifier } from './notify.js';
import { wasmPolicy } from './policy.js';
import { dynamoRollouts } from './rollouts.js';
import { sfnCallbacks, sfnExecutions } from './sfn.js';
import { dynamoShardLeases } from './shard-leases.js';
import { dynamoStore } from './store.js';

export const ALL_MAKERS = {
  store: dynamoStore,
  provider: eksProvider,
  policy: wasmPolicy,
  executions: sfnExecutions,
  callbacks: sfnCallbacks,
  shardInvoker: lambdaShardInvoker,
  shardLeases: dynamoShardLeases,
  rollouts: dynamoRollouts,
  notifier: snsNotifier,
  alarms: cloudWatchAlarms,
} as const;
