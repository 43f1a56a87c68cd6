/** Every record, page by page (one scan segment): for the CLI and the local dashboard, not the sweep. */
import type { ClusterRecord, DesiredStateStore } from './types.js';

export async function listAll(store: Pick<DesiredStateStore, 'scanSegment'>): Promise<ClusterRecord[]> {
  const all: ClusterRecord[] = [];
  let next: string | undefined;
  do {
    const page = await store.scanSegment(0, 1, next ? { next } : {});
    all.push(...page.records);
    next = page.next;
  } while (next);
  return all.sort((a, b) => a.id.localeCompare(b.id));
}
