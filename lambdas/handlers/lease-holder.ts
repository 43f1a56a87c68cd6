/**
 * Whether the execution a lease names has ended: one rule for the lease step's take-over, the sweep
 * and `cloudorch reconcile`. A lease that names no execution, or whose execution's state cannot be
 * read, counts as held: only a definite "ended" frees a live lease before it expires.
 */
import type { ExecutionStarter, ExecutionStatus } from './deps.js';

export type HolderCheck =
  | { readonly ended: true; readonly detail?: string }
  /** `status` is absent when the lease names no execution. */
  | { readonly ended: false; readonly status?: ExecutionStatus };

export async function checkHolder(
  executions: Pick<ExecutionStarter, 'status'>,
  executionArn: string | undefined,
): Promise<HolderCheck> {
  if (!executionArn) return { ended: false };
  const status = await executions.status(executionArn);
  if (status.state === 'ended') return { ended: true, ...(status.detail ? { detail: status.detail } : {}) };
  return { ended: false, status };
}
