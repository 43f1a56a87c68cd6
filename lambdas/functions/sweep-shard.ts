/**
 * Lambda entry: a sweep shard run, invoked asynchronously by the sweep dispatcher with a few
 * (account, region) shards. Its window is the sweep period less a margin, and never longer than the
 * invocation may run; its leases last as long as the invocation may, so a crashed run frees them.
 */
import { windowMs } from '../core/shard.js';
import { eksReader } from '../handlers/clients/eks-reader.js';
import { lazySfnExecutions } from '../handlers/clients/sfn-at-first-call.js';
import { dynamoShardLeases } from '../handlers/clients/shard-leases.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction, sweepSettings } from '../handlers/compose.js';
import type { ShardRunPayload } from '../handlers/contracts.js';
import { withLogContext } from '../handlers/telemetry.js';
import { fullObservePeriodFrom } from '../handlers/triggers/sweep-decide.js';
import { sweepShard } from '../handlers/triggers/sweep-shard.js';

composeFunction('sweepShard', {
  store: dynamoStore,
  provider: eksReader,
  executions: lazySfnExecutions,
  shardLeases: dynamoShardLeases,
});

const { periodSeconds, concurrency } = sweepSettings();
const fullObservePeriodSeconds = fullObservePeriodFrom(process.env);

export const handler = (event: ShardRunPayload, context: { getRemainingTimeInMillis(): number }) => {
  const remainingMs = context.getRemainingTimeInMillis();
  return withLogContext({ step: 'sweepShard' }, () =>
    sweepShard(event, {
      periodSeconds,
      concurrency,
      fullObservePeriodSeconds,
      windowMs: Math.min(windowMs(periodSeconds), windowMs(remainingMs / 1000)),
      leaseMs: remainingMs,
    }),
  );
};
