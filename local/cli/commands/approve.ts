/**
 * `cloudorch approve` and `cloudorch deny`: answer a Reconcile execution waiting for a human's
 * approval of operations the policies hold (the record's pending `approval`). Approve resumes it
 * (SendTaskSuccess) and the held operations run; deny ends it (SendTaskFailure `ApprovalDenied`), and
 * nothing is asked again for that generation.
 */
import { userInfo } from 'node:os';
import { APPROVAL_ERRORS, type ApprovalAnswer } from '../../../lambdas/handlers/contracts.js';
import { listItems } from '../../../lambdas/store/list.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';
import { type ScopeOptions, scopeOf, usageMessage, withScope } from '../options.js';
import { type Found, resolveName } from '../resolve.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';

export type Answer = { readonly kind: 'approve' } | { readonly kind: 'deny'; readonly reason: string };

/** What the cluster is doing instead of waiting: its Ready condition, a denial, or its lease. */
export function notWaiting(r: ClusterRecord): string {
  const ready = r.status?.conditions.find((c) => c.type === 'Ready');
  const denied =
    r.denied?.generation === r.generation
      ? `; generation ${r.generation} was already ${r.denied.reason === 'ApprovalDenied' ? 'denied' : 'left unapproved until the timeout'} (a spec change asks again)`
      : '';
  const doing = ready
    ? `Ready ${ready.status} (${ready.reason}): ${ready.message}`
    : 'no status yet (not reconciled so far)';
  const held = r.lease ? `; an execution holds it (${r.lease.executionArn ?? r.lease.owner})` : '';
  return `${doing}${denied}${held}`;
}

/** The local user for the dev; in AWS the caller is not known to the CLI (CloudTrail records it). */
function caller(t: Target): string | undefined {
  return t.kind === 'local' ? userInfo().username : undefined;
}

async function record(
  t: Target,
  o: Output,
  name: string,
  opts: ScopeOptions,
): Promise<ClusterRecord | undefined> {
  let found: Found;
  try {
    found = resolveName(await listItems(t.store), name, scopeOf(opts));
  } catch (err) {
    const message = usageMessage(err);
    if (!message) throw err;
    o.err(message);
    return undefined;
  }
  if (found.kind === 'invalid') {
    o.err(
      `error: cloudcluster ${found.invalid.id} is malformed (${found.invalid.reason}): nothing awaits approval`,
    );
    return undefined;
  }
  return found.record;
}

export async function answerCommand(
  t: Target,
  o: Output,
  name: string,
  answer: Answer,
  opts: ScopeOptions = {},
): Promise<number> {
  if (answer.kind === 'deny' && answer.reason.trim() === '') {
    o.err('error: deny needs --reason TEXT (why the operations must not run)');
    return EXIT.error;
  }
  const r = await record(t, o, name, opts);
  if (!r) return EXIT.error;
  const wait = r.approval;
  if (!wait) {
    o.err(`error: cloudcluster/${r.id} has no operation awaiting approval: ${notWaiting(r)}`);
    return EXIT.error;
  }
  const operations = wait.approvals.map((a) => a.operation).join(', ') || 'the held operations';
  const by = caller(t);
  const output: ApprovalAnswer = { approvedAt: new Date().toISOString(), ...(by ? { by } : {}) };
  const { open } =
    answer.kind === 'approve'
      ? await t.callbacks.succeed(wait.token, output)
      : await t.callbacks.fail(wait.token, APPROVAL_ERRORS.denied, answer.reason.trim());
  if (!open) {
    o.err(
      `error: cloudcluster/${r.id}: the wait for approval of generation ${wait.generation} is already over (answered, timed out at ${wait.expiresAt}, cancelled, or its execution ended); see cloudorch describe ${r.id}`,
    );
    return EXIT.error;
  }
  o.out(
    answer.kind === 'approve'
      ? `cloudcluster/${r.id} approved: ${operations} (generation ${wait.generation}); the reconcile goes on`
      : `cloudcluster/${r.id} denied: ${operations} (generation ${wait.generation}); nothing runs until the spec changes`,
  );
  return EXIT.ok;
}

export function registerApprove({ program, o, withTarget }: Cli): void {
  const approve = program
    .command('approve <name>')
    .description('approve the operations a CloudCluster awaits approval for; its reconcile goes on');
  withScope(approve).action((name: string, opts: ScopeOptions) =>
    withTarget((t) => answerCommand(t, o(), name, { kind: 'approve' }, opts)),
  );
  const deny = program
    .command('deny <name>')
    .description('deny them: nothing runs for this generation of the spec')
    .requiredOption('--reason <text>', 'why (shown in the cluster status)');
  withScope(deny).action((name: string, opts: ScopeOptions & { reason: string }) =>
    withTarget((t) => answerCommand(t, o(), name, { kind: 'deny', reason: opts.reason }, opts)),
  );
}
