/** What every operation handler receives, and the small parsing helpers they share. */
import type { Caller } from './accounts.js';
import { SimError } from './model.js';
import { invalidParameter } from './rules.js';
import type { SimState } from './state.js';

export interface Req {
  readonly state: SimState;
  readonly region: string;
  /** The signer: its account holds every resource the request names. */
  readonly caller: Caller;
  /** Path labels, already URL-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: Readonly<Record<string, unknown>>;
}

export type Handler = (r: Req) => unknown;

export function param(r: Req, key: string): string {
  const v = r.params[key];
  if (v === undefined) throw new Error(`route lacks label ${key}`);
  return v;
}

export function optionalString(body: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidParameter(`${key} must be a string`); // [sim]
  return v;
}

export function stringMap(v: unknown, key: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParameter(`${key} must be a map`); // [sim]
  return { ...(v as Record<string, string>) };
}

export function stringList(v: unknown, key: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    throw invalidParameter(`${key} must be a list of strings`); // [sim]
  }
  return [...(v as string[])];
}

/** Idempotency-token scope: the same token means the same request only for the same operation and target. */
export function tokenKey(r: Req, op: string, target: string): string | undefined {
  const token = optionalString(r.body, 'clientRequestToken');
  return token === undefined ? undefined : `${r.caller.account}|${r.region}|${op}|${target}|${token}`;
}

export function fingerprint(r: Req): string {
  const { clientRequestToken: _t, ...rest } = r.body;
  return JSON.stringify([r.params, rest]);
}

/** `maxResults` 1-100 (default 100) and an opaque `nextToken`, as ListClusters/ListNodegroups/ListUpdates. */
export function page<T>(items: readonly T[], query: URLSearchParams): { items: T[]; nextToken?: string } {
  const raw = query.get('maxResults');
  const max = raw === null ? 100 : Number(raw);
  if (!Number.isInteger(max) || max < 1 || max > 100) {
    throw invalidParameter('maxResults must be between 1 and 100'); // [sim]
  }
  const token = query.get('nextToken');
  let start = 0;
  if (token !== null) {
    start = Number(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Number.isInteger(start) || start < 0 || start > items.length) {
      throw new SimError(400, 'InvalidParameterException', 'The nextToken is not valid'); // [sim]
    }
  }
  const slice = items.slice(start, start + max);
  const next = start + max;
  return next < items.length
    ? { items: slice, nextToken: Buffer.from(String(next), 'utf8').toString('base64url') }
    : { items: slice };
}
