/** Step Functions execution names: valid, deterministic, distinct per generation, trigger and bucket. */
import { describe, expect, it } from 'vitest';
import { executionName, timeBucket } from '../../lambdas/handlers/execution-name.js';

const now = new Date('2026-11-29T12:00:00Z');

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
