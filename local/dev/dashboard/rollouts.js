/**
 * The rollout panel: one card per rollout, its stages as lanes in order, each cluster a chip in its
 * stage's lane coloured by its state. A stage waiting for approval shows the exact command; a halt
 * shows the cluster and the reason; an aborted or halted rollout says clusters stay where they are.
 */
import { age, h } from './dom.js';

const STATE_TEXT = {
  pending: 'pending',
  inProgress: 'in progress',
  succeeded: 'succeeded',
  failed: 'failed',
  skipped: 'skipped',
  awaitingApproval: 'awaiting approval',
  soaking: 'soaking',
};

function lane(stage, approval, rolloutId) {
  const waits = approval && approval.stage === stage.name;
  return h(
    'div',
    { class: `stage-lane stage-${stage.state}`, 'data-stage': stage.name },
    h(
      'div',
      { class: 'stage-lane-head' },
      h('strong', {}, stage.name),
      ` ${STATE_TEXT[stage.state] ?? stage.state}`,
    ),
    h(
      'div',
      { class: 'stage-lane-meta' },
      `max ${stage.maxConcurrency} at once`,
      stage.soakSeconds > 0 ? `, soak ${stage.soakSeconds}s` : '',
      stage.approval !== 'none' ? `, approval ${stage.approval}` : '',
    ),
    waits
      ? h(
          'div',
          { class: 'stage-lane-approval' },
          'approve with ',
          h('code', {}, `cloudorch rollout approve ${rolloutId} --stage ${stage.name}`),
        )
      : null,
    h(
      'ul',
      { class: 'chips' },
      ...stage.clusters.map((c) =>
        h(
          'li',
          {
            class: `chip cluster-${c.state}`,
            title: c.reason ?? STATE_TEXT[c.state] ?? c.state,
            'data-cluster': c.id,
          },
          c.id,
        ),
      ),
    ),
  );
}

function card(r, now) {
  const s = r.status;
  const stopped = s && (s.phase === 'Halted' || s.phase === 'Aborted');
  return h(
    'article',
    { class: 'rollout', 'data-rollout': r.id },
    h(
      'header',
      {},
      h('strong', {}, r.id),
      ` generation ${r.generation} · `,
      h('span', { class: `phase phase-${s?.phase ?? 'NotStarted'}` }, s?.phase ?? 'not started'),
      ` · updated ${age(r.updatedAt, now)} ago`,
    ),
    s?.halt
      ? h('p', { class: 'bad' }, `halted${s.halt.cluster ? ` at ${s.halt.cluster}` : ''}: ${s.halt.reason}`)
      : null,
    stopped
      ? h('p', { class: 'muted' }, 'Clusters stay where they are: a Kubernetes version cannot go back.')
      : null,
    h('div', { class: 'lanes' }, ...(s?.stages ?? []).map((st) => lane(st, r.approval, r.id))),
  );
}

/** The rollout section's content from `/api/rollouts`. */
export function renderRollouts(box, data, now) {
  box.replaceChildren();
  if (data.rollouts.length === 0 && data.invalid.length === 0) {
    box.append(
      h(
        'p',
        { class: 'muted' },
        'No rollouts. Apply a CloudRollout (examples/rollout.yaml) to see one here.',
      ),
    );
    return;
  }
  for (const r of data.rollouts) box.append(card(r, now));
  if (data.invalid.length > 0)
    box.append(
      h(
        'div',
        { class: 'invalid' },
        h('strong', {}, 'Malformed rollout records (skipped):'),
        h('ul', {}, ...data.invalid.map((i) => h('li', {}, h('code', {}, i.id), `: ${i.reason}`))),
      ),
    );
  const notes = data.notifications.slice(-5).reverse();
  if (notes.length > 0)
    box.append(
      h(
        'details',
        { class: 'notifications' },
        h('summary', {}, `Notifications (${data.notifications.length})`),
        h('ul', {}, ...notes.map((n) => h('li', {}, `${n.at} ${n.subject}: ${n.message}`))),
      ),
    );
}
