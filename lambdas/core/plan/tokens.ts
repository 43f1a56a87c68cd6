/**
 * Deterministic idempotency tokens. The SDK invents a random clientRequestToken per `send()` when
 * none is given, so a retried step would create twice; ours derive from (record, generation,
 * operation, target, value) and are the same on every retry of the same intent.
 */
import { createHash } from 'node:crypto';
import type { Desired } from './types.js';

export function idempotencyToken(
  recordId: string,
  generation: number,
  kind: string,
  target: string,
  value: string,
  attempt = 0,
): string {
  const h = createHash('sha256')
    .update(JSON.stringify([recordId, generation, kind, target, value, attempt]))
    .digest('hex');
  // EKS accepts tokens of this shape; 40 hex chars keep it well under any length limit.
  return `co-${h.slice(0, 40)}`;
}

/** The resource an operation acts on: a node group, add-on or access entry of a cluster, or the cluster. */
interface Targeted {
  readonly clusterName: string;
  readonly nodegroupName?: string;
  readonly addonName?: string;
  readonly principalArn?: string;
}

/** What a token is derived from and applies are counted by. */
interface TokenBearing extends Targeted {
  readonly kind: string;
}

/** The key under which successful applies of one operation on one target are counted. */
export function applyKey(kind: string, target: string): string {
  return `${kind}:${target}`;
}

/**
 * The resource a token-bearing operation acts on: its node group, add-on or access entry, else its cluster. The planner
 * derives tokens from it and WriteStatus counts applies under it, so both read this one rule: if
 * they disagreed, a re-create after a vanished resource would silently reuse a spent token.
 */
export function tokenTarget(op: Targeted): string {
  if (op.addonName !== undefined) return `addon/${op.addonName}`;
  if (op.principalArn !== undefined) return `access/${op.principalArn}`;
  return op.nodegroupName ?? op.clusterName;
}

/** Whether any operation of this kind, on any target, is among the counted applies. */
export function appliedAnyOf(counts: Readonly<Record<string, number>>, kind: string): boolean {
  const prefix = applyKey(kind, '');
  return Object.keys(counts).some((k) => k.startsWith(prefix));
}

/** Where the successful applies of this operation are counted (see `Desired.applied`). */
export function applyKeyOf(op: TokenBearing): string {
  return applyKey(op.kind, tokenTarget(op));
}

/** An operation with its token: the same intent (record, generation, target, value) gets the same one. */
export function withToken<Op extends TokenBearing>(
  d: Desired,
  op: Op,
  value: string,
): Op & { readonly clientRequestToken: string } {
  const attempt = d.applied?.[applyKeyOf(op)] ?? 0;
  const token = idempotencyToken(d.id, d.generation, op.kind, tokenTarget(op), value, attempt);
  return { ...op, clientRequestToken: token };
}

/** A short stable hash for names. */
export function shortHash(parts: readonly string[], length = 6): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, length);
}
