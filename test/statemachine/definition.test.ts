/** The state machine definition: valid ASL once substituted, retries and catches on every Task. */
import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import {
  buildDefinition,
  definitionString,
  STEP_FUNCTIONS,
  substitute,
} from '../../lambdas/statemachine/definition.js';

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
