/**
 * The Step Functions starter of the sweep shards, the drift-event function and the lease step loads
 * its client at the first call (most of their runs never call Step Functions), then behaves as the eager one, one client for all
 * calls. The bundle-load test checks that their cold load does not read the client.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateClusterCommand } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/config.js';
import { lazyEksReader } from '../../lambdas/handlers/clients/eks-at-first-call.js';
import { lazySfnExecutions } from '../../lambdas/handlers/clients/sfn-at-first-call.js';
import type { Wiring } from '../../lambdas/handlers/compose.js';
import { REGION, ROLE, useSimulator } from '../eks-sim/support.js';

const targets: string[] = [];
const server = createServer((req: IncomingMessage, res) => {
  targets.push(String(req.headers['x-amz-target']));
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    res.end(
      req.headers['x-amz-target'] === 'AWSStepFunctions.StartExecution'
        ? JSON.stringify({
            executionArn: 'arn:aws:states:us-east-1:123456789012:execution:sm:n',
            startDate: 1,
          })
        : JSON.stringify({ status: 'SUCCEEDED', startDate: 1 }),
    );
  });
});
beforeAll(() => new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r())));
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A wiring with local endpoints (`over` for the one a test serves) that records the clients it owns. */
function wiring(env: Wiring['env'], over: { eks?: string; sfn?: string }) {
  const owned: { destroy(): void }[] = [];
  const w: Wiring = {
    env,
    endpoints: {
      region: REGION,
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      dynamodb: 'http://127.0.0.1:1',
      eks: over.eks ?? 'http://127.0.0.1:1',
      sfn: over.sfn ?? 'http://127.0.0.1:1',
    },
    own: (c) => {
      owned.push(c);
      return c;
    },
  };
  return { w, owned };
}

describe('lazySfnExecutions', () => {
  it('calls nothing until used, then starts and asks through one client', async () => {
    const { w, owned } = wiring(
      { [ENV.stateMachine]: 'arn:aws:states:us-east-1:123456789012:stateMachine:sm' },
      { sfn: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    );
    const executions = lazySfnExecutions(w);
    expect(owned).toHaveLength(0);
    const [started, status] = await Promise.all([
      executions.start('n', { id: 'team/a', trigger: 'sweep' }),
      executions.status('arn:aws:states:us-east-1:123456789012:execution:sm:m'),
    ]);
    expect(started).toEqual({
      started: true,
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:sm:n',
    });
    expect(status).toEqual({ state: 'ended', detail: 'SUCCEEDED' });
    expect(targets.sort()).toEqual(['AWSStepFunctions.DescribeExecution', 'AWSStepFunctions.StartExecution']);
    expect(owned).toHaveLength(1);
    for (const c of owned) c.destroy();
  });
});

describe('lazyEksReader', () => {
  const h = useSimulator({ seed: 3 });
  it('builds nothing until used, then observes through one provider', async () => {
    await h.eks.send(
      new CreateClusterCommand({
        name: 'lazy',
        roleArn: ROLE,
        resourcesVpcConfig: { subnetIds: ['subnet-0123abcd', 'subnet-0123abce'] },
      }),
    );
    const { w, owned } = wiring({}, { eks: h.sim.url });
    const provider = lazyEksReader(w);
    expect(owned).toHaveLength(0);
    const [a, b] = await Promise.all([
      provider.observe({ clusterName: 'lazy', region: REGION }),
      provider.observe({ clusterName: 'absent', region: REGION }),
    ]);
    expect(a.cluster?.name).toBe('lazy');
    expect(b.cluster).toBeNull();
    expect(owned).toHaveLength(1);
    for (const c of owned) c.destroy();
  });
});
