import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import { TransientError } from '../../lambdas/core/errors.js';
import { readCaughtError, toStepError } from '../../lambdas/handlers/envelope.js';
import { executionName, timeBucket } from '../../lambdas/handlers/execution-name.js';
import { log, logger, withLogContext } from '../../lambdas/handlers/telemetry.js';
import { TokenBucket } from '../../lambdas/handlers/token-bucket.js';
import { decideFromRecord, fleetGauges } from '../../lambdas/handlers/triggers/sweep.js';
import {
  buildDefinition,
  definitionString,
  STEP_FUNCTIONS,
  substitute,
} from '../../lambdas/statemachine/definition.js';
import { ConflictError } from '../../lambdas/store/errors.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { spec } from './support.js';

const now = new Date('2026-11-29T12:00:00Z');
const record = (over: Partial<ClusterRecord> = {}): ClusterRecord => ({
  id: 'team/x',
  spec: spec('x'),
  specHash: 'h',
  generation: 2,
  version: 2,
  createdAt: now.toISOString(),
  ...over,
});

describe('state machine definition', () => {
  const arns = Object.fromEntries(
    Object.keys(STEP_FUNCTIONS).map((k) => [k, `arn:aws:lambda:us-east-1:123456789012:function:${k}`]),
  ) as Parameters<typeof substitute>[1];

  it('is valid ASL once substituted', () => {
    const r = aslValidator(JSON.parse(substitute(definitionString(), arns)));
    expect(r.errorsText('\n')).toBe('');
    expect(r.isValid).toBe(true);
  });

  it('retries transient errors with backoff, a cap and full jitter, and catches everything on every Task', () => {
    const states = Object.entries(
      buildDefinition().States as Record<string, { Type: string; Retry?: unknown[]; Catch?: unknown[] }>,
    );
    const tasks = states.filter(([, s]) => s.Type === 'Task');
    expect(tasks.length).toBeGreaterThanOrEqual(8);
    for (const [name, s] of tasks) {
      expect(s.Retry, name).toContainEqual(
        expect.objectContaining({
          ErrorEquals: expect.arrayContaining(['TransientError']),
          BackoffRate: 2,
          MaxDelaySeconds: 60,
          JitterStrategy: 'FULL',
        }),
      );
      expect(s.Catch, name).toContainEqual(expect.objectContaining({ ErrorEquals: ['States.ALL'] }));
    }
  });

  it('refuses to leave a placeholder unsubstituted', () => {
    const partial = { ...arns } as Record<string, string>;
    delete partial.observe;
    expect(() => substitute(definitionString(), partial as typeof arns)).toThrow(
      /no function ARN for step observe/,
    );
  });
});

describe('error envelope', () => {
  it('carries kind, code and remediation across the Lambda boundary', () => {
    const step = toStepError(
      Object.assign(new Error('slow down'), {
        name: 'ThrottlingException',
        $metadata: { httpStatusCode: 429 },
      }),
    );
    expect(step.name).toBe('TransientError');
    // What Step Functions passes to the Catch state for a Lambda function error.
    const caught = {
      Error: step.name,
      Cause: JSON.stringify({ errorType: step.name, errorMessage: step.message }),
    };
    expect(readCaughtError(caught)).toMatchObject({
      kind: 'Transient',
      code: 'ThrottlingException',
      remediation: expect.stringMatching(/throttled/),
    });
  });

  it('treats a store conflict as transient and an unknown error as internal with a hint', () => {
    expect(toStepError(new ConflictError('version moved')).name).toBe('TransientError');
    expect(readCaughtError({ Error: 'TypeError', Cause: 'x is undefined' })).toMatchObject({
      kind: 'Internal',
      remediation: expect.any(String),
    });
    expect(readCaughtError({ Error: 'States.Timeout' }).kind).toBe('Transient');
  });

  it('passes an already classified error through', () => {
    const e = new TransientError('x', { remediation: 'r' });
    expect(toStepError(e).envelope.remediation).toBe('r');
  });
});

describe('execution names', () => {
  it('are valid, deterministic and distinct per generation, trigger and bucket', () => {
    const a = executionName('team/x', 3, 'change');
    expect(a).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
    expect(executionName('team/x', 3, 'change')).toBe(a);
    expect(
      new Set([
        a,
        executionName('team/x', 4, 'change'),
        executionName('team/x', 3, 'delete'),
        executionName('team/x', 3, 'sweep', '1'),
      ]).size,
    ).toBe(4);
    expect(
      executionName(`ns/${'n'.repeat(200)}`, 1, 'sweep', timeBucket(now, 300)).length,
    ).toBeLessThanOrEqual(80);
  });

  it('ids that differ only in punctuation still get different names', () => {
    expect(executionName('a/b-c', 1, 'change')).not.toBe(executionName('a-b/c', 1, 'change'));
  });
});

describe('sweep decisions from the record', () => {
  it('asks about live-looking leases, takes over dead ones, restarts stale and deleting records', () => {
    // A lease that has not expired is checked against its execution by the caller (it may have died).
    expect(
      decideFromRecord(record({ lease: { owner: 'e', expiresAt: now.getTime() + 1000 } }), now),
    ).toBeUndefined();
    expect(
      decideFromRecord(record({ lease: { owner: 'e', expiresAt: now.getTime() - 1 } }), now),
    ).toMatchObject({ start: true, why: 'dead execution (lease expired)' });
    expect(decideFromRecord(record(), now)).toMatchObject({ start: true, why: 'status is stale' });
    expect(decideFromRecord(record({ deletionRequestedAt: now.toISOString() }), now)).toMatchObject({
      start: true,
    });
  });

  it('holds a failing deletion off until its retry time, but not a deletion asked for after the failure', () => {
    const failedAt = new Date(now.getTime() - 60_000).toISOString();
    const failures = {
      generation: 2,
      count: 3,
      lastAt: failedAt,
      retryAt: new Date(now.getTime() + 60_000).toISOString(),
    };
    const earlier = new Date(now.getTime() - 120_000).toISOString();
    const deleting = (at: string) => record({ failures, deletionRequestedAt: at });
    expect(decideFromRecord(deleting(earlier), now)).toMatchObject({
      start: false,
      why: 'backing off after failures',
    });
    expect(decideFromRecord(deleting(earlier), new Date(now.getTime() + 60_001))).toMatchObject({
      start: true,
    });
    // Deleting a cluster that keeps failing must not wait out a backoff earned before the request.
    expect(decideFromRecord(deleting(now.toISOString()), now)).toMatchObject({
      start: true,
      why: 'deletion pending',
    });
  });

  it('takes over a lease that expires further ahead than any lease CloudOrch writes', () => {
    const forged = record({ lease: { owner: 'ghost', expiresAt: Date.parse('2100-01-01T00:00:00Z') } });
    expect(decideFromRecord(forged, now)).toMatchObject({ start: true });
  });
});

describe('sweep fleet gauges', () => {
  it('count clusters by Ready reason and age the oldest open drift per cluster', () => {
    const cond = (type: string, status: 'True' | 'False', reason: string, minutesAgo: number) => ({
      type: type as 'Ready',
      status,
      reason: reason as 'Reconciled',
      message: '',
      observedGeneration: 2,
      lastTransitionTime: new Date(now.getTime() - minutesAgo * 60_000).toISOString(),
    });
    const status = (...conditions: ReturnType<typeof cond>[]) =>
      ({
        conditions,
        observedGeneration: 2,
        ready: false,
        synced: false,
        updatedAt: now.toISOString(),
      }) as NonNullable<ClusterRecord['status']>;
    const g = fleetGauges(
      [
        record({
          status: status(cond('Ready', 'True', 'Reconciled', 60), cond('Drifted', 'False', 'NoDrift', 60)),
        }),
        record({
          status: status(
            cond('Ready', 'False', 'Progressing', 2),
            cond('Drifted', 'True', 'DriftDetected', 45),
          ),
        }),
        record({
          status: status(
            cond('Ready', 'False', 'Progressing', 1),
            cond('Drifted', 'True', 'DriftDetected', 3),
          ),
        }),
        record(),
      ],
      now,
    );
    expect(g.byCondition).toEqual({ Reconciled: 1, Progressing: 2, NoStatus: 1 });
    expect(g.maxDriftAgeSeconds).toBe(45 * 60);
  });
});

describe('token bucket', () => {
  it('never lets more than rate x time + burst tokens through', async () => {
    let t = 0;
    const bucket = new TokenBucket(
      10,
      3,
      () => t,
      async (ms) => {
        t += ms;
      },
    );
    for (let i = 0; i < 53; i++) await bucket.take(1);
    // 53 tokens: 3 from the burst, 50 at 10 per second.
    expect(t).toBe(5000);
  });

  it('refuses a request larger than the bucket', async () => {
    await expect(new TokenBucket(1, 2).take(3)).rejects.toThrow(RangeError);
  });
});

describe('log context', () => {
  it('gives each step its own logger, even when steps run side by side in one process', async () => {
    const seen: unknown[] = [];
    const step = (id: string) =>
      withLogContext({ step: 'observe', clusterId: id }, async () => {
        const mine = log();
        await new Promise((r) => setTimeout(r, 5));
        seen.push(mine);
        expect(log()).toBe(mine); // still the same logger after an await
        return mine;
      });
    const [a, b] = await Promise.all([step('a/x'), step('b/y')]);
    expect(a).not.toBe(b);
    expect(a).not.toBe(logger);
    expect(log()).toBe(logger);
    expect(seen).toHaveLength(2);
  });
});
