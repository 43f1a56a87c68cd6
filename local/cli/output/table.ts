/**
 * `get`'s tables: kubectl's NAME (with a NAMESPACE column under `-A`), the status columns, `-o wide`'s
 * extra columns, and `--show-labels`' LABELS.
 */
import type { InvalidItem } from '../../../lambdas/store/record.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import { age, COLUMNS, invalidRow, row, table } from '../format.js';
import { accessCell, addonsCell } from '../parts.js';
import { splitId } from '../resolve.js';

export interface TableOptions {
  readonly allNamespaces?: boolean;
  readonly wide?: boolean;
  readonly showLabels?: boolean;
}

/**
 * SUBNETS: the spec's (`default`: the deployment's); NODEGROUPS: each pool's current node group in
 * spec order (`<pool>:Missing` when it has none); ADDONS: how many listed add-ons are ACTIVE, and each
 * one that is not; ACCESS: the authentication mode and the access entries EKS reports; LAST-OP: the last EKS operation and its age;
 * LAST-DRIFT: the fields found drifted by the last run; GENERATION: the spec's, and the one last
 * reconciled; APPROVAL: `pending (<age>)` while an execution waits for one, the denial of this
 * generation, else `-`.
 */
export const WIDE_COLUMNS = [
  'SUBNETS',
  'NODEGROUPS',
  'ADDONS',
  'ACCESS',
  'LAST-OP',
  'LAST-DRIFT',
  'GENERATION',
  'APPROVAL',
] as const;

function approvalCell(r: ClusterRecord, now: Date): string {
  if (r.approval) return `pending (${age(r.approval.requestedAt, now)})`;
  return r.denied?.generation === r.generation ? r.denied.reason : '-';
}

/** Status written before pools existed names no pools: `-` until the next run rewrites it. */
function nodegroupsCell(o: NonNullable<ClusterRecord['status']>['observed']): string {
  if (!o?.pools?.length) return '-';
  return o.pools.map((p) => p.nodegroup ?? `${p.name}:Missing`).join(',');
}

function wideCells(r: ClusterRecord, now: Date): string[] {
  const subnets = r.spec.network?.subnetIds;
  const op = [...(r.history ?? [])].reverse().find((h) => h.kind === 'operation' && h.operation);
  const drift = r.status?.lastDrift ?? [];
  return [
    subnets?.length ? subnets.join(',') : 'default',
    nodegroupsCell(r.status?.observed),
    addonsCell(r.status?.observed),
    accessCell(r.status?.observed),
    op ? `${op.operation} (${age(op.lastAt ?? op.at, now)})` : '-',
    drift.length > 0 ? drift.map((d) => d.field).join(',') : '-',
    `${r.generation} (observed ${r.status?.observedGeneration ?? '-'})`,
    approvalCell(r, now),
  ];
}

const labelsCell = (r: ClusterRecord) =>
  Object.entries(r.labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',') || '<none>';

export function header(opts: TableOptions): string[] {
  return [
    ...(opts.allNamespaces ? ['NAMESPACE'] : []),
    ...COLUMNS,
    ...(opts.wide ? WIDE_COLUMNS : []),
    ...(opts.showLabels ? ['LABELS'] : []),
  ];
}

function recordRow(r: ClusterRecord, now: Date, opts: TableOptions): string[] {
  const { namespace, name } = splitId(r.id);
  return [
    ...(opts.allNamespaces ? [namespace] : []),
    name,
    ...row(r, now).slice(1),
    ...(opts.wide ? wideCells(r, now) : []),
    ...(opts.showLabels ? [labelsCell(r)] : []),
  ];
}

function brokenRow(i: InvalidItem, opts: TableOptions): string[] {
  const { namespace, name } = splitId(i.id);
  return [
    ...(opts.allNamespaces ? [namespace] : []),
    name,
    ...invalidRow(i).slice(1),
    ...(opts.wide ? WIDE_COLUMNS.map(() => '-') : []),
    ...(opts.showLabels ? ['<unreadable>'] : []),
  ];
}

/** The table, then one line per malformed item with its reason. */
export function renderTable(
  records: readonly ClusterRecord[],
  invalid: readonly InvalidItem[],
  now: Date,
  opts: TableOptions,
): string[] {
  const lines = table([
    header(opts),
    ...records.map((r) => recordRow(r, now, opts)),
    ...invalid.map((i) => brokenRow(i, opts)),
  ]);
  for (const i of invalid) lines.push(`${i.id}: RecordInvalid: ${i.reason}`);
  return lines;
}
