/**
 * Bounded history with repeats folded: a run that writes exactly what the previous run wrote (a
 * cluster denied or failing the same way every retry) bumps the count and last-seen time of the
 * entries already there instead of filling the list with copies.
 */
import { HISTORY_LIMIT, type HistoryEntry } from './types.js';

/** Entries are the same event when all but their times, execution and count agree. */
function sameEvent(a: HistoryEntry, b: HistoryEntry): boolean {
  return (
    a.kind === b.kind &&
    a.generation === b.generation &&
    a.summary === b.summary &&
    a.operation === b.operation
  );
}

function bump(prev: HistoryEntry, next: HistoryEntry): HistoryEntry {
  const lastExecutionId = next.lastExecutionId ?? next.executionId;
  return {
    ...prev,
    count: (prev.count ?? 1) + (next.count ?? 1),
    lastAt: next.lastAt ?? next.at,
    // The newest run is the one worth reading (`cloudorch describe` shows its execution).
    ...(lastExecutionId ? { lastExecutionId } : {}),
  };
}

/** Folds repeats inside the batch, then the whole batch into the tail it repeats; keeps the newest. */
export function foldHistory(
  history: readonly HistoryEntry[],
  batch: readonly HistoryEntry[],
): HistoryEntry[] {
  const folded: HistoryEntry[] = [];
  for (const e of batch) {
    const last = folded[folded.length - 1];
    if (last && sameEvent(last, e)) folded[folded.length - 1] = bump(last, e);
    else folded.push(e);
  }
  const tail = history.slice(-folded.length);
  const repeats =
    folded.length > 0 && tail.length === folded.length && tail.every((e, i) => sameEvent(e, folded[i]!));
  const out = repeats
    ? [...history.slice(0, -folded.length), ...tail.map((e, i) => bump(e, folded[i]!))]
    : [...history, ...folded];
  return out.slice(-HISTORY_LIMIT);
}
