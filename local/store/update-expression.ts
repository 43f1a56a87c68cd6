/**
 * The item after an UpdateItem, from the item before it and the update sent: how the local change
 * feed gets both stream images from one write (DynamoDB returns one image per write). Covers the
 * subset of the UpdateExpression grammar the store writes (`SET path = :v`, `SET #a = #a + :n` or
 * `- :n`, `REMOVE path`, paths of names and map members). `parseUpdate` refuses anything else before
 * the write is sent, so a new kind of write fails loudly instead of landing with a wrong image.
 */
import { CloudOrchError } from '../../lambdas/core/errors.js';
import type { StoredItem } from '../../lambdas/store/record.js';

export interface UpdateInput {
  readonly UpdateExpression?: string | undefined;
  readonly ExpressionAttributeNames?: Record<string, string> | undefined;
  readonly ExpressionAttributeValues?: Record<string, unknown> | undefined;
}

/** A write the local change feed cannot mirror exactly: refused rather than fed a wrong image. */
export class UnmirroredWriteError extends CloudOrchError {
  override readonly name = 'UnmirroredWriteError';
  readonly kind = 'Internal';
  readonly remediation =
    'The store sent a write the local change feed does not model: teach local/store/update-expression.ts (or write-tap.ts) that write.';
}

type Path = readonly string[];
type Operand =
  | { readonly value: unknown }
  | { readonly path: Path }
  | { readonly op: '+' | '-'; readonly a: Operand; readonly b: Operand };
export type UpdateAction = { readonly set: Path; readonly to: Operand } | { readonly remove: Path };

type Item = Record<string, unknown>;

/** The update's actions with names and values resolved; UnmirroredWriteError outside the subset. */
export function parseUpdate(input: UpdateInput): UpdateAction[] {
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const path = (text: string): Path =>
    text.split('.').map((segment) => {
      const name = segment.startsWith('#') ? names[segment] : segment;
      if (!name || !/^#?\w+$/.test(segment)) throw new UnmirroredWriteError(`path "${text}"`);
      return name;
    });
  const operand = (text: string): Operand => {
    const sum = /^(.+?)\s*([+-])\s*(.+)$/.exec(text);
    if (sum) return { op: sum[2] === '+' ? '+' : '-', a: operand(sum[1] ?? ''), b: operand(sum[3] ?? '') };
    if (!text.startsWith(':')) return { path: path(text) };
    if (!Object.hasOwn(values, text)) throw new UnmirroredWriteError(`value ${text}`);
    return { value: values[text] };
  };
  const actions: UpdateAction[] = [];
  for (const [keyword, body] of clauses(input.UpdateExpression ?? '')) {
    for (const action of body.split(',').map((a) => a.trim())) {
      if (keyword === 'REMOVE') {
        actions.push({ remove: path(action) });
        continue;
      }
      const [target, value, extra] = action.split('=').map((s) => s.trim());
      if (!target || !value || extra !== undefined) throw new UnmirroredWriteError(`SET action "${action}"`);
      actions.push({ set: path(target), to: operand(value) });
    }
  }
  return actions;
}

/**
 * Applies parsed actions to the item before the write. Operands read the item as it was, as
 * DynamoDB evaluates them; a write DynamoDB accepted has valid paths and numeric sums.
 */
export function applyUpdate(before: StoredItem, actions: readonly UpdateAction[]): StoredItem {
  const after: Item = { ...before };
  for (const a of actions) {
    if ('remove' in a) setPath(after, a.remove, undefined);
    else setPath(after, a.set, evaluate(before, a.to));
  }
  return after;
}

/** `SET ... REMOVE ...` split by clause keyword, in either order. */
function clauses(expression: string): ['SET' | 'REMOVE', string][] {
  const parts = expression.split(/\b(SET|REMOVE)\b/).map((p) => p.trim());
  if (parts[0] !== '') throw new UnmirroredWriteError(`update expression "${expression}"`);
  const out: ['SET' | 'REMOVE', string][] = [];
  for (let i = 1; i < parts.length; i += 2)
    out.push([parts[i] === 'SET' ? 'SET' : 'REMOVE', parts[i + 1] ?? '']);
  return out;
}

function evaluate(item: StoredItem, o: Operand): unknown {
  if ('value' in o) return o.value;
  if ('path' in o) {
    let at: unknown = item;
    for (const name of o.path) at = at !== null && typeof at === 'object' ? (at as Item)[name] : undefined;
    return at;
  }
  const [a, b] = [evaluate(item, o.a), evaluate(item, o.b)];
  if (typeof a !== 'number' || typeof b !== 'number')
    throw new UnmirroredWriteError(`${o.op} on non-numbers`);
  return o.op === '+' ? a + b : a - b;
}

/** Sets (or, with undefined, removes) the attribute at `path`, copying the maps along it. */
function setPath(item: Item, path: Path, value: unknown): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    if (value === undefined) delete item[head];
    else item[head] = value;
    return;
  }
  const child = item[head];
  if (child === null || typeof child !== 'object' || Array.isArray(child))
    throw new UnmirroredWriteError(`path ${path.join('.')}: ${head} is not a map`);
  const copy: Item = { ...(child as Item) };
  setPath(copy, rest, value);
  item[head] = copy;
}
