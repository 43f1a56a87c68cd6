/** The spec's identity: a re-apply of the same spec must hash the same whatever the key order. */
import { createHash } from 'node:crypto';
import type { CloudClusterSpec } from '../core/spec/schema.js';

/** JSON with object keys sorted at every level; `undefined` members are dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

export function specHash(spec: CloudClusterSpec): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}
