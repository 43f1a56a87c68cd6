/** "Reconcile now" for one cluster (CLI `cloudorch reconcile`). */
import { RecordNotFoundError } from '../../store/errors.js';
import { deps } from '../deps.js';
import { executionName } from '../execution-name.js';
import { emit, METRIC } from '../telemetry.js';

export async function reconcileNow(req: { id: string }): Promise<{ started: boolean; name: string }> {
  const { store, executions, now } = deps();
  const record = await store.get(req.id);
  if (!record) throw new RecordNotFoundError(`no CloudCluster ${req.id}`);
  const name = executionName(record.id, record.generation, 'manual', String(now().getTime()));
  const res = await executions.start(name, { id: record.id, trigger: 'manual' });
  if (res.started) emit(METRIC.ExecutionsStarted, 1, { Trigger: 'manual' });
  return { started: res.started, name };
}
