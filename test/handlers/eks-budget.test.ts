/**
 * The EKS maker's wiring: with a coordination table and a rate, every EKS attempt takes a slot of the
 * (account, region)'s shared budget from that table, sized by the composed function; without a
 * table, the per-process limiter stays; EksThrottled names the account and the region.
 */
import { type DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV, METRIC } from '../../lambdas/config.js';
import { PermanentError } from '../../lambdas/core/errors.js';
import { budgetKey, slotSpacingMs } from '../../lambdas/core/rate-slots.js';
import type { FunctionKey } from '../../lambdas/functions/catalog.js';
import { eksProvider } from '../../lambdas/handlers/clients/eks-provider.js';
import { compose, type Endpoints } from '../../lambdas/handlers/compose.js';
import { toStepError } from '../../lambdas/handlers/envelope.js';
import { addMetricSink, type MetricPoint } from '../../lambdas/handlers/telemetry.js';
import { EksBudgetExhaustedError } from '../../lambdas/store/errors.js';
import { createTable } from '../../local/store/table.js';
import { useSimulator } from '../eks-sim/support.js';
import { type DynamoServer, dynamoClient, startDynalite } from '../store/servers.js';

const TABLE = 'coordination';
const OWN = '444444444444';
let server: DynamoServer;
let ddb: DynamoDBClient;

beforeAll(async () => {
  server = await startDynalite();
  ddb = dynamoClient(server);
  await createTable(ddb, TABLE, { stream: false });
});
afterAll(async () => {
  ddb.destroy();
  await server.stop();
});

describe('eksProvider with a coordination table', () => {
  const h = useSimulator({ seed: 7 }, { reset: false });
  const endpoints = (): Endpoints => ({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    dynamodb: server.endpoint,
    eks: h.sim.url,
    sfn: 'http://127.0.0.1:1',
    eksRetry: { baseDelayMs: 1, throttlingBaseDelayMs: 1, maxDelayMs: 5 },
  });
  const compose1 = (env: Record<string, string>, functionKey?: FunctionKey) =>
    compose(
      { provider: eksProvider },
      { env, endpoints: endpoints(), ...(functionKey ? { functionKey } : {}) },
    );

  async function nextMs(account: string, region: string): Promise<number | undefined> {
    const got = await ddb.send(
      new GetItemCommand({
        TableName: TABLE,
        Key: { id: { S: budgetKey(account, region) } },
        ConsistentRead: true,
      }),
    );
    const n = got.Item?.['nextMs']?.N;
    return n === undefined ? undefined : Number(n);
  }

  it('claims slots of the own account and region, k at a time by function', async () => {
    const env = { [ENV.eksCallsPerSecond]: '5', [ENV.coordinationTable]: TABLE, [ENV.ownAccountId]: OWN };
    const before = Date.now();
    const sweep = compose1(env, 'sweep');
    await sweep.deps.provider.observe({ clusterName: 'absent', region: 'eu-north-1' });
    sweep.close();
    // One observe of a missing cluster is one attempt: the sweep claimed 4R slots for it.
    const next = await nextMs(OWN, 'eu-north-1');
    expect(next).toBeGreaterThanOrEqual(before + 20 * slotSpacingMs(5));
    expect(next).toBeLessThan(Date.now() + 20 * slotSpacingMs(5));

    const observe = compose1(env, 'observe');
    await observe.deps.provider.observe({ clusterName: 'absent', region: 'eu-south-1' });
    observe.close();
    expect(await nextMs(OWN, 'eu-south-1')).toBeLessThan(Date.now() + 4 * slotSpacingMs(5));
  });

  it('names the account `own` when the stack does not say its id, and takes no slot without a rate', async () => {
    const own = compose1({ [ENV.eksCallsPerSecond]: '5', [ENV.coordinationTable]: TABLE });
    await own.deps.provider.observe({ clusterName: 'absent', region: 'ap-east-1' });
    own.close();
    expect(await nextMs('own', 'ap-east-1')).toBeDefined();

    const unlimited = compose1({ [ENV.coordinationTable]: TABLE, [ENV.ownAccountId]: OWN });
    await unlimited.deps.provider.observe({ clusterName: 'absent', region: 'ap-south-2' });
    unlimited.close();
    expect(await nextMs(OWN, 'ap-south-2')).toBeUndefined();
  });

  it('keeps the per-process limiter without a table, and reports throttles per account and region', async () => {
    const points: MetricPoint[] = [];
    const remove = addMetricSink((p) => points.push(p));
    await h.admin.setFaults({ '*': { throttleFraction: 0.5 } });
    try {
      const c = compose1({ [ENV.eksCallsPerSecond]: '50', [ENV.ownAccountId]: OWN });
      for (let i = 0; i < 6; i++)
        await c.deps.provider.observe({ clusterName: `absent-${i}`, region: 'sa-east-1' });
      c.close();
    } finally {
      await h.admin.setFaults({});
      remove();
    }
    expect(await nextMs(OWN, 'sa-east-1')).toBeUndefined();
    const throttled = points.filter((p) => p.name === METRIC.EksThrottled);
    expect(throttled.length).toBeGreaterThan(0);
    for (const p of throttled) expect(p.dimensions).toEqual({ Account: OWN, Region: 'sa-east-1' });
  });

  it('fails an EKS call retryably when the queue reaches past the function horizon', async () => {
    const points: MetricPoint[] = [];
    const remove = addMetricSink((p) => points.push(p));
    await ddb.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: { id: { S: budgetKey(OWN, 'me-south-1') }, nextMs: { N: String(Date.now() + 60_000) } },
      }),
    );
    const env = { [ENV.eksCallsPerSecond]: '5', [ENV.coordinationTable]: TABLE, [ENV.ownAccountId]: OWN };
    const sweep = compose1(env, 'sweep');
    const failed = await sweep.deps.provider
      .observe({ clusterName: 'absent', region: 'me-south-1' })
      .catch((e: unknown) => e);
    sweep.close();
    remove();
    expect(failed).toBeInstanceOf(EksBudgetExhaustedError);
    // It leaves a step as TransientError, which the state machine retries as it does a throttle.
    expect(toStepError(failed).name).toBe('TransientError');
    expect(points.filter((p) => p.name === METRIC.EksBudgetExhausted).map((p) => p.dimensions)).toEqual([
      { Account: OWN, Region: 'me-south-1' },
    ]);
  });

  it('refuses a rate below one per second by name', () => {
    expect(() => compose1({ [ENV.eksCallsPerSecond]: '0.5', [ENV.coordinationTable]: TABLE })).toThrow(
      PermanentError,
    );
  });
});
