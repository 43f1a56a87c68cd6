/**
 * A cluster's node pools: what the spec asks of each (`desiredPools`, which the dev API derives from
 * the spec, the flat form of older records included) beside what the last run observed
 * (`status.observed.pools`), and the node groups no pool names.
 */
import { h } from './dom.js';

const labelsText = (labels) =>
  Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ') || '-';

const taintsText = (taints) =>
  (taints ?? []).map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(', ') || '-';

const range = (min, max) => `min ${min ?? '-'}, max ${max ?? '-'}`;

/** What the spec asks of a pool's size: the count (unless an autoscaler owns it) and its bounds. */
function want(p) {
  if (!p) return '-';
  const count = p.scaling === 'external' ? 'external' : String(p.nodeCount);
  return `${count} (${range(p.minSize, p.maxSize)})`;
}

/** One row per spec pool: observed fields where observed, the spec's where not yet. */
function poolRow(spec, obs) {
  const seen = obs?.nodegroup !== undefined;
  const cells = [
    spec?.name ?? obs?.name,
    obs?.status ?? 'not observed',
    obs?.nodegroup ?? '-',
    seen ? obs.version : '-',
    seen ? `${obs.nodeCount} (${range(obs.minSize, obs.maxSize)})` : '-',
    want(spec),
    (seen ? obs.instanceTypes : spec?.instanceTypes)?.join(', ') ?? '-',
    (seen ? obs.capacityType : spec?.capacityType) ?? '-',
    labelsText(seen ? obs.labels : spec?.labels),
    taintsText(seen ? obs.taints : spec?.taints),
  ];
  return h(
    'tr',
    { 'data-pool': cells[0] },
    cells.map((c) => h('td', {}, c ?? '-')),
  );
}

const HEADERS = [
  'POOL',
  'STATUS',
  'NODE GROUP',
  'VERSION',
  'NODES',
  'WANT',
  'INSTANCE TYPES',
  'CAPACITY',
  'LABELS',
  'TAINTS',
];

/** The pools table in spec order, then the node groups no pool names. */
export function pools(r) {
  const desired = r.desiredPools ?? [];
  const observed = r.status?.observed?.pools ?? [];
  const names = [...desired.map((p) => p.name), ...observed.map((p) => p.name)];
  const rows = [...new Set(names)].map((name) =>
    poolRow(
      desired.find((p) => p.name === name),
      observed.find((p) => p.name === name),
    ),
  );
  if (rows.length === 0) return h('p', { class: 'empty' }, 'No pools: the spec is invalid.');
  const o = r.status?.observed;
  return [
    h(
      'table',
      { class: 'sub', 'data-part': 'pools' },
      h('caption', {}, `${rows.length} pool(s), ${o?.nodeCount ?? '-'} nodes observed in all`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          HEADERS.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h('tbody', {}, rows),
    ),
    o?.orphan?.length
      ? h('p', { class: 'note' }, `Node groups of removed pools: ${o.orphan.join(', ')}`)
      : null,
    o?.foreign?.length
      ? h('p', { class: 'note' }, `Node groups created outside CloudOrch: ${o.foreign.join(', ')}`)
      : null,
  ];
}

/** The pool a drift item names (`nodeGroups[<pool>]…`), or `-` for a cluster field or a group no pool names. */
export function driftPool(field) {
  return /^nodeGroups\[([^\]]*)\]/.exec(field)?.[1] ?? '-';
}
