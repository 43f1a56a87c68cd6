/**
 * Errors through the real SDK: each EKS error code, as the wire carries it, leaves the provider as the
 * right core class; retryable ones are retried within the budget and no further; a server that fails
 * or answers without data makes every provider method throw.
 */
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CloudOrchError,
  classifyAwsError,
  NotFoundError,
  PermanentError,
  TransientError,
} from '../../lambdas/core/errors.js';
import type { MutatingOperation } from '../../lambdas/core/plan/types.js';
import type { EksProvider } from '../../lambdas/provider/eks-provider.js';
import { EKS_RETRY_BUDGET } from '../../lambdas/provider/retry.js';
import { MalformedResponseError } from '../../lambdas/provider/to-observation.js';
import {
  clusterVersionOp,
  createClusterOp,
  createNodegroupOp,
  nodegroupVersionOp,
  ref,
  scalingOp,
} from './support/fixtures.js';
import { eksError, type ScriptedServer, startScriptedServer } from './support/scripted-server.js';
import { providerFor, REGION, TEST_CREDENTIALS } from './support/servers.js';

const ACCOUNT = '000000000000';
const base = { clusterName: ref.clusterName, region: REGION };
const ARN = `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${ref.clusterName}`;

/** Every operation kind the planner can produce. */
const ALL_OPS: readonly MutatingOperation[] = [
  createClusterOp(ACCOUNT),
  createNodegroupOp(ACCOUNT),
  clusterVersionOp('1.30', '1.31'),
  nodegroupVersionOp('1.30', '1.31'),
  scalingOp(3),
  { kind: 'TagResource', ...base, resourceArn: ARN, tags: { a: 'b' } },
  { kind: 'UntagResource', ...base, resourceArn: ARN, tagKeys: ['a'] },
  { kind: 'DeleteNodegroup', ...base, nodegroupName: 'ng', reason: 'pool-removed' },
  { kind: 'DeleteCluster', ...base },
];

// Code, HTTP status (docs/eks-api.md §8), the class it must become, and why the case exists.
const CASES = [
  ['ResourceNotFoundException', 404, NotFoundError, 'the resource is gone: a fact, not a failure'],
  ['NotFoundException', 404, NotFoundError, 'the tag APIs spell not-found differently'],
  [
    'ResourceInUseException',
    409,
    TransientError,
    'busy (update in progress, node groups attached): wait and retry',
  ],
  ['InvalidRequestException', 400, TransientError, 'refused in the current state: re-observe and retry'],
  ['ThrottlingException', 429, TransientError, 'modelled throttling'],
  [
    'TooManyRequestsException',
    429,
    TransientError,
    'unmodelled throttling DescribeCluster returns at fleet scale',
  ],
  ['ServerException', 500, TransientError, 'server fault'],
  ['ServiceUnavailableException', 503, TransientError, 'back off and retry'],
  ['ResourcePropagationDelayException', 428, TransientError, 'still propagating'],
  ['InvalidParameterException', 400, PermanentError, 'needs a spec change'],
  ['InvalidStateException', 400, PermanentError, 'upgrade insights block the upgrade'],
  ['ResourceLimitExceededException', 400, PermanentError, 'quota'],
  ['UnsupportedAvailabilityZoneException', 400, PermanentError, 'subnet AZ not supported'],
  ['ClientException', 400, PermanentError, 'client-side fault, often permissions'],
  ['AccessDeniedException', 403, PermanentError, 'IAM must change'],
  ['BadRequestException', 400, PermanentError, 'tag request rejected'],
] as const;

/** Codes the SDK itself retries (throttling and 5xx); everything else is sent exactly once. */
const SDK_RETRIED = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'ServerException',
  'ServiceUnavailableException',
]);

describe('EKS error codes through the SDK', () => {
  let server: ScriptedServer;
  let provider: EksProvider;
  beforeAll(async () => {
    server = await startScriptedServer({ status: 200, body: {} });
    provider = providerFor(server.url);
  });
  afterAll(async () => {
    provider.clients.destroy();
    await server.close();
  });

  it.each(CASES)('%s (HTTP %i) becomes %O: %s', async (code, status, cls) => {
    server.answer = eksError(status, code);
    server.requests = 0;
    const err = await provider.apply({ kind: 'DeleteCluster', ...base }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(cls);
    expect((err as CloudOrchError).code).toBe(code);
    expect((err as CloudOrchError).remediation.length).toBeGreaterThan(0);
    // Retries are the SDK's job for throttling and 5xx, bounded by the budget; never for 4xx.
    expect(server.requests).toBe(SDK_RETRIED.has(code) ? EKS_RETRY_BUDGET.maxAttempts : 1);
  });

  it('a not-found wrapped in another error is still NotFoundError', async () => {
    server.answer = eksError(404, 'ResourceNotFoundException', 'No cluster found for name: x.');
    const raw = new EKSClient({
      endpoint: server.url,
      region: REGION,
      credentials: TEST_CREDENTIALS,
      maxAttempts: 1,
    });
    const sdkError = await raw.send(new DescribeClusterCommand({ name: 'x' })).catch((e: unknown) => e);
    raw.destroy();
    expect((sdkError as Error).name).toBe('ResourceNotFoundException');
    const wrapped = new Error('step failed', { cause: new Error('observe failed', { cause: sdkError }) });
    const c = classifyAwsError(wrapped);
    expect(c).toBeInstanceOf(NotFoundError);
    expect(c.code).toBe('ResourceNotFoundException');
  });

  it('observe maps a not-found cluster to null, but any other DescribeCluster error throws', async () => {
    server.answer = eksError(404, 'ResourceNotFoundException');
    expect((await provider.observe(ref)).cluster).toBeNull();
    server.answer = eksError(403, 'AccessDeniedException');
    await expect(provider.observe(ref)).rejects.toBeInstanceOf(PermanentError);
  });
});

describe('against a server that fails every call, every provider method throws', () => {
  let server: ScriptedServer;
  let provider: EksProvider;
  beforeAll(async () => {
    server = await startScriptedServer(eksError(500, 'ServerException'));
    provider = providerFor(server.url);
  });
  afterAll(async () => {
    provider.clients.destroy();
    await server.close();
  });

  const failures = [
    eksError(500, 'ServerException'),
    eksError(403, 'AccessDeniedException'),
    eksError(502, 'BadGateway'),
  ];

  it.each(failures.map((a) => [a.errorType, a] as const))(
    'observe, with and without tracked updates (%s)',
    async (_, answer) => {
      server.answer = answer;
      await expect(provider.observe(ref)).rejects.toBeInstanceOf(CloudOrchError);
      await expect(provider.observe(ref, { trackedUpdates: [{ id: 'u-1' }] })).rejects.toBeInstanceOf(
        CloudOrchError,
      );
    },
  );

  it.each(ALL_OPS.map((op) => [op.kind, op] as const))('apply %s', async (_, op) => {
    for (const answer of failures) {
      server.answer = answer;
      await expect(provider.apply(op)).rejects.toBeInstanceOf(CloudOrchError);
    }
  });

  it('a 200 without the resource is MalformedResponseError, never a made-up value', async () => {
    server.answer = { status: 200, body: {} };
    await expect(provider.observe(ref)).rejects.toBeInstanceOf(MalformedResponseError);
    for (const op of ALL_OPS.slice(0, 5))
      await expect(provider.apply(op)).rejects.toBeInstanceOf(MalformedResponseError);
    // Tag and delete responses carry nothing CloudOrch reads: `{}` is a complete answer for them.
    for (const op of ALL_OPS.slice(5)) expect(await provider.apply(op)).toEqual({ kind: op.kind });
  });
});
