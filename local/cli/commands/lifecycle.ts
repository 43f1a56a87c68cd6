/** `cloudorch delete` and `cloudorch reconcile`. */
import { shortHash } from '../../../lambdas/core/plan/tokens.js';
import { executionName } from '../../../lambdas/handlers/execution-name.js';
import type { Output } from '../format.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';
import { listRecords } from './get.js';

async function find(t: Target, o: Output, name: string) {
  const r = (await listRecords(t)).find((x) => x.id === name || x.id.endsWith(`/${name}`));
  if (!r) o.err(`error: cloudcluster ${name} not found`);
  return r;
}

export async function deleteCommand(t: Target, o: Output, name: string): Promise<number> {
  const r = await find(t, o, name);
  if (!r) return EXIT.error;
  await t.store.requestDeletion(r.id);
  o.out(
    `cloudcluster/${r.id} deletion requested (deletionPolicy ${r.spec.deletionPolicy}: ${r.spec.deletionPolicy === 'Delete' ? 'node groups, then the cluster, are deleted' : 'the EKS cluster is kept'})`,
  );
  return EXIT.ok;
}

export async function reconcileCommand(t: Target, o: Output, name: string): Promise<number> {
  const r = await find(t, o, name);
  if (!r) return EXIT.error;
  const res = await t.executions.start(
    executionName(r.id, r.generation, 'manual', shortHash([String(Date.now())], 6)),
    { id: r.id, trigger: 'manual' },
  );
  o.out(
    res.started
      ? `cloudcluster/${r.id} reconcile started${res.executionArn ? ` (${res.executionArn})` : ''}`
      : `cloudcluster/${r.id} a reconcile is already running`,
  );
  return EXIT.ok;
}
