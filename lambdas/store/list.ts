/** Every item, page by page (one scan segment): for the CLI and the local dashboard, not the sweep. */
import type { InvalidItem } from './record.js';
import type { ClusterRecord, DesiredStateStore } from './types.js';

export interface Listing {
  readonly records: ClusterRecord[];
  /** Items that do not parse as records, each with why (shown, never hidden). */
  readonly invalid: InvalidItem[];
}

export async function listItems(store: Pick<DesiredStateStore, 'scanSegment'>): Promise<Listing> {
  const records: ClusterRecord[] = [];
  const invalid: InvalidItem[] = [];
  let next: string | undefined;
  do {
    const page = await store.scanSegment(0, 1, next ? { next } : {});
    records.push(...page.records);
    invalid.push(...page.invalid);
    next = page.next;
  } while (next);
  records.sort((a, b) => a.id.localeCompare(b.id));
  invalid.sort((a, b) => a.id.localeCompare(b.id));
  return { records, invalid };
}

export async function listAll(store: Pick<DesiredStateStore, 'scanSegment'>): Promise<ClusterRecord[]> {
  return (await listItems(store)).records;
}
