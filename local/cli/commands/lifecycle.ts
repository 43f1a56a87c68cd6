/** `cloudorch delete` and `cloudorch reconcile`. */

import { reconcileWith } from '../../../lambdas/handlers/triggers/reconcile-now.js';
import { listItems } from '../../../lambdas/store/list.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';
import { addWaitOptions, type WaitRequest, waitFor, waitRequest } from './wait.js';

async function find(t: Target, o: Output, name: string) {
  const { records, invalid } = await listItems(t.store);
  const matches = (id: string) => id === name || id.endsWith(`/${name}`);
  const r = records.find((x) => matches(x.id));
  const broken = invalid.find((x) => matches(x.id));
  if (!r && broken)
    o.err(
      `error: cloudcluster ${broken.id} is malformed (${broken.reason}); CloudOrch cannot delete it: delete the item itself (aws dynamodb delete-item --key '{"id":{"S":"${broken.id}"}}') and apply it again if it should exist`,
    );
  else if (!r) o.err(`error: cloudcluster ${name} not found`);
  return r;
}

export async function deleteCommand(t: Target, o: Output, name: string, wait?: WaitRequest): Promise<number> {
  const r = await find(t, o, name);
  if (!r) return EXIT.error;
  const requested = await t.store.requestDeletion(r.id);
  o.out(
    `cloudcluster/${r.id} deletion requested (deletionPolicy ${r.spec.deletionPolicy}: ${r.spec.deletionPolicy === 'Delete' ? 'node groups, then the cluster, are deleted' : 'the EKS cluster is kept'})`,
  );
  if (!wait) return EXIT.ok;
  const requestedAt = requested.deletionRequestedAt ?? new Date().toISOString();
  return waitFor(t.store, o, [{ id: r.id, goal: { kind: 'gone', requestedAt } }], wait);
}

/** Says what it did; exit 0 only when an execution runs for the cluster (started now, or already). */
export async function reconcileCommand(t: Target, o: Output, name: string): Promise<number> {
  const { records, invalid } = await listItems(t.store);
  const ids = [...records.map((r) => r.id), ...invalid.filter((i) => i.usable).map((i) => i.id)];
  const id = ids.find((x) => x === name || x.endsWith(`/${name}`));
  if (!id) {
    o.err(`error: cloudcluster ${name} not found`);
    return EXIT.error;
  }
  const res = await reconcileWith(t.store, t.executions, id, new Date());
  if (res.started) {
    o.out(`cloudcluster/${id} started execution ${res.executionArn ?? res.name}`);
    return EXIT.ok;
  }
  if (res.running) {
    o.out(
      `cloudcluster/${id} execution ${res.holder} already running${res.since ? ` since ${res.since}` : ''}`,
    );
    return EXIT.ok;
  }
  // Nothing is known to run: say so, and do not claim success.
  o.err(
    `error: cloudcluster/${id}: nothing started; the lease is held by ${res.holder} until ${res.until} and its execution cannot be checked${res.detail ? ` (${res.detail})` : ''}`,
  );
  return EXIT.error;
}

/** delete and reconcile: acting on one CloudCluster by name. */
export function registerLifecycle({ program, o, withTarget }: Cli): void {
  const del = program
    .command('delete <name>')
    .description(
      'request deletion (node groups, then the cluster, with deletionPolicy Delete; Retain keeps the cluster)',
    );
  addWaitOptions(del, 'its record is gone (deleted or released)').action(
    (name: string, opts: { wait?: boolean; timeout?: string }) => {
      const wait = waitRequest(opts);
      return withTarget((t) => deleteCommand(t, o(), name, wait));
    },
  );

  program
    .command('reconcile <name>')
    .description('reconcile one CloudCluster now')
    .action((name: string) => withTarget((t) => reconcileCommand(t, o(), name)));
}
