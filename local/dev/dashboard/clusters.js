/**
 * The cluster table (the CLI's `get` columns plus the Ready reason and the remediation hint) and the
 * details of the selected cluster. Every cell is a field of the record /api/clusters returned.
 */
import { age, clock, condition, driftText, fill, h, money } from './dom.js';
import { access, addons } from './parts.js';
import { driftPool, pools } from './pools.js';

const HISTORY_SHOWN = 15;

function boolCell(col, status, value) {
  const text = status ? String(value) : 'Unknown';
  return h('td', { class: `bool ${text}`, 'data-col': col }, text);
}

function reasonCell(r) {
  const ready = condition(r, 'Ready');
  if (!ready)
    return h(
      'td',
      { 'data-col': 'reason' },
      h('span', { class: 'reason' }, 'Pending'),
      h('span', { class: 'msg' }, 'not reconciled yet'),
    );
  const failing = ready.status !== 'True';
  // A step that went past ERROR upgrade insights leaves Ready alone: it is said beside it.
  const warning = condition(r, 'UpgradeWarning');
  return h(
    'td',
    { 'data-col': 'reason' },
    h('span', { class: 'reason' }, ready.reason),
    failing && ready.message ? h('span', { class: 'msg' }, ready.message) : null,
    failing && r.status.remediation ? h('span', { class: 'hint' }, 'Hint: ', r.status.remediation) : null,
    warning?.status === 'True' ? h('span', { class: 'warn' }, 'UpgradeWarning: ', warning.message) : null,
  );
}

function row(r, now, selected, onSelect) {
  const st = r.status;
  const obs = st?.observed;
  const drift = driftText(r);
  return h(
    'tr',
    {
      'data-id': r.id,
      class: selected ? 'selected' : undefined,
      'aria-selected': selected ? 'true' : 'false',
      onclick: () => onSelect(r.id),
    },
    h(
      'th',
      { scope: 'row', 'data-col': 'name' },
      h(
        'button',
        {
          type: 'button',
          class: 'row-link',
          'aria-controls': 'details',
          'aria-expanded': selected ? 'true' : 'false',
        },
        r.id,
      ),
    ),
    // The target's account beside its region when it is not CloudOrch's own.
    h('td', {}, r.spec.accountId ? `${r.spec.region} (${r.spec.accountId})` : r.spec.region),
    h('td', {}, obs?.version ?? '-'),
    h(
      'td',
      { class: 'num', 'data-col': 'nodes' },
      obs?.nodeCount === undefined ? '-' : String(obs.nodeCount),
    ),
    h('td', { class: 'num', 'data-col': 'pools' }, String(obs?.poolCount ?? r.desiredPools?.length ?? '-')),
    boolCell('ready', st, st?.ready),
    boolCell('synced', st, st?.synced),
    h('td', { class: `drift ${drift}`, 'data-col': 'drift' }, drift),
    h('td', { class: 'num' }, money(st?.estimatedMonthlyCost)),
    h('td', { class: 'num', title: r.createdAt }, age(r.createdAt, now)),
    reasonCell(r),
  );
}

/** Re-renders the table body, keeping keyboard focus on the row button it was on. */
export function renderTable(tbody, records, now, selectedId, onSelect) {
  const focused = document.activeElement?.closest?.('tr[data-id]')?.dataset.id;
  fill(
    tbody,
    records.map((r) => row(r, now, r.id === selectedId, onSelect)),
  );
  if (focused) tbody.querySelector(`tr[data-id="${CSS.escape(focused)}"] button`)?.focus();
}

function kv(pairs) {
  return h(
    'dl',
    { class: 'kv' },
    pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '-')]),
  );
}

function simpleTable(caption, headers, rows) {
  return h(
    'table',
    { class: 'sub' },
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((cells) =>
        h(
          'tr',
          {},
          cells.map((c) => h('td', {}, c ?? '-')),
        ),
      ),
    ),
  );
}

function section(title, ...body) {
  return h('section', { class: 'detail-part' }, h('h3', {}, title), ...body);
}

/** The cluster's own fields; the pools have their section. */
function desired(r) {
  const spec = r.spec;
  return kv([
    ['EKS name', spec.clusterName],
    ['Version', spec.kubernetesVersion],
    ['Pools', r.desiredPools ? String(r.desiredPools.length) : undefined],
    ['Deletion policy', spec.deletionPolicy],
    ['Adopt / paused', `${spec.adopt} / ${spec.paused}`],
  ]);
}

function observed(obs) {
  if (!obs) return h('p', { class: 'empty' }, 'Nothing observed yet.');
  return kv([
    ['Health', obs.health],
    ['Version', obs.version],
    ['Nodes (all node groups)', obs.nodeCount === undefined ? undefined : String(obs.nodeCount)],
    ['ARN', obs.arn],
    ['Endpoint', obs.endpoint],
  ]);
}

function plan(lastPlan) {
  if (!lastPlan) return h('p', { class: 'empty' }, 'No plan yet.');
  if (lastPlan.length === 0)
    return h('p', { class: 'empty' }, 'Nothing to do: the last plan had no operations.');
  return h(
    'ol',
    {},
    lastPlan.map((op) => h('li', {}, op)),
  );
}

function history(r) {
  const entries = [...(r.history ?? [])].reverse().slice(0, HISTORY_SHOWN);
  if (entries.length === 0) return h('p', { class: 'empty' }, 'No history yet.');
  const trimmed = (r.historyAppended ?? 0) - (r.history?.length ?? 0);
  return [
    simpleTable(
      `Newest first, ${entries.length} of ${r.history.length} kept`,
      ['AT', 'KIND', 'GEN', 'SUMMARY'],
      entries.map((e) => [clock(e.at), e.kind, String(e.generation), e.summary]),
    ),
    trimmed > 0 ? h('p', { class: 'note' }, `${trimmed} older entries were trimmed by the store.`) : null,
  ];
}

function conditions(st) {
  if (!st) return h('p', { class: 'empty' }, 'Not reconciled yet: no status.');
  return simpleTable(
    'Conditions',
    ['TYPE', 'STATUS', 'REASON', 'MESSAGE', 'SINCE', 'REMEDIATION'],
    st.conditions.map((c) => [
      c.type,
      c.status,
      c.reason,
      c.message,
      clock(c.lastTransitionTime),
      c.remediation,
    ]),
  );
}

function lastDrift(r) {
  const st = r.status;
  if (!st?.lastDrift?.length) return h('p', { class: 'empty' }, 'No drift found for this cluster.');
  return [
    simpleTable(
      `Drifted condition now: ${condition(r, 'Drifted')?.status ?? 'Unknown'}`,
      ['POOL', 'FIELD', 'WANT', 'FOUND'],
      st.lastDrift.map((d) => [driftPool(d.field), d.field, String(d.desired), String(d.observed)]),
    ),
  ];
}

function violations(st) {
  if (!st?.violations?.length) return h('p', { class: 'empty' }, st ? 'None.' : 'Not evaluated yet.');
  return simpleTable(
    'Violations',
    ['RULE', 'SEVERITY', 'MESSAGE'],
    st.violations.map((v) => [v.rule, v.severity, v.message]),
  );
}

function detailHead(r, onClose) {
  return h(
    'div',
    { class: 'detail-head' },
    h('h2', { id: 'details-h' }, r.id),
    h('button', { type: 'button', class: 'close', onclick: onClose, 'aria-label': 'Close details' }, 'Close'),
  );
}

/** Generations tell whether the status shown is about the current spec. */
function generationNote(r) {
  const st = r.status;
  return h(
    'p',
    { class: 'note' },
    `generation ${r.generation}, observed generation ${st?.observedGeneration ?? '-'}, status updated ${clock(st?.updatedAt)}`,
    r.deletionRequestedAt ? `, deletion requested ${clock(r.deletionRequestedAt)}` : '',
  );
}

/** The selected cluster: conditions, desired vs observed, pools, add-ons, access, last plan, last drift, violations, history. */
export function renderDetails(panel, r, onClose) {
  if (!r) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const st = r.status;
  fill(
    panel,
    detailHead(r, onClose),
    generationNote(r),
    section('Conditions', conditions(st)),
    h('div', { class: 'two' }, section('Desired', desired(r)), section('Observed', observed(st?.observed))),
    section('Node pools', pools(r)),
    h('div', { class: 'two' }, section('Add-ons', addons(r)), section('Access entries', access(r))),
    section('Last plan', plan(st?.lastPlan)),
    section('Last drift found', lastDrift(r)),
    section('Policy violations', violations(st)),
    section('Recent history', history(r)),
  );
}
