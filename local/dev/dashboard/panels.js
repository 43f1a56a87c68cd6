/**
 * The metric panels, one per CloudWatch dashboard widget (see docs/dashboard.md for the mapping).
 * Each takes the /api/metrics snapshot (and the records for the per-condition panel) and returns
 * the panel's body; an empty series says so instead of drawing zeros.
 */
import { bars, timeline, timelineSummary } from './charts.js';
import { clock, condition, h } from './dom.js';

const pct = (part, whole) =>
  whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(part * 100 < whole ? 1 : 0)}%`;
const empty = (text) => h('p', { class: 'empty' }, text);
const summary = (text) => h('p', { class: 'summary' }, text);
const single = (key, label) => [{ key, label }];
const counted = (totals) => Object.entries(totals).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

export function driftPanel(m) {
  return [timeline(m), summary(timelineSummary(m))];
}

const EKS_SERIES = [
  { key: 'succeeded', label: 'succeeded (2xx)' },
  { key: 'rejected', label: 'rejected by EKS (4xx)', pattern: 'hatch' },
  { key: 'throttled', label: 'throttled (429)', pattern: 'cross' },
  { key: 'serverErrors', label: 'server errors (5xx)', pattern: 'dots' },
];

export function eksPanel(m) {
  const ops = Object.entries(m.eksCalls).sort(
    (a, b) => b[1].requests - a[1].requests || a[0].localeCompare(b[0]),
  );
  if (ops.length === 0) return empty('No EKS API calls yet.');
  const total = (k) => ops.reduce((n, [, c]) => n + c[k], 0);
  const all = total('requests');
  return [
    bars({
      id: 'eks-calls',
      title: 'EKS API calls per operation, split by answer',
      rows: ops.map(([op, c]) => ({ label: op, values: c })),
      series: EKS_SERIES,
      describe: (r) =>
        `${r.values.requests}` +
        (r.values.rejected ? ` · ${r.values.rejected} 4xx` : '') +
        (r.values.throttled ? ` · ${r.values.throttled} throttled` : '') +
        (r.values.serverErrors ? ` · ${r.values.serverErrors} 5xx` : ''),
    }),
    summary(
      `${all} calls: ${total('throttled')} throttled (${pct(total('throttled'), all)}), ` +
        `${total('serverErrors')} server errors (${pct(total('serverErrors'), all)}), ` +
        `${total('rejected')} rejected with a 4xx (${pct(total('rejected'), all)}).`,
    ),
  ];
}

export function errorsPanel(m) {
  const kinds = counted(m.errorsByKind);
  if (kinds.length === 0) return empty('No reconcile errors recorded since dev started.');
  return [
    bars({
      id: 'errors',
      title: 'Reconcile errors by kind',
      rows: kinds.map(([k, v]) => ({ label: k, values: { n: v } })),
      series: single('n', 'errors'),
    }),
    summary(kinds.map(([k, v]) => `${k}: ${v}`).join(', ')),
  ];
}

export function executionsPanel(m) {
  const e = m.executions;
  const triggers = counted(m.executionsStartedByTrigger);
  return [
    bars({
      id: 'executions',
      title: 'Reconcile executions by result',
      rows: [
        ['started', e.started],
        ['succeeded', e.succeeded],
        ['failed', e.failed],
        ['timed out', e.timedOut],
        ['aborted', e.aborted],
        ['running now', e.running],
      ].map(([label, v]) => ({ label, values: { n: v } })),
      series: single('n', 'executions'),
    }),
    triggers.length === 0
      ? empty('No execution started yet.')
      : bars({
          id: 'triggers',
          title: 'Executions started by trigger',
          rows: triggers.map(([k, v]) => ({ label: `started by ${k}`, values: { n: v } })),
          series: single('n', 'executions'),
        }),
    summary(
      `${e.started} started, ${e.succeeded} succeeded, ${e.failed} failed, ${e.timedOut} timed out, ${e.aborted} aborted, ${e.running} running.`,
    ),
  ];
}

export function policyPanel(m) {
  const p = m.policy;
  const ok = p.status === 'ok';
  return [
    h(
      'p',
      { class: 'big' },
      h('span', { class: 'figure', 'data-figure': 'policy-denials' }, String(m.policyDenials)),
      ` polic${m.policyDenials === 1 ? 'y denial' : 'y denials'}`,
    ),
    h(
      'dl',
      { class: 'kv' },
      h('dt', {}, 'Policy engine'),
      h(
        'dd',
        { class: ok ? 'ok' : 'bad' },
        ok ? 'ok' : `${p.status}: nothing is applied until the bundle loads`,
      ),
      h('dt', {}, 'Bundle'),
      h('dd', {}, p.bundleVersion ?? '-'),
      h('dt', {}, 'Loaded'),
      h('dd', {}, clock(p.loadedAt)),
      h('dt', {}, 'Evaluation errors'),
      h('dd', {}, String(p.evaluationErrors ?? 0)),
    ),
  ];
}

export function outcomesPanel(m) {
  const rows = counted(m.outcomes);
  if (rows.length === 0) return empty('No reconcile step has finished yet.');
  return bars({
    id: 'outcomes',
    title: 'Reconcile outcomes',
    rows: rows.map(([k, v]) => ({ label: k, values: { n: v } })),
    series: single('n', 'steps'),
  });
}

/** Clusters grouped by their Ready condition's reason: the local form of "Clusters by last outcome". */
export function conditionsPanel(records) {
  if (records.length === 0) return empty('No clusters yet.');
  const byReason = {};
  for (const r of records) {
    const c = condition(r, 'Ready');
    const key = c ? `Ready ${c.status}: ${c.reason}` : 'no status yet';
    byReason[key] = (byReason[key] ?? 0) + 1;
  }
  const drifted = records.filter((r) => condition(r, 'Drifted')?.status === 'True').length;
  const denied = records.filter((r) => condition(r, 'PolicyCompliant')?.status === 'False').length;
  return [
    bars({
      id: 'conditions',
      title: 'Clusters by Ready reason',
      rows: counted(byReason).map(([k, v]) => ({ label: k, values: { n: v } })),
      series: single('n', 'clusters'),
    }),
    summary(`${records.length} clusters: ${drifted} drifted now, ${denied} not policy compliant.`),
  ];
}
