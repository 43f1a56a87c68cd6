/** Fixtures for the store suites: specs, statuses and a deterministic way to make writes race. */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { applyOutcome, type ClusterStatus } from '../../lambdas/core/status.js';
import type { HistoryEntry } from '../../lambdas/store/types.js';

export { spec } from '../core/support/fixtures.js';

export const T0 = new Date('2026-01-01T00:00:00.000Z');

export function at(ms: number): Date {
  return new Date(T0.getTime() + ms);
}

export function uniqueId(prefix: string): string {
  return `${prefix}/${randomUUID().slice(0, 8)}`;
}

export function uniqueTable(): string {
  return `cloudorch-test-${randomUUID().slice(0, 8)}`;
}

export function convergedStatus(generation: number, now: Date = T0): ClusterStatus {
  return applyOutcome(undefined, { kind: 'Converged' }, { generation, now });
}

export function historyEntries(from: number, count: number): HistoryEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    at: at((from + i) * 1000).toISOString(),
    kind: 'status' as const,
    generation: 1,
    summary: `entry ${from + i}`,
  }));
}

/**
 * Runs `hook` once, right before the next UpdateItem that `client` sends, after the store's own
 * read: the same interleaving two concurrent writers can produce, made deterministic.
 */
export function beforeNextUpdate(client: DynamoDBClient, hook: () => Promise<unknown>): void {
  beforeNext(client, /^Update(Item)?Command$/, hook);
}

/** As beforeNextUpdate, for the next put (a claim write). */
export function beforeNextPut(client: DynamoDBClient, hook: () => Promise<unknown>): void {
  beforeNext(client, /^Put(Item)?Command$/, hook);
}

function beforeNext(client: DynamoDBClient, command: RegExp, hook: () => Promise<unknown>): void {
  let armed = true;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (armed && command.test(context.commandName ?? '')) {
        armed = false;
        await hook();
      }
      return next(args);
    },
    { step: 'initialize', name: `race-${randomUUID()}` },
  );
}
