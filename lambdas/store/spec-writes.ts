/**
 * The spec writer's write (`cloudorch apply`, the bridge): claim the target, then create or update
 * the record under optimistic concurrency on `version`, then give up a target the spec moved away
 * from.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Labels } from '../core/labels.js';
import { appliedAnyOf } from '../core/plan/tokens.js';
import type { CloudClusterSpec } from '../core/spec/schema.js';
import { validateSpec } from '../core/spec/validate.js';
import { ownedArnOf } from '../core/status.js';
import { claimTarget, releaseClaim } from './claim-store.js';
import { claimId, describeTarget } from './claims.js';
import { ConflictError, DeletionInProgressError, TargetChangeError } from './errors.js';
import { asStored, isConditionFailure, readParsed, readRecord, type Table, updateAndRead } from './items.js';
import { reconcileLabels } from './label-writes.js';
import { toRecord } from './record.js';
import { specHash } from './spec-hash.js';
import type { ApplyResult, ClusterRecord, RolloutMark } from './types.js';
import type { Mutation } from './update.js';

export interface ApplyOptions {
  readonly expectedVersion?: number;
  readonly now?: Date;
  /** The record's labels after the write; absent: left as they are. */
  readonly labels?: Labels;
  /** A rollout writes the change: recorded on the record. Any other spec write removes the mark. */
  readonly rollout?: RolloutMark;
}

/** The spec write, then the labels' (only when they differ): a label change bumps no generation. */
export async function applySpec(
  t: Table,
  id: string,
  spec: CloudClusterSpec,
  opts: ApplyOptions,
): Promise<ApplyResult> {
  const r = await applySpecOnly(t, id, spec, opts);
  if (opts.labels === undefined) return r;
  const l = await reconcileLabels(t, r.record, opts.labels);
  return { ...r, record: l.record, labelsChanged: l.changed };
}

/**
 * Whether the record already holds this spec. A record written before node pools holds the flat form
 * (and its hash); the same spec applied now arrives normalised, so the stored spec is compared
 * normalised too: re-applying an unchanged file after an upgrade writes nothing and starts no run.
 */
function sameSpec(current: ClusterRecord, hash: string): boolean {
  if (current.specHash === hash) return true;
  const stored = validateSpec(current.spec);
  return stored.ok && specHash(stored.spec) === hash;
}

async function applySpecOnly(
  t: Table,
  id: string,
  spec: CloudClusterSpec,
  opts: ApplyOptions,
): Promise<ApplyResult> {
  const hash = specHash(spec);
  const expected = opts.expectedVersion;
  const current = await readRecord(t, id);
  if (current?.deletionRequestedAt) throw new DeletionInProgressError(`${id}: deletion was requested`);
  // A record that does not exist has version 0: expectedVersion 0 means "create only".
  if (expected !== undefined && (current?.version ?? 0) !== expected) {
    throw new ConflictError(
      `${id}: expected version ${expected}, ${current ? `found ${current.version}` : 'but there is no record'}`,
    );
  }
  if (current && sameSpec(current, hash))
    return { record: current, changed: false, created: false, labelsChanged: false };
  const moved = current !== undefined && claimId(current.spec) !== claimId(spec);
  // A record that has (or may have) created or owned its cluster cannot point at another one:
  // that would orphan the first.
  const owned = moved ? mayOwnCluster(current) : undefined;
  if (moved && owned)
    throw new TargetChangeError(
      `${id}: manages cluster ${describeTarget(current.spec)} (${owned}); a record's cluster cannot be renamed or moved. Delete the record (deletionPolicy Retain keeps the cluster) and apply a new one.`,
    );
  // The target first: a record is written only once its cluster is known to be nobody else's.
  const took = await claimTarget(t, spec, id, opts.now ?? new Date());
  try {
    const result = current
      ? await updateSpec(t, id, current, spec, hash, expected, opts.rollout)
      : await createRecord(t, id, spec, hash, expected, opts);
    if (moved) await releaseClaim(t, current.spec, id);
    return result;
  } catch (err) {
    // Nothing of this write landed: a claim it took is given back, unless a concurrent write of the
    // same record (which shares the holder id) now names that target and needs it.
    if (took) {
      const now = await readParsed(t, id);
      if (!(now?.kind === 'record' && claimId(now.record.spec) === claimId(spec)))
        await releaseClaim(t, spec, id);
    }
    throw err;
  }
}

async function createRecord(
  t: Table,
  id: string,
  spec: CloudClusterSpec,
  hash: string,
  expected: number | undefined,
  opts: ApplyOptions,
): Promise<ApplyResult> {
  // Returned as the table holds it, as a read would return it. Labels are written with it, so a
  // selector never misses a record just created.
  const labels = opts.labels && Object.keys(opts.labels).length > 0 ? { labels: opts.labels } : {};
  const item = asStored({
    id,
    spec,
    specHash: hash,
    generation: 1,
    version: 1,
    createdAt: (opts.now ?? new Date()).toISOString(),
    ...labels,
  });
  try {
    await t.doc.send(
      new PutCommand({
        TableName: t.name,
        Item: item,
        ConditionExpression: 'attribute_not_exists(#id)',
        ExpressionAttributeNames: { '#id': 'id' },
      }),
    );
  } catch (err) {
    if (isConditionFailure(err)) return afterLostSpecRace(t, id, hash, expected, err);
    throw err;
  }
  return { record: toRecord(item), changed: true, created: true, labelsChanged: false };
}

async function updateSpec(
  t: Table,
  id: string,
  current: ClusterRecord,
  spec: CloudClusterSpec,
  hash: string,
  expected: number | undefined,
  rollout: RolloutMark | undefined,
): Promise<ApplyResult> {
  // Status writes never touch `version`, so only another spec writer can fail this condition.
  const mutation: Mutation = {
    set: { spec, specHash: hash, ...(rollout ? { rollout } : {}) },
    increment: { generation: 1, version: 1 },
    ...(rollout ? {} : { remove: ['rollout'] }),
  };
  const condition = {
    expression: '#version = :read AND attribute_not_exists(#deletionRequestedAt)',
    values: { ':read': current.version },
  };
  try {
    const after = await updateAndRead(t, id, mutation, condition);
    return { record: toRecord(after), changed: true, created: false, labelsChanged: false };
  } catch (err) {
    if (isConditionFailure(err)) return afterLostSpecRace(t, id, hash, expected, err);
    throw err;
  }
}

/**
 * Another spec writer got in first: fine if it wrote what we wanted and we had no expectation.
 * `refusal` (the failed conditional write) is the cause of what this throws.
 */
async function afterLostSpecRace(
  t: Table,
  id: string,
  hash: string,
  expected: number | undefined,
  refusal: unknown,
): Promise<ApplyResult> {
  const now = await readRecord(t, id);
  if (now?.deletionRequestedAt)
    throw new DeletionInProgressError(`${id}: deletion was requested`, { cause: refusal });
  if (now && expected === undefined && now.specHash === hash) {
    return { record: now, changed: false, created: false, labelsChanged: false };
  }
  throw new ConflictError(
    `${id}: the spec was changed concurrently (now version ${now?.version ?? 'none'})`,
    {
      cause: refusal,
    },
  );
}

/**
 * The cluster this record has, or may have, created or owned: seen owned in status, a create
 * recorded as intended or applied, or one in its history. Read before a spec write; a status written
 * between that read and the write is not seen (a window of milliseconds).
 */
export function mayOwnCluster(r: ClusterRecord): string | undefined {
  const owned = ownedArnOf(r.status);
  if (owned) return owned;
  const created =
    r.intent?.operation === 'CreateCluster' ||
    appliedAnyOf(r.applied?.counts ?? {}, 'CreateCluster') ||
    (r.history ?? []).some((h) => h.operation === 'CreateCluster');
  return created ? 'a cluster it created' : undefined;
}
