/** `cloudorch delete` and `cloudorch reconcile`. */

import { reconcileWith } from '../../../lambdas/handlers/triggers/reconcile-now.js';
import { listItems } from '../../../lambdas/store/list.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';
import { type ScopeOptions, scopeOf, usageMessage, withScope, withSelector } from '../options.js';
import { noResourcesFound } from '../output/render.js';
import { type Found, idOf, inScope, resolveName } from '../resolve.js';
import { parseSelector } from '../select.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';
import { addWaitOptions, type WaitRequest, type WaitTarget, waitFor, waitRequest } from './wait.js';

/** What `delete` and `reconcile` get besides the name. */
export interface LifecycleOptions extends ScopeOptions {
  readonly selector?: string;
}

/**
 * The items a name means, or the records `-l` picks in the scope (a malformed item has no labels to
 * match). Undefined, with the error printed, when the name or the selector does not resolve.
 */
async function chosen(
  t: Target,
  o: Output,
  name: string | undefined,
  opts: LifecycleOptions,
  del = false,
): Promise<Found[] | undefined> {
  if ((name === undefined) === (opts.selector === undefined)) {
    o.err('error: give a name or -l SELECTOR (not both)');
    return undefined;
  }
  // kubectl deletes everything only with --all; an empty "$SEL" must not do it by accident.
  if (del && opts.selector?.trim() === '') {
    o.err(
      'error: delete -l needs a non-empty selector (an empty one would select everything); give a name or a selector',
    );
    return undefined;
  }
  try {
    const all = await listItems(t.store);
    if (name !== undefined) return [resolveName(all, name, scopeOf(opts))];
    const picked = inScope(all, scopeOf(opts), parseSelector(opts.selector ?? '')).records;
    if (picked.length === 0) o.err(noResourcesFound(scopeOf(opts)));
    return picked.map((record) => ({ kind: 'record', record }));
  } catch (err) {
    const message = usageMessage(err);
    if (!message) throw err;
    o.err(message);
    return undefined;
  }
}

export async function deleteCommand(
  t: Target,
  o: Output,
  name: string | undefined,
  opts: LifecycleOptions,
  wait?: WaitRequest,
): Promise<number> {
  const found = await chosen(t, o, name, opts, true);
  if (!found) return EXIT.error;
  const gone: WaitTarget[] = [];
  let failed = false;
  for (const f of found) {
    if (f.kind === 'invalid') {
      o.err(
        `error: cloudcluster ${f.invalid.id} is malformed (${f.invalid.reason}); CloudOrch cannot delete it: delete the item itself (aws dynamodb delete-item --key '{"id":{"S":"${f.invalid.id}"}}') and apply it again if it should exist`,
      );
      failed = true;
      continue;
    }
    const r = f.record;
    const requested = await t.store.requestDeletion(r.id);
    o.out(
      `cloudcluster/${r.id} deletion requested (deletionPolicy ${r.spec.deletionPolicy}: ${r.spec.deletionPolicy === 'Delete' ? 'node groups, then the cluster, are deleted' : 'the EKS cluster is kept'})`,
    );
    const requestedAt = requested.deletionRequestedAt ?? new Date().toISOString();
    gone.push({ id: r.id, goal: { kind: 'gone', requestedAt } });
  }
  if (!wait || gone.length === 0) return failed ? EXIT.error : EXIT.ok;
  const waited = await waitFor(t.store, o, gone, wait);
  return failed ? EXIT.error : waited;
}

/** Says what it did; exit 0 only when an execution runs for the cluster (started now, or already). */
export async function reconcileCommand(
  t: Target,
  o: Output,
  name: string | undefined,
  opts: LifecycleOptions,
): Promise<number> {
  const found = await chosen(t, o, name, opts);
  if (!found) return EXIT.error;
  let code: number = EXIT.ok;
  for (const f of found) {
    // A malformed item whose key is a record id can still be reconciled: the run marks it invalid.
    if (f.kind === 'invalid' && !f.invalid.usable) {
      o.err(`error: cloudcluster ${f.invalid.id} is not a record id CloudOrch can reconcile`);
      code = EXIT.error;
    } else if ((await reconcileOne(t, o, idOf(f))) !== EXIT.ok) code = EXIT.error;
  }
  return code;
}

async function reconcileOne(t: Target, o: Output, id: string): Promise<number> {
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

/** delete and reconcile: acting on one CloudCluster by name, or on those a selector picks. */
export function registerLifecycle({ program, o, withTarget }: Cli): void {
  const del = program
    .command('delete [name]')
    .description(
      'request deletion (node groups, then the cluster, with deletionPolicy Delete; Retain keeps the cluster)',
    );
  addWaitOptions(withSelector(withScope(del)), 'its record is gone (deleted or released)').action(
    (name: string | undefined, opts: LifecycleOptions & { wait?: boolean; timeout?: string }) => {
      const wait = waitRequest(opts);
      return withTarget((t) => deleteCommand(t, o(), name, opts, wait));
    },
  );

  const reconcile = program
    .command('reconcile [name]')
    .description('reconcile a CloudCluster (or those -l selects) now');
  withSelector(withScope(reconcile)).action((name: string | undefined, opts: LifecycleOptions) =>
    withTarget((t) => reconcileCommand(t, o(), name, opts)),
  );
}
