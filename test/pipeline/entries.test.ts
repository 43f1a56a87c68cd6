/**
 * The Lambda entries as Lambda loads them: each composes, from the environment, exactly the clients
 * its catalog capabilities name (the pure steps none at all), and the handlers read only their own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
import { depsOf } from '../../lambdas/handlers/deps.js';
import type { DesiredStateStore } from '../../lambdas/store/types.js';
import { spec } from './support.js';

process.env.CLOUDORCH_TABLE_NAME = 'cloudorch-entries-test';
process.env.CLOUDORCH_DEFAULT_CLUSTER_ROLE_ARN = 'arn:aws:iam::123456789012:role/c';
process.env.CLOUDORCH_DEFAULT_SUBNET_IDS = 'subnet-0a000001,subnet-0b000002';
process.env.CLOUDORCH_SWEEP_SHARD_FUNCTION = 'cloudorch-sweep-shard';
process.env.CLOUDORCH_LAMBDA_ENDPOINT = 'https://lambda.us-east-1.amazonaws.com';
process.env.AWS_REGION ??= 'us-east-1';
process.env.CLOUDORCH_COORDINATION_TABLE = 'cloudorch-coordination-test';
process.env.CLOUDORCH_ROLLOUT_TABLE = 'cloudorch-rollouts-test';
process.env.CLOUDORCH_ROLLOUT_TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:cloudorch-rollouts';

/** Written out by hand, not derived from the catalog: a client that creeps into an entry fails here. */
const CLIENTS: Record<FunctionKey, string[]> = {
  lease: ['store', 'executions'],
  observe: ['store', 'provider'],
  plan: [],
  policy: ['policy'],
  apply: ['store', 'provider'],
  writeStatus: ['store'],
  classifyError: [],
  onChange: ['executions', 'callbacks'],
  sweep: ['store', 'shardInvoker'],
  sweepShard: ['store', 'provider', 'executions', 'shardLeases'],
  driftEvent: ['store', 'provider', 'executions'],
  reconcileNow: ['store', 'executions'],
  rolloutPlan: ['store', 'rollouts'],
  rolloutApply: ['store', 'rollouts'],
  rolloutWatch: ['store', 'rollouts', 'alarms'],
  rolloutReport: ['rollouts', 'notifier'],
};

const entry = (key: FunctionKey) => `../../lambdas/functions/${FUNCTIONS[key].entry.replace(/\.ts$/, '.js')}`;
const handlerOf = async (key: FunctionKey) =>
  ((await import(entry(key))) as { handler: (e: unknown) => Promise<unknown> }).handler;

describe('Lambda entries', () => {
  it('plan answers from the state and the environment only', async () => {
    const s = spec('pure');
    const out = (await (
      await handlerOf('plan')
    )({
      id: 'team/pure',
      trigger: 'change',
      owner: 'exec',
      loop: 0,
      observed: {
        generation: 1,
        deletionRequested: false,
        spec: s,
        observation: { cluster: null, nodegroups: [], observedAt: '' },
        trackedUpdates: [],
        deletionCalls: 0,
        applied: {},
      },
    })) as { action: string; next?: { kind: string; roleArn?: string } };
    expect(out.action).toBe('apply');
    expect(out.next).toMatchObject({ kind: 'CreateCluster', roleArn: 'arn:aws:iam::123456789012:role/c' });
  });

  it('classify-error answers from the caught error alone', async () => {
    const f = (await (
      await handlerOf('classifyError')
    )({
      id: 'x',
      trigger: 'sweep',
      owner: 'e',
      loop: 0,
      error: { Error: 'States.Timeout' },
    })) as { kind: string };
    expect(f.kind).toBe('Transient');
  });

  it.each(Object.keys(FUNCTIONS) as FunctionKey[])('%s composes exactly its clients', async (key) => {
    await import(entry(key));
    const clients = Object.keys(depsOf(key)).filter((k) => k !== 'now' && k !== 'config');
    expect(clients.sort()).toEqual([...CLIENTS[key]].sort());
  });

  it('the types say it: the pure step has no client, observe has a store', () => {
    expectTypeOf(depsOf('observe').store).toEqualTypeOf<DesiredStateStore>();
    expectTypeOf(depsOf('plan')).not.toHaveProperty('store');
    expectTypeOf(depsOf('plan')).not.toHaveProperty('provider');
    expectTypeOf(depsOf('policy')).not.toHaveProperty('store');
    expectTypeOf(depsOf('policy')).toHaveProperty('policy');
  });

  it("handlers read their own function's deps, never the whole set", () => {
    const dir = join(import.meta.dirname, '../../lambdas/handlers');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const offenders = files.filter(
      (f) => f !== 'deps.ts' && /\bdeps\(\)/.test(readFileSync(join(dir, f), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
