/**
 * The pure steps' Lambda entries run with configuration alone: no store, no EKS client, no policy
 * engine is constructed, and any use of one fails loudly instead of being faked.
 */
import { describe, expect, it } from 'vitest';
import { handler as classifyHandler } from '../../lambdas/functions/classify-error.js';
import { handler as planHandler } from '../../lambdas/functions/plan.js';
import { deps } from '../../lambdas/handlers/deps.js';
import { spec } from './support.js';

describe('pure step entries', () => {
  it('plan answers from the state and the environment only', async () => {
    process.env.CLOUDORCH_DEFAULT_CLUSTER_ROLE_ARN = 'arn:aws:iam::123456789012:role/c';
    process.env.CLOUDORCH_DEFAULT_SUBNET_IDS = 'subnet-0a000001,subnet-0b000002';
    const s = spec('pure');
    const out = (await planHandler({
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
    const f = (await classifyHandler({
      id: 'x',
      trigger: 'sweep',
      owner: 'e',
      loop: 0,
      error: { Error: 'States.Timeout' },
    })) as { kind: string };
    expect(f.kind).toBe('Transient');
  });

  it('has no clients: using one is an error that says why', () => {
    expect(() => deps().store.get('x')).toThrow(/step has no store: it is pure by design/);
    expect(() => deps().provider.observe({ clusterName: 'x', region: 'us-east-1' })).toThrow(
      /has no EKS provider/,
    );
  });
});
