/**
 * How `cloudorch rollout get` and `describe` show a CloudRollout record: a table row, the Kubernetes
 * object `-o json|yaml` prints (which `apply -f` reads back), and describe's sections. Only what the
 * record holds is shown; what it does not hold is `-`, never a guess.
 */
import { formatDuration } from '../../lambdas/core/duration.js';
import { API_VERSION, ROLLOUT_KIND } from '../../lambdas/core/rollout/manifest.js';
import {
  type RolloutClusterStatus,
  type RolloutStatus,
  type StageStatus,
  summary,
} from '../../lambdas/core/rollout/status.js';
import type { RolloutRecord } from '../../lambdas/store/rollouts.js';
import { age, table } from './format.js';
import { splitId } from './resolve.js';

/** What a halted or aborted rollout leaves behind, said plainly. */
export const STAY_LINE = 'clusters stay where they are; a Kubernetes version cannot go back';

export const ROLLOUT_COLUMNS = ['NAME', 'PHASE', 'STAGE', 'SUCCEEDED/TOTAL', 'AGE'] as const;

const clustersOf = (s: RolloutStatus) => s.stages.flatMap((x) => x.clusters);

/** `2/3 rest`: the first stage not done, or `3/3` when all are. */
function stageCell(s: RolloutStatus): string {
  const at = s.stages.findIndex((x) => x.state !== 'succeeded' && x.state !== 'skipped');
  const stage = s.stages[at];
  return stage ? `${at + 1}/${s.stages.length} ${stage.name}` : `${s.stages.length}/${s.stages.length}`;
}

export function rolloutRow(r: RolloutRecord, now: Date, withNamespace: boolean): string[] {
  const { namespace, name } = splitId(r.id);
  const s = r.status;
  const done = s ? clustersOf(s).filter((c) => c.state === 'succeeded').length : undefined;
  return [
    ...(withNamespace ? [namespace] : []),
    name,
    s?.phase ?? '-',
    s ? stageCell(s) : '-',
    s ? `${done}/${clustersOf(s).length}` : '-',
    age(r.createdAt, now),
  ];
}

export function rolloutTable(records: readonly RolloutRecord[], now: Date, withNamespace: boolean): string[] {
  const header = [...(withNamespace ? ['NAMESPACE'] : []), ...ROLLOUT_COLUMNS];
  return table([header, ...records.map((r) => rolloutRow(r, now, withNamespace))]);
}

/** The record as a Kubernetes object; the approval's task token stays out (it resumes the execution). */
export function rolloutObject(r: RolloutRecord): Record<string, unknown> {
  const { namespace, name } = splitId(r.id);
  const pending = r.approval
    ? { stage: r.approval.stage, when: r.approval.when, requestedAt: r.approval.requestedAt }
    : undefined;
  const status = {
    ...(r.status ?? {}),
    ...(pending ? { pendingApproval: pending } : {}),
    ...(r.executionArn ? { executionArn: r.executionArn } : {}),
    ...(r.abortRequestedAt ? { abortRequestedAt: r.abortRequestedAt } : {}),
  };
  return {
    apiVersion: API_VERSION,
    kind: ROLLOUT_KIND,
    metadata: { name, namespace, generation: r.generation, creationTimestamp: r.createdAt },
    spec: r.spec,
    ...(Object.keys(status).length > 0 ? { status } : {}),
  };
}

const when = (label: string, at: string | undefined) => (at ? [`${label} ${at}`] : []);

function clusterRows(clusters: readonly RolloutClusterStatus[]): string[] {
  const rows = [['CLUSTER', 'STATE', 'GENERATION', 'STARTED', 'READY', 'FINISHED', 'REASON']];
  for (const c of clusters)
    rows.push([
      c.id,
      c.state,
      c.generation === undefined ? '-' : String(c.generation),
      c.startedAt ?? '-',
      c.readyAt ?? '-',
      c.finishedAt ?? '-',
      c.reason ?? '',
    ]);
  return table(rows).map((l) => `    ${l}`);
}

function stageSection(s: StageStatus, i: number, total: number): string[] {
  const soak = s.soakSeconds > 0 ? formatDuration(s.soakSeconds) : 'none';
  const times = [
    ...when('started', s.startedAt),
    ...when('approved before', s.approvedBeforeAt),
    ...when('approved after', s.approvedAfterAt),
    ...when('soak until', s.soakUntil),
    ...when('finished', s.finishedAt),
  ];
  return [
    `Stage ${i + 1}/${total} ${s.name}: ${s.state}${s.awaiting ? ` (awaiting approval ${s.awaiting})` : ''}`,
    `  approval ${s.approval}, concurrency ${s.maxConcurrency}, soak ${soak}`,
    ...(times.length > 0 ? [`  ${times.join(', ')}`] : []),
    ...clusterRows(s.clusters),
  ];
}

/** The lines after the stages: what waits for a person, why it stopped, and what that leaves. */
function outcome(r: RolloutRecord): string[] {
  const lines: string[] = [];
  const a = r.approval;
  if (a)
    lines.push(
      `Pending approval: ${a.when} stage ${a.stage}, requested ${a.requestedAt}`,
      `  cloudorch rollout approve ${r.id} --stage ${a.stage}`,
    );
  const s = r.status;
  if (s?.halt)
    lines.push(
      `Halted: ${s.halt.cluster ? `${s.halt.cluster}: ` : ''}${s.halt.reason}${s.halt.at ? ` (${s.halt.at})` : ''}`,
    );
  if (s?.phase === 'Halted') lines.push(`  cloudorch rollout resume ${r.id} (or abort it)`, `  ${STAY_LINE}`);
  if (s?.phase === 'Aborted')
    lines.push(`Aborted${r.abortRequestedAt ? ` ${r.abortRequestedAt}` : ''}: ${STAY_LINE}`);
  return lines;
}

export function describeRollout(r: RolloutRecord): string[] {
  const s = r.status;
  const head = [
    `Name:        ${r.id}`,
    `Generation:  ${r.generation}${s && s.generation !== r.generation ? ` (status of generation ${s.generation})` : ''}`,
    `Phase:       ${s?.phase ?? '- (not started)'}`,
    ...(s ? [`Summary:     ${summary(s)}`] : []),
    `Created:     ${r.createdAt}`,
    `Updated:     ${r.updatedAt}`,
    `Execution:   ${r.executionArn ?? '-'}${r.attempt > 0 ? ` (attempt ${r.attempt})` : ''}`,
    `Change:      ${JSON.stringify(r.spec['change'] ?? null)}`,
  ];
  const stages = (s?.stages ?? []).flatMap((x, i, all) => ['', ...stageSection(x, i, all.length)]);
  const end = outcome(r);
  return [...head, ...stages, ...(end.length > 0 ? ['', ...end] : [])];
}
