/**
 * Which Kubernetes generation each record generation came from. The store counts its own
 * generations (bumped only on real spec changes), so the record's `observedGeneration` cannot be
 * copied to the CR as is. The mirror notes each pair it writes; status write-back translates through
 * it and waits rather than guess when a record generation is unknown (e.g. from before a restart).
 */
export interface GenerationPair {
  readonly recordGeneration: number;
  readonly crGeneration: number;
}

const KEEP = 16;

export class GenerationMap {
  private readonly pairs = new Map<string, { uid: string; list: GenerationPair[] }>();

  /** Notes that CR `uid` at `crGeneration` is record `recordGeneration`. */
  note(key: string, uid: string, pair: GenerationPair): void {
    const cur = this.pairs.get(key);
    const list =
      cur && cur.uid === uid ? cur.list.filter((p) => p.recordGeneration !== pair.recordGeneration) : [];
    list.push(pair);
    this.pairs.set(key, { uid, list: list.slice(-KEEP) });
  }

  /** The newest CR generation mirrored for this object, if any. */
  latest(key: string, uid: string): GenerationPair | undefined {
    const cur = this.pairs.get(key);
    return cur && cur.uid === uid ? cur.list.at(-1) : undefined;
  }

  crGeneration(key: string, uid: string, recordGeneration: number): number | undefined {
    const cur = this.pairs.get(key);
    if (!cur || cur.uid !== uid) return undefined;
    // A record generation can map to several CR generations (a no-op spec edit); the newest wins.
    return cur.list.filter((p) => p.recordGeneration === recordGeneration).at(-1)?.crGeneration;
  }

  forget(key: string): void {
    this.pairs.delete(key);
  }
}
