/** Bounded concurrency over a list, in its order. */

/**
 * Runs `f` over `items` with at most `concurrency` in flight, taking items strictly in order. With
 * `open`, no item is taken once it answers false (those in flight finish): the items taken are then
 * always a prefix of the list. Returns how many were taken.
 */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  f: (t: T) => Promise<void>,
  open: () => boolean = () => true,
): Promise<number> {
  let i = 0;
  const workers = Array.from({ length: Math.min(Math.max(1, concurrency), items.length) }, async () => {
    while (i < items.length && open()) {
      const item = items[i++] as T;
      await f(item);
    }
  });
  await Promise.all(workers);
  return i;
}
