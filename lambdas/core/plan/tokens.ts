/**
 * Deterministic idempotency tokens. The SDK invents a random clientRequestToken per `send()` when
 * none is given, so a retried step would create twice; ours derive from (record, generation,
 * operation, target, value) and are the same on every retry of the same intent.
 */
import { createHash } from 'node:crypto';

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

/** The key under which successful applies of one operation on one target are counted. */
export function applyKey(kind: string, target: string): string {
  return `${kind}:${target}`;
}

/** A short stable hash for names. */
export function shortHash(parts: readonly string[], length = 6): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, length);
}
