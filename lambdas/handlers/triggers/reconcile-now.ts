/**
 * "Reconcile now" for one cluster (CLI `cloudorch reconcile`). It says what it did: started an
 * execution, or found one already running (and since when). A lease whose execution has ended does
 * not count as running: the started execution takes it over.
 */
import { TransientError } from '../../core/errors.js';
import { RecordInvalidError, RecordNotFoundError } from '../../store/errors.js';
import { leaseView } from '../../store/lease.js';
import type { DesiredStateStore } from '../../store/types.js';
import { DEFAULT_CONFIG, depsOf, type ExecutionStarter } from '../deps.js';
import { executionName } from '../execution-name.js';
import { checkHolder } from '../lease-holder.js';
import { emit, METRIC } from '../telemetry.js';

export type ReconcileNowResult =
  | { readonly started: true; readonly name: string; readonly executionArn?: string }
  /** Nothing started: an execution holds the lease and runs (`running`), or cannot be checked. */
  | {
      readonly started: false;
      readonly holder: string;
      readonly running: boolean;
      readonly since?: string;
      readonly until: string;
      readonly detail?: string;
    };

export async function reconcileWith(
  store: Pick<DesiredStateStore, 'inspect'>,
  executions: ExecutionStarter,
  id: string,
  now: Date,
  leaseTtlMs: number = DEFAULT_CONFIG.leaseTtlMs,
): Promise<ReconcileNowResult> {
  const parsed = await store.inspect(id);
  if (!parsed) throw new RecordNotFoundError(`no CloudCluster ${id}`);
  // A malformed record still gets a run: it is what writes RecordInvalid on it.
  const generation = parsed.kind === 'record' ? parsed.record.generation : 0;
  if (parsed.kind === 'claim') throw new RecordInvalidError(id, 'a target claim, not a record');
  const lease = parsed.kind === 'record' ? parsed.record.lease : undefined;
  const awaiting = parsed.kind === 'record' && parsed.record.approval !== undefined;
  if (lease && leaseView(lease, now, leaseTtlMs, awaiting) === 'live') {
    const check = await checkHolder(executions, lease.executionArn);
    if (!check.ended) {
      const holder = check.status;
      return {
        started: false,
        holder: lease.executionArn ?? lease.owner,
        running: holder?.state === 'running',
        until: new Date(lease.expiresAt).toISOString(),
        ...(holder?.state === 'running' && holder.startedAt ? { since: holder.startedAt } : {}),
        ...(holder && holder.state !== 'running' && holder.detail ? { detail: holder.detail } : {}),
      };
    }
  }
  const name = executionName(id, generation, 'manual', String(now.getTime()));
  const res = await executions.start(name, { id, trigger: 'manual' });
  if (!res.started)
    throw new TransientError(`execution ${name} already exists`, {
      code: 'ExecutionAlreadyExists',
      remediation: 'A reconcile of this cluster started at the same moment and runs now; nothing to do.',
    });
  emit(METRIC.ExecutionsStarted, 1, { Trigger: 'manual' });
  return { started: true, name, ...(res.executionArn ? { executionArn: res.executionArn } : {}) };
}

export async function reconcileNow(req: { id: string }): Promise<ReconcileNowResult> {
  const { store, executions, now, config } = depsOf('reconcileNow');
  return reconcileWith(store, executions, req.id, now(), config.leaseTtlMs);
}
