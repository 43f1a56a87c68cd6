/** Output helpers: tables, ages, and color only on a TTY unless --no-color. */
import type { InvalidItem } from '../../lambdas/store/record.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { poolCount } from './pools.js';

export interface Output {
  readonly color: boolean;
  out(line?: string): void;
  err(line: string): void;
}

export function output(opts: { color?: boolean }): Output {
  const color = opts.color !== false && !process.env.NO_COLOR && process.stdout.isTTY === true;
  return {
    color,
    out: (line = '') => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
}

const CODES = { red: 31, green: 32, yellow: 33, dim: 2 } as const;
export function paint(o: Output, c: keyof typeof CODES, s: string): string {
  return o.color ? `\u001b[${CODES[c]}m${s}\u001b[0m` : s;
}

export function age(from: string | undefined, now: Date): string {
  if (!from) return '-';
  const s = Math.max(0, Math.floor((now.getTime() - Date.parse(from)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

export function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('   ')
      .trimEnd(),
  );
}

export const COLUMNS = [
  'NAME',
  'REGION',
  'VERSION',
  'NODES',
  'POOLS',
  'READY',
  'SYNCED',
  'DRIFT',
  'COST/MO',
  'AGE',
] as const;

/** A malformed item's row: nothing in it can be trusted but its key; the reason follows the table. */
export function invalidRow(item: InvalidItem): string[] {
  return [item.id, ...COLUMNS.slice(1).map((c) => (c === 'READY' || c === 'SYNCED' ? 'false' : '-'))];
}

/**
 * One `get` row; READY/SYNCED come from the status, which derives them from conditions. NODES is the
 * desired size summed over every observed node group; POOLS the spec's pool count.
 */
export function row(r: ClusterRecord, now: Date): string[] {
  const s = r.status;
  const drifted = s?.conditions.find((c) => c.type === 'Drifted')?.status;
  // The flag, except where its condition is Unknown (EKS could not be read): then say so.
  const flag = (type: 'Ready' | 'Synced', value: boolean | undefined) =>
    !s || s.conditions.find((c) => c.type === type)?.status === 'Unknown' ? 'Unknown' : String(value);
  const region = (r.spec as { region?: unknown }).region;
  return [
    r.id,
    typeof region === 'string' ? region : '-',
    s?.observed?.version ?? '-',
    s?.observed?.nodeCount === undefined ? '-' : String(s.observed.nodeCount),
    String(poolCount(r) ?? '-'),
    flag('Ready', s?.ready),
    flag('Synced', s?.synced),
    drifted === 'True' ? 'yes' : drifted === 'False' ? 'no' : '-',
    s?.estimatedMonthlyCost === undefined ? '-' : `$${s.estimatedMonthlyCost.toFixed(2)}`,
    age(r.createdAt, now),
  ];
}
