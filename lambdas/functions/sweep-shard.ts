/**
 * Lambda entry: a sweep shard run, invoked asynchronously by the sweep dispatcher with a few
 * (account, region) shards. Its window is the sweep period less a margin, and never longer than the
 * invocation may run; its leases last as long as the invocation may, so a crashed run frees them.
 */
import { ENV, SETTING_DEFAULTS } from '../config.js';
import { windowMs } from '../core/shard.js';
import { eksProvider } from '../handlers/clients/eks.js';
import { sfnExecutions } from '../handlers/clients/sfn.js';
import { dynamoShardLeases } from '../handlers/clients/shard-leases.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction, envNumber } from '../handlers/compose.js';
import type { ShardRunPayload } from '../handlers/contracts.js';
import { withLogContext } from '../handlers/telemetry.js';
import { sweepShard } from '../handlers/triggers/sweep-shard.js';

composeFunction('sweepShard', {
  store: dynamoStore,
  provider: eksProvider,
  executions: sfnExecutions,
  shardLeases: dynamoShardLeases,
});

const periodSeconds = envNumber(process.env, ENV.sweepPeriod) ?? SETTING_DEFAULTS.sweepPeriodSeconds;
const concurrency = envNumber(process.env, ENV.sweepConcurrency) ?? SETTING_DEFAULTS.sweepConcurrency;

export const handler = (event: ShardRunPayload, context: { getRemainingTimeInMillis(): number }) => {
  const remainingMs = context.getRemainingTimeInMillis();
  return withLogContext({ step: 'sweepShard' }, () =>
    sweepShard(event, {
      periodSeconds,
      concurrency,
      windowMs: Math.min(windowMs(periodSeconds), windowMs(remainingMs / 1000)),
      leaseMs: remainingMs,
    }),
  );
};
