/**
 * Label selectors (`-l`), kubectl's syntax: comma-separated terms, all of which must hold:
 * `key=value` (or `==`), `key!=value`, `key`, `!key`, `key in (a,b)`, `key notin (a,b)`.
 * As in Kubernetes, `!=` and `notin` also match a record without the key. Keys and values follow
 * the label rules (core/labels.ts). `key>1` and `key<1` (kubectl's numeric comparisons, meant for
 * node affinity) are refused, never ignored. An empty (or blank) selector selects everything, as in
 * kubectl, so scripts can pass `-l "$SEL"`; `delete` refuses it (lifecycle.ts).
 */
import { type Labels, labelKeyProblem, labelValueProblem } from '../../lambdas/core/labels.js';

export type Requirement =
  | { readonly key: string; readonly op: 'exists' }
  | { readonly key: string; readonly op: 'absent' }
  | { readonly key: string; readonly op: 'in' | 'notin'; readonly values: readonly string[] };

export type Selector = readonly Requirement[];

/** A selector that does not parse; `term` is the one at fault, as written. */
export class SelectorError extends Error {
  constructor(
    readonly term: string,
    reason: string,
  ) {
    super(`-l: term ${JSON.stringify(term)}: ${reason}`);
    this.name = 'SelectorError';
  }
}

/** Splits on commas outside parentheses (`a in (x,y),b` is two terms). */
function terms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((t) => t.trim());
}

function key(term: string, k: string): string {
  const problem = labelKeyProblem(k);
  if (problem) throw new SelectorError(term, problem);
  return k;
}

function value(term: string, v: string): string {
  const problem = labelValueProblem(v);
  if (problem) throw new SelectorError(term, problem);
  return v;
}

const SET = /^(\S+)\s+(in|notin)\s*\((.*)\)$/;
const EQUALITY = /^([^\s=!]+)\s*(==|=|!=)\s*(\S*)$/;

function requirement(term: string): Requirement {
  if (term === '') throw new SelectorError(term, 'empty term (a comma too many?)');
  const set = SET.exec(term);
  if (set) {
    const values = (set[3] ?? '').split(',').map((v) => value(term, v.trim()));
    if (values.length === 1 && values[0] === '') throw new SelectorError(term, 'the set of values is empty');
    return { key: key(term, set[1] ?? ''), op: set[2] === 'in' ? 'in' : 'notin', values };
  }
  const eq = EQUALITY.exec(term);
  if (eq) {
    const v = value(term, eq[3] ?? '');
    return { key: key(term, eq[1] ?? ''), op: eq[2] === '!=' ? 'notin' : 'in', values: [v] };
  }
  if (/^[^\s=!<>()]+\s*[<>]/.test(term))
    throw new SelectorError(term, 'numeric comparisons (< and >) are not supported');
  if (term.startsWith('!')) return { key: key(term, term.slice(1).trim()), op: 'absent' };
  if (/^[^\s=!<>(),]+$/.test(term)) return { key: key(term, term), op: 'exists' };
  throw new SelectorError(term, 'expected key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)');
}

/** Parses a selector; SelectorError names the first term that does not parse. */
export function parseSelector(text: string): Selector {
  if (text.trim() === '') return [];
  return terms(text).map(requirement);
}

export function matches(selector: Selector, labels: Labels): boolean {
  return selector.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    if (r.op === 'exists') return has;
    if (r.op === 'absent') return !has;
    const inSet = has && r.values.includes(labels[r.key] ?? '');
    return r.op === 'in' ? inSet : !inSet;
  });
}
