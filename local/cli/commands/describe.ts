/** `cloudorch describe`: conditions with reasons and hints, observed state, last plan, policy, history. */

import { REASON_HINT } from '../../../lambdas/core/conditions.js';
import { type DriftItem, ruleOfDrift } from '../../../lambdas/core/plan/fields.js';
import { approveCommand, denyCommand } from '../../../lambdas/core/status-approval.js';
import { DEFAULT_CONFIG } from '../../../lambdas/handlers/deps.js';
import { leaseView } from '../../../lambdas/store/lease.js';
import { listItems } from '../../../lambdas/store/list.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import type { Cli } from '../cli.js';
import { executionLines } from '../execution-failure.js';
import { chooseExecution, executionSource, readExecution, type SourceOrWhy } from '../executions.js';
import type { Output } from '../format.js';
import { age, paint } from '../format.js';
import { type ScopeOptions, scopeOf, withScope } from '../options.js';
import { accessSection, addonsSection, specParts } from '../parts.js';
import { poolsSection, specPools } from '../pools.js';
import { type Found, NameResolutionError, resolveName, type Scope } from '../resolve.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';

/**
 * The lease's state as the sweep and `cloudorch reconcile` see it (leaseView), with its expiry: an
 * implausible lease counts as free, however far ahead it claims to be valid.
 */
export function leaseExpiry(lease: NonNullable<ClusterRecord['lease']>, now: Date, awaiting = false): string {
  // A forged expiry can be any number: print it as it is when it is not a date.
  const date = new Date(lease.expiresAt);
  const at = Number.isNaN(date.getTime()) ? String(lease.expiresAt) : date.toISOString();
  const view = leaseView(lease, now, DEFAULT_CONFIG.leaseTtlMs, awaiting);
  if (view === 'live') return `live until ${at}`;
  if (view === 'implausible')
    return `implausible, counts as free: expires ${at}, later than CloudOrch writes`;
  return `expired at ${at}`; // a lease that exists is never 'free'
}

/** Who holds the lease, whether that execution still runs, and the lease's state. */
async function describeLease(
  t: Target,
  lease: NonNullable<ClusterRecord['lease']>,
  now: Date,
  awaiting: boolean,
): Promise<string> {
  const expiry = leaseExpiry(lease, now, awaiting);
  if (!lease.executionArn) return `${lease.owner} (${expiry})`;
  const holder = await t.executions.status(lease.executionArn);
  const state =
    holder.state === 'running'
      ? `running${holder.startedAt ? ` since ${holder.startedAt}` : ''}`
      : `${holder.state}${holder.detail ? `: ${holder.detail}` : ''}`;
  return `${lease.executionArn} (${state}; lease ${expiry})`;
}

/**
 * One drifted field, with how it converges and what it is compared with in EKS, read from the
 * planner's field table. Pool fields name their pool (`nodeGroups[<pool>].<field>`). A missing
 * cluster is a resource, not a field: no note.
 */
export function driftLine(d: DriftItem): string {
  const line = `${d.field}: want ${d.desired}, found ${d.observed}`;
  const found = ruleOfDrift(d.field);
  if (!found) return line;
  const { convergence, via, observedAs } = found.rule;
  const how = via.length > 0 ? `${convergence} via ${via.join(', ')}` : convergence;
  return `${line}  (${how}; EKS ${observedAs})`;
}

type Status = ClusterRecord['status'];

/** Who the record is, whether it is ready, who holds it, and what to do when it is stuck. */
async function describeHeader(t: Target, o: Output, r: ClusterRecord, now: Date): Promise<void> {
  const s = r.status;
  const cond = (type: string, flag: boolean | undefined) =>
    !s || s.conditions.find((c) => c.type === type)?.status === 'Unknown' ? 'Unknown' : String(flag);
  o.out(`Name:          ${r.id}`);
  // The target is (account, region, clusterName); no account means CloudOrch's own.
  const account = typeof r.spec.accountId === 'string' ? `account ${r.spec.accountId}, ` : '';
  o.out(`Cluster:       ${String(r.spec.clusterName)} (${account}${String(r.spec.region)})`);
  o.out(`Generation:    ${r.generation}  (observed ${s?.observedGeneration ?? '-'})`);
  o.out(`Ready:         ${cond('Ready', s?.ready)}    Synced: ${cond('Synced', s?.synced)}`);
  o.out(
    `Lease:         ${r.lease ? await describeLease(t, r.lease, now, r.approval !== undefined) : 'free'}`,
  );
  for (const line of approvalLines(r, now)) o.out(line);
  if (r.failures && r.failures.generation === r.generation)
    o.out(
      `Backoff:       ${r.failures.count} failed run(s) in a row; the sweep retries after ${r.failures.retryAt}`,
    );
  if (r.deletionRequestedAt)
    o.out(
      `Deleting:      requested ${age(r.deletionRequestedAt, now)} ago (deletionPolicy ${r.spec.deletionPolicy})`,
    );
  if (s?.remediation) o.out(`Remediation:   ${paint(o, 'yellow', s.remediation)}`);
}

/** A pending approval (what waits, since when, until when, the commands) and a denial of this generation. */
export function approvalLines(r: ClusterRecord, now: Date): string[] {
  const lines: string[] = [];
  const a = r.approval;
  if (a) {
    lines.push(
      `Approval:      awaited for ${age(a.requestedAt, now)} (generation ${a.generation}; times out at ${a.expiresAt})`,
    );
    for (const x of a.approvals) lines.push(`  - ${x.operation} (${x.rule}): ${x.reason}`);
    lines.push(`  ${approveCommand(r.id)}   or   ${denyCommand(r.id)}`);
  }
  const d = r.denied;
  if (d && d.generation === r.generation)
    lines.push(`Denied:        ${d.reason} ${age(d.at, now)} ago: ${d.message} (a spec change asks again)`);
  return lines;
}

/**
 * Conditions whose True is the bad news: painted red when True, green when False. AwaitingApproval
 * True needs a human's attention.
 */
const TRUE_IS_BAD: ReadonlySet<string> = new Set([
  'Drifted',
  'UpgradeBlocked',
  'UpgradeWarning',
  'AwaitingApproval',
]);

function describeConditions(o: Output, s: Status, now: Date): void {
  o.out('Conditions:');
  for (const c of s?.conditions ?? []) {
    const good = TRUE_IS_BAD.has(c.type) ? 'False' : 'True';
    const mark = c.status === 'Unknown' ? c.status : paint(o, c.status === good ? 'green' : 'red', c.status);
    o.out(
      `  ${c.type.padEnd(16)} ${mark.padEnd(5)} ${c.reason} (${age(c.lastTransitionTime, now)}): ${c.message}${c.remediation ? `\n${' '.repeat(20)}hint: ${c.remediation}` : ''}`,
    );
  }
}

/** What the last reconciliation saw and decided: observed state, pools, add-ons, access, cost, plan, policy and drift. */
function describeLastRun(o: Output, r: ClusterRecord): void {
  const s = r.status;
  const ob = s?.observed;
  o.out('Observed:');
  o.out(
    ob
      ? `  health ${ob.health}, version ${ob.version ?? '-'}, ${ob.nodeCount ?? '-'} nodes in total\n  arn ${ob.arn ?? '-'}\n  endpoint ${ob.endpoint ?? '-'}`
      : '  nothing observed yet',
  );
  o.out('Pools:');
  for (const line of poolsSection(ob, specPools(r))) o.out(line);
  const parts = specParts(r);
  o.out('Add-ons:');
  for (const line of addonsSection(ob?.addons, parts.addons)) o.out(line);
  o.out('Access:');
  for (const line of accessSection(ob?.access, parts.access)) o.out(line);
  o.out(
    `Estimated cost: ${s?.estimatedMonthlyCost === undefined ? '-' : `$${s.estimatedMonthlyCost.toFixed(2)}/month`}`,
  );
  o.out('Last plan:');
  for (const p of s?.lastPlan?.length ? s.lastPlan : ['(nothing to do)']) o.out(`  - ${p}`);
  o.out('Policy:');
  for (const v of s?.violations?.length ? s.violations : [])
    o.out(`  - [${v.severity}] ${v.rule}: ${v.message}`);
  if (!s?.violations?.length) o.out('  no violations');
  if (s?.lastDrift?.length) {
    o.out('Last drift:');
    for (const d of s.lastDrift) o.out(`  - ${driftLine(d)}`);
  }
}

/**
 * Failed or stuck: Ready not True, a lease no longer live (its holder outlived it), or a failure
 * written by the newest execution the history names.
 */
export function needsExecution(r: ClusterRecord, now: Date): boolean {
  const ready = r.status?.conditions.find((c) => c.type === 'Ready');
  if (ready && ready.status !== 'True') return true;
  if (r.lease && leaseView(r.lease, now, DEFAULT_CONFIG.leaseTtlMs, r.approval !== undefined) !== 'live')
    return true;
  const last = r.history?.at(-1)?.executionId;
  return last !== undefined && (r.history ?? []).some((h) => h.executionId === last && h.kind === 'error');
}

/** The execution to look at for a failed or stuck cluster, or why it cannot be read. */
async function describeExecution(o: Output, r: ClusterRecord, open: () => Promise<SourceOrWhy>) {
  o.out('Last execution:');
  const src = await open();
  if ('unavailable' in src) return o.out(`  cannot be read: ${src.unavailable}`);
  try {
    const choice = await chooseExecution(src, r);
    if ('why' in choice) return o.out(`  cannot be read: ${choice.why}`);
    for (const line of executionLines(await readExecution(src.client, choice.arn, choice.via))) o.out(line);
  } catch (err) {
    o.out(
      `  cannot be read: ListExecutions failed (${err instanceof Error ? `${err.name}: ${err.message}` : String(err)})`,
    );
  } finally {
    src.close();
  }
}

export async function describeCommand(
  t: Target,
  o: Output,
  name: string,
  executions: () => Promise<SourceOrWhy> = async () => executionSource(t),
  scope: Scope = {},
): Promise<number> {
  let found: Found;
  try {
    found = resolveName(await listItems(t.store), name, scope);
  } catch (err) {
    if (!(err instanceof NameResolutionError)) throw err;
    o.err(`error: ${err.message}`);
    return EXIT.error;
  }
  if (found.kind === 'invalid') {
    const broken = found.invalid;
    o.out(`Name:          ${broken.id}`);
    o.out(`Ready:         false    RecordInvalid: ${broken.reason}`);
    o.out(`Remediation:   ${REASON_HINT.RecordInvalid}`);
    return EXIT.ok;
  }
  const r = found.record;
  const now = new Date();
  await describeHeader(t, o, r, now);
  describeConditions(o, r.status, now);
  if (needsExecution(r, now)) await describeExecution(o, r, executions);
  describeLastRun(o, r);
  o.out('History (newest last):');
  for (const h of (r.history ?? []).slice(-15))
    o.out(
      `  ${h.at}  g${h.generation}  ${h.kind.padEnd(9)} ${h.summary}${h.count ? ` (x${h.count}, last ${h.lastAt ?? h.at})` : ''}`,
    );
  return EXIT.ok;
}

export function registerDescribe({ program, o, withTarget }: Cli): void {
  const describe = program
    .command('describe <name>')
    .description('conditions with reasons and hints, observed state, last plan, policy decision, history');
  withScope(describe).action((name: string, opts: ScopeOptions) =>
    withTarget((t) => describeCommand(t, o(), name, async () => executionSource(t), scopeOf(opts))),
  );
}
