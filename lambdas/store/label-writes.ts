/**
 * Writes a record's labels (metadata.labels): `cloudorch apply`, and the bridge copying a custom
 * resource's labels. Labels sit beside the spec: the write touches neither `spec`, `specHash`,
 * `generation` nor `version`, so it starts no reconciliation (on-change reacts to those only).
 */
import { type Labels, sameLabels } from '../core/labels.js';
import { RecordNotFoundError } from './errors.js';
import { isConditionFailure, type Table, updateAndRead } from './items.js';
import { toRecord } from './record.js';
import type { ClusterRecord } from './types.js';
import type { Mutation } from './update.js';

/** The attribute as stored: absent when there are no labels (DynamoDB keeps no empty maps on read). */
export function labelsOf(r: Pick<ClusterRecord, 'labels'>): Labels {
  return r.labels ?? {};
}

/**
 * Replaces the record's labels with `labels` (none: the attribute is removed). The caller validates
 * them (core/labels.ts). RecordNotFoundError when there is no record.
 */
export async function writeLabels(t: Table, id: string, labels: Labels): Promise<ClusterRecord> {
  const mutation: Mutation = Object.keys(labels).length > 0 ? { set: { labels } } : { remove: ['labels'] };
  try {
    return toRecord(await updateAndRead(t, id, mutation, { expression: 'attribute_exists(#id)' }));
  } catch (err) {
    if (isConditionFailure(err)) throw new RecordNotFoundError(`${id}: no such record`, { cause: err });
    throw err;
  }
}

/** Writes `labels` only when they differ from the record's; says whether it wrote. */
export async function reconcileLabels(
  t: Table,
  current: ClusterRecord,
  labels: Labels,
): Promise<{ record: ClusterRecord; changed: boolean }> {
  if (sameLabels(labelsOf(current), labels)) return { record: current, changed: false };
  return { record: await writeLabels(t, current.id, labels), changed: true };
}
