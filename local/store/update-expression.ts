/**
 * The item after an UpdateItem, from the item before it and the update sent: how the local change
 * feed gets both stream images from one write (DynamoDB returns one image per write). Covers the
 * subset of the UpdateExpression grammar the store writes (`SET path = :v`, `SET #a = #a + :n` or
 * `- :n`, `REMOVE path`, paths of names and map members) and throws on anything else, so a new kind
 * of write fails loudly instead of feeding a wrong image.
 */
import type { StoredItem } from '../../lambdas/store/record.js';

export interface UpdateInput {
  readonly UpdateExpression?: string | undefined;
  readonly ExpressionAttributeNames?: Record<string, string> | undefined;
  readonly ExpressionAttributeValues?: Record<string, unknown> | undefined;
}

/** A write the local change feed cannot mirror exactly: refused rather than fed a wrong image. */
export class UnmirroredWriteError extends Error {
  override readonly name = 'UnmirroredWriteError';
}

type Item = Record<string, unknown>;

export function applyUpdate(before: StoredItem, input: UpdateInput): StoredItem {
  const resolve = resolver(input);
  const after: Item = { ...before };
  for (const [keyword, body] of clauses(input.UpdateExpression ?? '')) {
    for (const action of body.split(',').map((a) => a.trim())) {
      if (keyword === 'REMOVE') setPath(after, resolve.path(action), undefined);
      else {
        const [target, value] = action.split('=').map((s) => s.trim());
        if (!target || !value) throw new UnmirroredWriteError(`SET action "${action}"`);
        // Operands read the item as it was before the update, as DynamoDB evaluates them.
        setPath(after, resolve.path(target), operandValue(before, resolve, value));
      }
    }
  }
  return after;
}

/** `SET ... REMOVE ...` split by clause keyword, in either order. */
function clauses(expression: string): ['SET' | 'REMOVE', string][] {
  const parts = expression.split(/\b(SET|REMOVE)\b/).map((p) => p.trim());
  if (parts[0] !== '') throw new UnmirroredWriteError(`update expression "${expression}"`);
  const out: ['SET' | 'REMOVE', string][] = [];
  for (let i = 1; i < parts.length; i += 2) {
    out.push([parts[i] === 'SET' ? 'SET' : 'REMOVE', parts[i + 1] ?? '']);
  }
  return out;
}

interface Resolver {
  path(text: string): string[];
  value(placeholder: string): unknown;
}

function resolver(input: UpdateInput): Resolver {
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  return {
    path: (text) =>
      text.split('.').map((segment) => {
        const name = segment.startsWith('#') ? names[segment] : segment;
        if (!name || !/^#?\w+$/.test(segment)) throw new UnmirroredWriteError(`path "${text}"`);
        return name;
      }),
    value: (placeholder) => {
      if (!Object.hasOwn(values, placeholder)) throw new UnmirroredWriteError(`value ${placeholder}`);
      return values[placeholder];
    },
  };
}

/** `:v`, `path`, or `operand + operand` / `operand - operand` on numbers. */
function operandValue(item: StoredItem, resolve: Resolver, text: string): unknown {
  const sum = /^(.+?)\s*([+-])\s*(.+)$/.exec(text);
  if (sum) {
    const [a, b] = [operandValue(item, resolve, sum[1] ?? ''), operandValue(item, resolve, sum[3] ?? '')];
    if (typeof a !== 'number' || typeof b !== 'number')
      throw new UnmirroredWriteError(`"${text}" on non-numbers`);
    return sum[2] === '+' ? a + b : a - b;
  }
  if (text.startsWith(':')) return resolve.value(text);
  return getPath(item, resolve.path(text));
}

function getPath(item: StoredItem, path: readonly string[]): unknown {
  let at: unknown = item;
  for (const name of path) at = at !== null && typeof at === 'object' ? (at as Item)[name] : undefined;
  return at;
}

/** Sets (or, with undefined, removes) the attribute at `path`, copying the maps along it. */
function setPath(item: Item, path: readonly string[], value: unknown): void {
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
