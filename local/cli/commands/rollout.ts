/**
 * `cloudorch rollout get|describe|approve|resume|abort`: CloudRollouts on the target's rollout
 * table, and what a person does to one. Names resolve as CloudClusters' do: `NAME`, `NS/NAME` or
 * `cloudrollout/NAME`; a bare name without `-n` is looked up in every namespace.
 */
import type { Command } from 'commander';
import { stringify } from 'yaml';
import {
  abortRollout,
  approveRollout,
  RolloutActionError,
  type RolloutControl,
  resumeRollout,
} from '../../../lambdas/handlers/rollout/control.js';
import type { RolloutRecord, RolloutStore } from '../../../lambdas/store/rollouts.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';
import { type ScopeOptions, withScope } from '../options.js';
import { DEFAULT_NAMESPACE, splitId } from '../resolve.js';
import { describeRollout, rolloutObject, rolloutTable, STAY_LINE } from '../rollout-view.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';

const PREFIXES = ['cloudrollout/', 'cloudrollouts/', 'cloudrollout.compute.cloudorch.io/'];

/** A rollout name that matches nothing, or several namespaces. */
export class RolloutNameError extends Error {
  override readonly name = 'RolloutNameError';
}

/** The one rollout `arg` names within the scope; RolloutNameError when none or several. */
export function resolveRollout(records: readonly RolloutRecord[], arg: string, scope: ScopeOptions) {
  const prefix = PREFIXES.find((p) => arg.startsWith(p));
  const rest = prefix ? arg.slice(prefix.length) : arg;
  const given = rest.includes('/') ? splitId(rest) : { namespace: undefined, name: rest };
  if (given.namespace !== undefined && scope.namespace !== undefined && given.namespace !== scope.namespace)
    throw new RolloutNameError(`${arg} names namespace ${given.namespace}, but -n says ${scope.namespace}`);
  const ns = given.namespace ?? (scope.allNamespaces ? undefined : scope.namespace);
  const found = records.filter((r) =>
    ns === undefined ? splitId(r.id).name === given.name : r.id === `${ns}/${given.name}`,
  );
  const [first, ...more] = found;
  if (!first) throw new RolloutNameError(`cloudrollout ${arg} not found${ns ? ` in namespace ${ns}` : ''}`);
  if (more.length > 0)
    throw new RolloutNameError(
      `cloudrollout ${given.name} is in several namespaces: ${found.map((r) => r.id).join(', ')}; name one with -n NAMESPACE or NAMESPACE/${given.name}`,
    );
  return first;
}

/** The records, each malformed item named on stderr (it has no phase or stages to show). */
async function listed(
  rollouts: RolloutStore,
  o: Output,
): Promise<{ records: RolloutRecord[]; broken: boolean }> {
  const { records, invalid } = await rollouts.list();
  for (const i of invalid) o.err(`error: cloudrollout ${i.id} is malformed: ${i.reason}`);
  return { records, broken: invalid.length > 0 };
}

interface GetOptions extends ScopeOptions {
  readonly output: string;
}

function print(o: Output, records: readonly RolloutRecord[], single: boolean, opts: GetOptions): void {
  const objects = records.map(rolloutObject);
  const value = single ? objects[0] : { apiVersion: 'v1', kind: 'List', items: objects };
  if (opts.output === 'json') o.out(JSON.stringify(value, null, 2));
  else if (opts.output === 'yaml') o.out(stringify(value).trimEnd());
  else if (records.length > 0)
    for (const l of rolloutTable(records, new Date(), opts.allNamespaces === true)) o.out(l);
}

export async function rolloutGet(t: Target, o: Output, name: string | undefined, opts: GetOptions) {
  if (!['table', 'json', 'yaml'].includes(opts.output)) {
    o.err(`error: unknown output format ${opts.output} (table, json or yaml)`);
    return EXIT.error;
  }
  const { records, broken } = await listed(t.rollouts.store(), o);
  if (name !== undefined) {
    print(o, [resolveRollout(records, name, opts)], true, opts);
    return EXIT.ok;
  }
  const ns = opts.namespace ?? DEFAULT_NAMESPACE;
  const inScope = records.filter((r) => opts.allNamespaces || splitId(r.id).namespace === ns);
  if (inScope.length === 0 && opts.output === 'table')
    o.err(opts.allNamespaces ? 'No resources found.' : `No resources found in ${ns} namespace.`);
  print(o, inScope, false, opts);
  return broken ? EXIT.error : EXIT.ok;
}

async function rolloutDescribe(t: Target, o: Output, name: string, opts: ScopeOptions) {
  const { records } = await listed(t.rollouts.store(), o);
  for (const line of describeRollout(resolveRollout(records, name, opts))) o.out(line);
  return EXIT.ok;
}

type Action = (c: RolloutControl, id: string) => Promise<string[]>;

const approve =
  (stage: string | undefined): Action =>
  async (c, id) => [`cloudrollout/${id} ${await approveRollout(c, id, stage)}`];

const resume: Action = async (c, id) => {
  const { executionArn } = await resumeRollout(c, id);
  return [`cloudrollout/${id} resumed: execution ${executionArn}`];
};

const abort: Action = async (c, id) => {
  const r = await abortRollout(c, id);
  return [`cloudrollout/${id} aborted${r.status ? `: ${r.status.phase}` : ''}`, STAY_LINE];
};

async function act(t: Target, o: Output, name: string, opts: ScopeOptions, action: Action) {
  const control = t.rollouts.control();
  const { records } = await control.rollouts.list();
  const id = resolveRollout(records, name, opts).id;
  for (const line of await action(control, id)) o.out(line);
  return EXIT.ok;
}

/** A refusal the user's input or the rollout's state caused: a message, exit 1, no stack trace. */
function refused(o: Output, run: () => Promise<number>): Promise<number> {
  return run().catch((err: unknown) => {
    if (!(err instanceof RolloutNameError || err instanceof RolloutActionError)) throw err;
    o.err(`error: ${err.message}`);
    return EXIT.error;
  });
}

export function registerRollout({ program, o, withTarget }: Cli): void {
  const rollout = program
    .command('rollout')
    .description('CloudRollouts: one change rolled across many clusters in stages (apply -f starts one)');
  const run = (f: (t: Target, out: Output) => Promise<number>) =>
    withTarget((t) => {
      const out = o();
      return refused(out, () => f(t, out));
    });
  const sub = (spec: string, description: string): Command =>
    withScope(rollout.command(spec).description(description));
  sub('get [name]', 'list CloudRollouts: NAME, PHASE, STAGE, SUCCEEDED/TOTAL, AGE')
    .option('-o, --output <format>', 'table, json or yaml', 'table')
    .action((name: string | undefined, opts: GetOptions) => run((t, out) => rolloutGet(t, out, name, opts)));
  sub('describe <name>', 'stages and their clusters, halt reason, pending approval').action(
    (name: string, opts: ScopeOptions) => run((t, out) => rolloutDescribe(t, out, name, opts)),
  );
  sub('approve <name>', 'approve the stage that waits for approval')
    .option('--stage <stage>', 'the stage you mean to approve (refused if another one waits)')
    .action((name: string, opts: ScopeOptions & { stage?: string }) =>
      run((t, out) => act(t, out, name, opts, approve(opts.stage))),
    );
  sub(
    'resume <name>',
    'reconcile the failed clusters of a halted rollout (or one whose execution is gone), then run it again',
  ).action((name: string, opts: ScopeOptions) => run((t, out) => act(t, out, name, opts, resume)));
  sub('abort <name>', 'stop the rollout; clusters stay where they are').action(
    (name: string, opts: ScopeOptions) => run((t, out) => act(t, out, name, opts, abort)),
  );
}
