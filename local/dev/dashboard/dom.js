/**
 * DOM and formatting helpers. Text always goes in through textContent, never innerHTML: cluster
 * names, messages and tags come from specs that anyone with apply rights can write.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Appends children (nodes, strings, or nothing) to a node. */
function append(node, children) {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(typeof c === 'string' || typeof c === 'number' ? String(c) : c);
  }
  return node;
}

function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.setAttribute('class', v);
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  return node;
}

/** An HTML element: h('td', { class: 'num' }, '42'). */
export function h(tag, attrs, ...children) {
  return append(setAttrs(document.createElement(tag), attrs), children);
}

/** An SVG element, same shape as h(). */
export function s(tag, attrs, ...children) {
  return append(setAttrs(document.createElementNS(SVG_NS, tag), attrs), children);
}

/** Replaces a node's children. */
export function fill(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** Same thresholds as the CLI's AGE column, measured against the server's clock. */
export function age(from, now) {
  if (!from) return '-';
  const sec = Math.max(0, Math.floor((Date.parse(now) - Date.parse(from)) / 1000));
  if (sec < 120) return `${sec}s`;
  if (sec < 7200) return `${Math.floor(sec / 60)}m`;
  if (sec < 172_800) return `${Math.floor(sec / 3600)}h`;
  return `${Math.floor(sec / 86_400)}d`;
}

/** HH:MM:SS in the browser's time zone. */
export function clock(iso) {
  return iso ? new Date(iso).toLocaleTimeString([], { hour12: false }) : '-';
}

export function seconds(v) {
  return `${v < 10 ? v.toFixed(2) : v.toFixed(1)} s`;
}

export function money(v) {
  return v === undefined || v === null ? '-' : `$${v.toFixed(2)}`;
}

/** Nearest-rank percentile of a non-empty list. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function condition(record, type) {
  return record.status?.conditions.find((c) => c.type === type);
}

/** "yes" / "no" / "-" from the Drifted condition, as the CLI prints it. */
export function driftText(record) {
  const st = condition(record, 'Drifted')?.status;
  return st === 'True' ? 'yes' : st === 'False' ? 'no' : '-';
}
