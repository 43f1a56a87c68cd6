/**
 * `-o jsonpath=TEMPLATE`: kubectl's text-template form, a documented subset of it. Supported:
 * - text outside braces, printed as it is;
 * - `{"text"}` (or single quotes), with `\n`, `\t`, `\\` and `\"` escapes;
 * - `{EXPR}`, a JSONPath expression from the printed object (`.metadata.name`, `$.items[*].spec`,
 *   `..name`, `[*]`, slices, unions and `?()` filters, evaluated by jsonpath-plus): several results
 *   are joined by a space, strings are printed bare, anything else as JSON; no result prints nothing;
 * - `{range EXPR}…{end}`, repeating its body for each result, in which `@` is that result.
 * Anything else between braces (`{else}`, a stray `{end}`, an unclosed `{`) is a JsonPathError.
 */
import { JSONPath } from 'jsonpath-plus';

export class JsonPathError extends Error {
  constructor(message: string) {
    super(`-o jsonpath: ${message}`);
    this.name = 'JsonPathError';
  }
}

type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'expr'; readonly path: string }
  | { readonly kind: 'range'; readonly path: string; readonly body: readonly Node[] };

export type Template = readonly Node[];

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'" };

function literal(body: string): string {
  return body.slice(1, -1).replace(/\\(.)/g, (m, c: string) => ESCAPES[c] ?? m);
}

/** A JSONPath expression for jsonpath-plus: kubectl's `.a` and `@.a` are both rooted at the value. */
function pathOf(expr: string): string {
  if (/^[.[]/.test(expr)) return `$${expr}`;
  if (expr.startsWith('@')) return `$${expr.slice(1)}`;
  if (expr.startsWith('$')) return expr;
  throw new JsonPathError(
    `{${expr}} is not supported (supported: {.path}, {@.path}, {"text"}, {range .path}…{end})`,
  );
}

/** The pieces between braces and around them, in order. */
function pieces(template: string): { text?: string; action?: string }[] {
  const out: { text?: string; action?: string }[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      out.push({ text: template.slice(i) });
      break;
    }
    if (open > i) out.push({ text: template.slice(i, open) });
    const quoted = /^\{\s*(["'])/.exec(template.slice(open));
    let close: number;
    if (quoted?.[1]) {
      const q = quoted[1];
      let j = open + quoted[0].length;
      while (j < template.length && template[j] !== q) j += template[j] === '\\' ? 2 : 1;
      close = template.indexOf('}', j);
    } else close = template.indexOf('}', open);
    if (close < 0) throw new JsonPathError(`unclosed { at character ${open + 1}`);
    out.push({ action: template.slice(open + 1, close).trim() });
    i = close + 1;
  }
  return out;
}

/** Parses a template; JsonPathError for anything outside the supported subset. */
export function parseTemplate(template: string): Template {
  const stack: { path: string; body: Node[] }[] = [{ path: '', body: [] }];
  const top = () => stack[stack.length - 1] as { path: string; body: Node[] };
  for (const p of pieces(template)) {
    if (p.text !== undefined) top().body.push({ kind: 'text', text: p.text });
    const a = p.action;
    if (a === undefined) continue;
    if (a === '') throw new JsonPathError('empty {}');
    if (/^["']/.test(a)) top().body.push({ kind: 'text', text: literal(a) });
    else if (a === 'end') {
      const done = stack.pop();
      if (!done || stack.length === 0) throw new JsonPathError('{end} without {range}');
      top().body.push({ kind: 'range', path: done.path, body: done.body });
    } else if (/^range\s/.test(a)) {
      const path = pathOf(a.slice(5).trim());
      stack.push({ path, body: [] });
    } else top().body.push({ kind: 'expr', path: pathOf(a) });
  }
  if (stack.length > 1) throw new JsonPathError('{range} without {end}');
  return top().body;
}

function evaluate(path: string, json: unknown): unknown[] {
  try {
    return JSONPath({ path, json: json as object, wrap: true, eval: 'safe' }) as unknown[];
  } catch (err) {
    throw new JsonPathError(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function run(nodes: Template, value: unknown): string {
  return nodes
    .map((n) => {
      if (n.kind === 'text') return n.text;
      const found = evaluate(n.path, value);
      if (n.kind === 'expr') return found.map(show).join(' ');
      return found.map((item) => run(n.body, item)).join('');
    })
    .join('');
}

/** The template applied to what `-o json` would print. */
export function renderTemplate(template: Template, value: unknown): string {
  return run(template, value);
}
