/** One rule for "has the execution a lease names ended", shared by the lease step, the sweep and reconcile. */
import { describe, expect, it } from 'vitest';
import type { ExecutionStatus } from '../../lambdas/handlers/deps.js';
import { checkHolder } from '../../lambdas/handlers/lease-holder.js';

function executions(status: ExecutionStatus) {
  const asked: string[] = [];
  return {
    asked,
    status: async (arn: string) => {
      asked.push(arn);
      return status;
    },
  };
}

describe('checkHolder', () => {
  it('only a definite "ended" frees the lease, with its detail', async () => {
    expect(await checkHolder(executions({ state: 'ended', detail: 'ABORTED' }), 'arn:e')).toEqual({
      ended: true,
      detail: 'ABORTED',
    });
    const running: ExecutionStatus = { state: 'running', startedAt: '2026-01-01T00:00:00.000Z' };
    expect(await checkHolder(executions(running), 'arn:e')).toEqual({ ended: false, status: running });
    const unknown: ExecutionStatus = { state: 'unknown', detail: 'AccessDenied' };
    expect(await checkHolder(executions(unknown), 'arn:e')).toEqual({ ended: false, status: unknown });
  });

  it('a lease that names no execution counts as held, without asking', async () => {
    const ex = executions({ state: 'ended' });
    expect(await checkHolder(ex, undefined)).toEqual({ ended: false });
    expect(ex.asked).toEqual([]);
  });
});
