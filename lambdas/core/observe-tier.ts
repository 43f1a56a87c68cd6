/**
 * Observation tiers of the sweep. The periodic **check** reads what drifts most: the cluster and the
 * node groups the record's status names (DescribeCluster, one DescribeNodegroup each; no list, no
 * add-ons, access entries or insights). A **full** observation (what a run reads) is taken once per
 * full period, spread over the sweep's periods by a hash of the record id (stateless: nothing is
 * written to remember it), and whenever the status cannot say which groups to read or is not Ready.
 * Pure: the sweep's decision calls these with the record, the clock and its settings.
 */
import { ConditionType, getCondition } from './conditions.js';
import type { DriftItem } from './plan/fields.js';
import type { CloudClusterSpec } from './spec/schema.js';
import type { ClusterStatus } from './status.js';
import { driftText } from './status-drift.js';

export type ObserveTier = 'check' | 'full';

/** What a record must hold for {@link tierOf}: its id, generation and last status. */
export interface TieredRecord {
  readonly id: string;
  readonly generation: number;
  readonly status?: ClusterStatus | undefined;
}

/**
 * The node groups the last full look found, by name: every pool's group and the groups it is
 * replacing, CloudOrch's groups of pools that left the spec (orphans) and groups CloudOrch did not
 * create (foreign). Undefined when the status cannot name them all: no status, status from before
 * pools, or a pool without its group.
 */
export function knownNodegroups(status: ClusterStatus | undefined): readonly string[] | undefined {
  const observed = status?.observed;
  const pools = observed?.pools;
  if (!pools || pools.length === 0) return undefined;
  const names: string[] = [];
  for (const p of pools) {
    if (p.nodegroup === undefined) return undefined;
    names.push(p.nodegroup, ...(p.otherNodegroups ?? []));
  }
  names.push(...(observed.orphan ?? []), ...(observed.foreign ?? []));
  return [...new Set(names)];
}

/** FNV-1a (32 bits) of a string: stable across processes and releases, which is all the spread needs. */
export function stableHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** How many sweep periods one full period spans (at least one: a full look every period). */
export function periodsPerFull(periodSeconds: number, fullPeriodSeconds: number): number {
  if (!(periodSeconds > 0) || !(fullPeriodSeconds > 0)) return 1;
  return Math.max(1, Math.round(fullPeriodSeconds / periodSeconds));
}

/**
 * Which tier the sweep observes a record with at `now`. Full whenever the check could be wrong about
 * what to read or what the status means: no status naming every pool's group, a status that is not
 * Ready (work in progress, a failure, an unreadable cluster: a run will look fully anyway), or one
 * written for another generation. Otherwise full once every k = round(fullPeriod / period) periods,
 * in the period whose number mod k is the id's hash mod k: over any k consecutive periods each record
 * gets exactly one full look, and the records' full looks spread evenly over those periods.
 */
export function tierOf(
  r: TieredRecord,
  now: Date,
  periodSeconds: number,
  fullPeriodSeconds: number,
): ObserveTier {
  const s = r.status;
  if (!s?.ready || s.observedGeneration !== r.generation) return 'full';
  if (knownNodegroups(s) === undefined) return 'full';
  const k = periodsPerFull(periodSeconds, fullPeriodSeconds);
  if (k === 1) return 'full';
  const period = Math.floor(now.getTime() / 1000 / periodSeconds);
  return stableHash(r.id) % k === period % k ? 'full' : 'check';
}

/**
 * The spec as far as a check can judge it: without add-ons and access (not read, so nothing of them
 * can look missing) and with the readiness gate off (insights are not read either; a version step the
 * check finds is work, so it starts a run, whose full observation applies the gate).
 */
export function checkView(spec: CloudClusterSpec): CloudClusterSpec {
  const { addons: _addons, access: _access, ...rest } = spec;
  return { ...rest, upgrade: { readiness: 'ignore' } };
}

/**
 * Whether status already shows every difference a check found. A check sees only part of what the
 * full look showed (not add-on or access drift), so each of its differences must be one of the
 * clauses status shows, rather than the whole text being equal.
 */
export function driftShownWithin(status: ClusterStatus | undefined, drift: readonly DriftItem[]): boolean {
  const c = status ? getCondition(status.conditions, ConditionType.Drifted) : undefined;
  if (c?.status !== 'True') return false;
  const shown = `; ${c.message}; `;
  return drift.every((d) => shown.includes(`; ${driftText([d])}; `));
}
