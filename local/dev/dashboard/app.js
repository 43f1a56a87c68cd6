/**
 * Polls the dev server's read-only JSON API and redraws. One request pair at a time: the next poll
 * is scheduled only after the previous one finished, so a slow server is never flooded.
 */
import { renderDetails, renderTable } from './clusters.js';
import { clock, fill, h } from './dom.js';
import {
  conditionsPanel,
  driftPanel,
  eksPanel,
  errorsPanel,
  executionsPanel,
  outcomesPanel,
  policyPanel,
} from './panels.js';
import { renderRollouts } from './rollouts.js';

const POLL_MS = 1500;
const $ = (id) => document.getElementById(id);

const state = {
  /** The selected cluster id, kept in the URL hash so a reload or a shared link keeps it. */
  selected: decodeURIComponent(location.hash.replace(/^#cluster=/, '')) || undefined,
  records: [],
  metrics: undefined,
  /** The details panel is redrawn only when its record changed, so a reader's text selection survives polls. */
  detailsKey: '',
};

async function getJson(path) {
  const res = await fetch(path, { cache: 'no-store' });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}

function select(id) {
  state.selected = state.selected === id ? undefined : id;
  history.replaceState(
    null,
    '',
    state.selected ? `#cluster=${encodeURIComponent(state.selected)}` : location.pathname,
  );
  render();
  if (state.selected) $('details').scrollIntoView({ block: 'nearest' });
}

function render() {
  const m = state.metrics;
  if (!m) return;
  const records = state.records;
  $('clusters-empty').hidden = records.length > 0;
  $('clusters').hidden = records.length === 0;
  renderTable($('clusters-body'), records, m.now, state.selected, select);
  const chosen = records.find((r) => r.id === state.selected);
  const key = chosen ? JSON.stringify(chosen) : '';
  if (key !== state.detailsKey) {
    state.detailsKey = key;
    renderDetails($('details'), chosen, () => select(state.selected));
  }
  fill($('panel-drift-body'), driftPanel(m));
  fill($('panel-eks-body'), eksPanel(m));
  fill($('panel-errors-body'), errorsPanel(m));
  fill($('panel-executions-body'), executionsPanel(m));
  fill($('panel-policy-body'), policyPanel(m));
  fill($('panel-outcomes-body'), outcomesPanel(m));
  fill($('panel-conditions-body'), conditionsPanel(records));
}

/** Items that do not parse as records: listed with why, never hidden, never breaking the page. */
function renderInvalid(items) {
  const box = $('clusters-invalid');
  box.hidden = items.length === 0;
  fill(
    box,
    ...(items.length === 0
      ? []
      : [
          h('strong', {}, `${items.length} malformed record${items.length === 1 ? '' : 's'} (skipped):`),
          h('ul', {}, ...items.map((i) => h('li', {}, h('code', {}, i.id), `: ${i.reason}`))),
        ]),
  );
}

async function poll() {
  try {
    const [records, metrics, invalid, rollouts] = await Promise.all([
      getJson('/api/clusters'),
      getJson('/api/metrics'),
      getJson('/api/invalid'),
      getJson('/api/rollouts'),
    ]);
    state.records = records;
    state.metrics = metrics;
    render();
    renderInvalid(invalid);
    renderRollouts($('rollouts'), rollouts, metrics.now);
    $('conn').textContent =
      `Live: updated ${clock(metrics.now)}, dev running since ${clock(metrics.startedAt)}.`;
    $('conn').className = 'live';
    document.body.dataset.loaded = 'true';
  } catch (err) {
    // Keep the last figures on screen and say how old they are; never blank them or guess.
    const last = state.metrics ? `showing data from ${clock(state.metrics.now)}` : 'no data yet';
    $('conn').textContent =
      `Cannot reach cloudorch dev (${err instanceof Error ? err.message : String(err)}); ${last}. Retrying.`;
    $('conn').className = 'down';
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

poll();
