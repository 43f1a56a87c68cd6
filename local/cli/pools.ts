/**
 * Node pools as the CLI shows them: the spec's pools (read through validation, because records
 * written before pools existed hold the flat fields) and the pools the last run observed.
 */
import type { NodePool } from '../../lambdas/core/spec/pools.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import type { ObservedPool, ObservedSummary } from '../../lambdas/core/status.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';

/** The record's pools, normalised (the flat form is the pool `default`); undefined if the spec is invalid. */
export function specPools(r: ClusterRecord): readonly NodePool[] | undefined {
  const v = validateSpec(r.spec);
  return v.ok ? v.spec.nodeGroups : undefined;
}

/** POOLS: what the last run counted, else the spec's count (status written before pools existed). */
export function poolCount(r: ClusterRecord): number | undefined {
  return r.status?.observed?.poolCount ?? specPools(r)?.length;
}

interface TaintLike {
  readonly key: string;
  readonly value?: string | undefined;
  readonly effect: string;
}

/** `key=value:EFFECT`, as EKS names taint effects. */
export const taintText = (t: TaintLike): string =>
  `${t.key}${t.value !== undefined && t.value !== '' ? `=${t.value}` : ''}:${t.effect}`;

export const labelsText = (labels: Readonly<Record<string, string>> | undefined): string =>
  Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',') || '<none>';

export const taintsText = (taints: readonly TaintLike[] | undefined): string =>
  (taints ?? []).map(taintText).join(',') || '<none>';

/** One observed pool: its group and status, then sizes and shape, then labels and taints. */
export function observedPoolLines(p: ObservedPool): string[] {
  const others = p.otherNodegroups?.length ? `; also ${p.otherNodegroups.join(', ')}` : '';
  if (!p.nodegroup) return [`  ${p.name}: no node group (Missing)${others}`];
  return [
    `  ${p.name}: node group ${p.nodegroup} (${p.status}, version ${p.version ?? '-'})${others}`,
    `      nodes ${p.nodeCount ?? '-'} (min ${p.minSize ?? '-'}, max ${p.maxSize ?? '-'}), ${(p.instanceTypes ?? []).join(',') || '-'} ${p.capacityType ?? '-'}`,
    `      labels ${labelsText(p.labels)}; taints ${taintsText(p.taints)}`,
  ];
}

/** A spec pool not observed yet (status written before pools existed): what it asks for. */
function specPoolLines(p: NodePool): string[] {
  return [
    `  ${p.name}: not observed yet; the spec asks for ${p.nodeCount} (min ${p.minSize ?? '-'}, max ${p.maxSize ?? '-'}, scaling ${p.scaling}), ${p.instanceTypes.join(',')} ${p.capacityType}`,
    `      labels ${labelsText(p.labels)}; taints ${taintsText(p.taints)}`,
  ];
}

/** describe's Pools section: observed pools in spec order, and node groups no pool names. */
export function poolsSection(
  ob: ObservedSummary | undefined,
  pools: readonly NodePool[] | undefined,
): string[] {
  const lines = ob?.pools ? ob.pools.flatMap(observedPoolLines) : (pools ?? []).flatMap(specPoolLines);
  if (ob?.orphan?.length)
    lines.push(
      `  node groups of pools no longer listed (deleted once the pools are ACTIVE): ${ob.orphan.join(', ')}`,
    );
  if (ob?.foreign?.length)
    lines.push(
      `  node groups created outside CloudOrch (policy decides on deletion): ${ob.foreign.join(', ')}`,
    );
  return lines.length > 0 ? lines : ['  none (the spec is invalid)'];
}
