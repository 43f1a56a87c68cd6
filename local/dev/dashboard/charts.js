/**
 * Inline SVG charts drawn from the API's figures. Every mark carries a <title> with its exact value,
 * and every chart has a text summary, so nothing depends on color or on reading a bar's length.
 */
import { clock, h, percentile, s, seconds } from './dom.js';

const BAR_W = 600;

/** Fill patterns so that segments differ without color: solid, hatched, crossed, dotted. */
const PATTERNS = {
  solid: null,
  hatch: (id) =>
    s(
      'pattern',
      { id, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      s('rect', { width: 6, height: 6, class: 'pat-bg' }),
      s('line', { x1: 0, y1: 0, x2: 0, y2: 6, class: 'pat-fg' }),
    ),
  cross: (id) =>
    s(
      'pattern',
      { id, width: 6, height: 6, patternUnits: 'userSpaceOnUse' },
      s('rect', { width: 6, height: 6, class: 'pat-bg' }),
      s('path', { d: 'M0 0L6 6M6 0L0 6', class: 'pat-fg' }),
    ),
  dots: (id) =>
    s(
      'pattern',
      { id, width: 5, height: 5, patternUnits: 'userSpaceOnUse' },
      s('rect', { width: 5, height: 5, class: 'pat-bg' }),
      s('circle', { cx: 2.5, cy: 2.5, r: 1.3, class: 'pat-fg' }),
    ),
};

function defsFor(prefix, series) {
  const defs = s('defs');
  for (const ser of series) {
    const make = PATTERNS[ser.pattern ?? 'solid'];
    if (!make) continue;
    const pattern = make(`${prefix}-${ser.key}`);
    pattern.setAttribute('class', `pat pat-${ser.key}`);
    defs.append(pattern);
  }
  return defs;
}

/** As an inline style: the stylesheet's fill would otherwise win over a fill attribute. */
const fillOf = (prefix, ser) =>
  ser.pattern && ser.pattern !== 'solid' ? `fill: url(#${prefix}-${ser.key})` : undefined;

function legend(prefix, series) {
  return h(
    'ul',
    { class: 'legend' },
    series.map((ser) => {
      const swatch = s(
        'svg',
        { width: 14, height: 14, viewBox: '0 0 14 14', 'aria-hidden': 'true' },
        defsFor(`${prefix}-lg`, [ser]),
        s('rect', {
          x: 0.5,
          y: 0.5,
          width: 13,
          height: 13,
          class: `seg seg-${ser.key}`,
          style: fillOf(`${prefix}-lg`, ser),
        }),
      );
      return h('li', {}, swatch, ser.label);
    }),
  );
}

/**
 * Horizontal bars, one row per label, split into the given series.
 * rows: [{ label, values: { [seriesKey]: number } }]; series: [{ key, label, pattern? }].
 */
export function bars({ id, title, rows, series, describe }) {
  const prefix = `p-${id}`;
  const labelW = 210;
  const barW = 190;
  const rowH = 22;
  const totals = rows.map((r) => series.reduce((n, ser) => n + (r.values[ser.key] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const height = rows.length * rowH + 4;
  // Drawn at its own pixel size (shrunk only when the panel is narrower) so labels stay legible.
  const svg = s(
    'svg',
    {
      viewBox: `0 0 ${BAR_W} ${height}`,
      width: BAR_W,
      height,
      role: 'img',
      'aria-label': title,
      'data-chart': id,
      class: 'chart-svg',
    },
    defsFor(prefix, series),
  );
  rows.forEach((r, i) => {
    const y = i * rowH + 2;
    const g = s(
      'g',
      { class: 'row' },
      s('text', { x: labelW - 8, y: y + 14, class: 'label', 'text-anchor': 'end' }, r.label),
    );
    let x = labelW;
    for (const ser of series) {
      const v = r.values[ser.key] ?? 0;
      if (v <= 0) continue;
      // Never thinner than 2 units: a single call must stay visible next to hundreds.
      const w = Math.max(2, (v / max) * barW);
      g.append(
        s(
          'rect',
          {
            x,
            y: y + 3,
            width: w,
            height: rowH - 8,
            class: `mark seg seg-${ser.key}`,
            style: fillOf(prefix, ser),
            'data-series': ser.key,
          },
          s('title', {}, `${r.label}: ${v} ${ser.label}`),
        ),
      );
      x += w;
    }
    g.append(
      s(
        'text',
        { x: x + 6, y: y + 14, class: 'value' },
        describe ? describe(r, totals[i]) : String(totals[i]),
      ),
    );
    svg.append(g);
  });
  return h('div', { class: 'chart' }, series.length > 1 ? legend(prefix, series) : null, svg);
}

/** The timeline's frame and scales: x maps an ISO time, y maps convergence seconds. */
function timelineGeometry(m) {
  const g = { W: 960, H: 190, left: 64, right: 16, laneY: 22, top: 52 };
  g.bottom = g.H - 30;
  const t0 = Date.parse(m.startedAt);
  const t1 = Math.max(Date.parse(m.now), t0 + 1000);
  g.x = (iso) => g.left + ((Date.parse(iso) - t0) / (t1 - t0)) * (g.W - g.left - g.right);
  g.maxS = Math.max(1, ...m.convergence.map((p) => p.seconds));
  g.y = (sec) => g.bottom - (sec / g.maxS) * (g.bottom - g.top);
  return g;
}

/** The empty chart: the drift lane, both axes and their labels. */
function timelineFrame(m, { W, H, left, right, laneY, bottom, top }) {
  return s(
    'svg',
    {
      viewBox: `0 0 ${W} ${H}`,
      role: 'img',
      'aria-label': 'Drift detections and time to converge over time',
      'data-chart': 'timeline',
      class: 'chart-svg',
    },
    s('text', { x: left - 8, y: laneY + 4, class: 'label', 'text-anchor': 'end' }, 'drift'),
    s('line', { x1: left, y1: laneY, x2: W - right, y2: laneY, class: 'lane' }),
    s('line', { x1: left, y1: bottom, x2: W - right, y2: bottom, class: 'axis' }),
    s('line', { x1: left, y1: top, x2: left, y2: bottom, class: 'axis' }),
    s('text', { x: left - 6, y: bottom + 4, class: 'label', 'text-anchor': 'end' }, '0 s'),
    s('text', { x: left, y: H - 10, class: 'label' }, clock(m.startedAt)),
    s('text', { x: W - right, y: H - 10, class: 'label', 'text-anchor': 'end' }, `${clock(m.now)} (now)`),
    s(
      'text',
      { x: (left + W - right) / 2, y: H - 10, class: 'label', 'text-anchor': 'middle' },
      'time to converge per change',
    ),
  );
}

/** One triangle on the drift lane per detection. */
function appendDriftMarks(svg, m, { x, left, laneY }) {
  if (m.drift.length === 0)
    svg.append(s('text', { x: left + 8, y: laneY - 6, class: 'empty' }, 'no drift detected yet'));
  for (const p of m.drift) {
    const px = x(p.at);
    svg.append(
      s(
        'path',
        {
          d: `M${px} ${laneY + 7}L${px - 6} ${laneY - 5}L${px + 6} ${laneY - 5}Z`,
          class: 'mark drift',
          'data-series': 'drift',
        },
        s('title', {}, `Drift detected at ${clock(p.at)}${p.value > 1 ? ` (${p.value})` : ''}`),
      ),
    );
  }
}

/** One stem per converged change, as tall as the seconds it took. */
function appendConvergenceMarks(svg, m, { x, y, left, top, bottom, maxS }) {
  // The scale's top is the slowest convergence; without one there is no scale to label.
  if (m.convergence.length > 0)
    svg.append(s('text', { x: left - 6, y: top + 4, class: 'label', 'text-anchor': 'end' }, seconds(maxS)));
  if (m.convergence.length === 0)
    svg.append(s('text', { x: left + 8, y: bottom - 8, class: 'empty' }, 'no convergence recorded yet'));
  for (const p of m.convergence) {
    const px = x(p.at);
    svg.append(
      s(
        'g',
        { class: 'mark converge', 'data-series': 'convergence' },
        s('line', { x1: px, y1: bottom, x2: px, y2: y(p.seconds), class: 'stem' }),
        s('rect', { x: px - 3.5, y: y(p.seconds) - 3.5, width: 7, height: 7, class: 'head' }),
        s('title', {}, `Converged at ${clock(p.at)} after ${seconds(p.seconds)}`),
      ),
    );
  }
}

/** The marks are told apart by shape as well as color. */
function timelineLegend() {
  const swatch = (mark) =>
    s('svg', { width: 14, height: 14, viewBox: '0 0 14 14', 'aria-hidden': 'true' }, mark);
  return h(
    'ul',
    { class: 'legend' },
    h('li', {}, swatch(s('path', { d: 'M7 13L1 2L13 2Z', class: 'drift' })), 'drift detected (triangle)'),
    h(
      'li',
      {},
      swatch(s('rect', { x: 3, y: 3, width: 8, height: 8, class: 'head' })),
      'a change converged: height is seconds (square)',
    ),
  );
}

/** A drift detection lane and convergence times on one time axis, from dev start to the server's now. */
export function timeline(m) {
  const g = timelineGeometry(m);
  const svg = timelineFrame(m, g);
  appendDriftMarks(svg, m, g);
  appendConvergenceMarks(svg, m, g);
  return h('div', { class: 'chart' }, timelineLegend(), svg);
}

/** One sentence per series of the timeline, with the same statistics as the CloudWatch widget. */
export function timelineSummary(m) {
  const drift = m.drift.reduce((n, p) => n + p.value, 0);
  const d =
    drift === 0
      ? 'No drift detected yet.'
      : `Drift detected ${drift} time${drift === 1 ? '' : 's'}, last at ${clock(m.drift.at(-1).at)}.`;
  const secs = m.convergence.map((p) => p.seconds);
  const c =
    secs.length === 0
      ? 'No change has converged yet.'
      : `${secs.length} change${secs.length === 1 ? '' : 's'} converged: p50 ${seconds(percentile(secs, 50))}, p90 ${seconds(percentile(secs, 90))}, max ${seconds(Math.max(...secs))}.`;
  return `${d} ${c}`;
}
