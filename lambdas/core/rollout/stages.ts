/**
 * A rollout's plan: which clusters each stage takes, from the candidates (records with their
 * labels) at the moment the rollout starts. Stages take from what earlier stages left, in order.
 * Every surprise is an error, never a silent guess: a named cluster that does not exist, a stage
 * that gets nothing (an empty canary is a typo), clusters no stage takes.
 */
import type { Labels } from '../labels.js';
import type { Percent, RolloutSpec, RolloutStage } from './schema.js';
import { describeSelector, matchesSelector } from './selector.js';

export interface Candidate {
  readonly id: string;
  readonly labels: Labels;
}

export interface PlannedStage {
  readonly name: string;
  /** Record ids, sorted. */
  readonly clusters: string[];
  /** Clusters changed at once; a percentage is resolved against this stage's clusters, at least 1. */
  readonly maxConcurrency: number;
  readonly soakSeconds: number;
  readonly approval: RolloutStage['approval'];
}

export type StagePlan = { ok: true; stages: PlannedStage[] } | { ok: false; error: string };

/** `pct` of `n`, rounded up: 1% of 3 clusters is 1, not 0. */
export const resolvePercent = (p: Percent, n: number): number => Math.ceil((p.percent * n) / 100);

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function selected(spec: RolloutSpec, candidates: readonly Candidate[]): string[] | string {
  if (spec.selector) {
    const { selector } = spec;
    return candidates.filter((c) => matchesSelector(c.labels, selector)).map((c) => c.id);
  }
  const known = new Set(candidates.map((c) => c.id));
  const missing = (spec.clusters ?? []).filter((id) => !known.has(id));
  if (missing.length > 0) return `the rollout names clusters that have no record: ${missing.join(', ')}`;
  return [...(spec.clusters ?? [])];
}

/** The clusters one stage takes from `remaining`, or why it cannot. */
function take(
  stage: RolloutStage,
  remaining: readonly string[],
  labelsOf: ReadonlyMap<string, Labels>,
  takenBy: ReadonlyMap<string, string>,
): string[] | string {
  if (stage.selector) {
    const { selector } = stage;
    return remaining.filter((id) => matchesSelector(labelsOf.get(id) ?? {}, selector));
  }
  if (stage.clusters) {
    const left = new Set(remaining);
    for (const id of stage.clusters) {
      if (left.has(id)) continue;
      const by = takenBy.get(id);
      return by === undefined
        ? `stage ${stage.name} names ${id}, which the rollout does not select`
        : `stage ${stage.name} names ${id}, which stage ${by} already takes`;
    }
    return [...stage.clusters];
  }
  if (stage.share) return remaining.slice(0, resolvePercent(stage.share, remaining.length));
  return [...remaining];
}

function emptyStage(stage: RolloutStage): string {
  const from = stage.selector
    ? `its selector ${describeSelector(stage.selector)} matches none of the remaining clusters`
    : 'no cluster is left for it';
  return `stage ${stage.name} gets no cluster: ${from}`;
}

/** The stages with their clusters, or the first reason the spec does not fit these candidates. */
export function planStages(spec: RolloutSpec, candidates: readonly Candidate[]): StagePlan {
  const labelsOf = new Map<string, Labels>();
  for (const c of candidates) {
    if (labelsOf.has(c.id)) return { ok: false, error: `cluster ${c.id} is a candidate twice` };
    labelsOf.set(c.id, c.labels);
  }
  const chosen = selected(spec, candidates);
  if (typeof chosen === 'string') return { ok: false, error: chosen };
  if (chosen.length === 0)
    return {
      ok: false,
      error: `the rollout's selector ${describeSelector(spec.selector ?? {})} selects no cluster`,
    };
  let remaining = chosen.sort(byId);
  const takenBy = new Map<string, string>();
  const stages: PlannedStage[] = [];
  for (const stage of spec.stages) {
    const got = take(stage, remaining, labelsOf, takenBy);
    if (typeof got === 'string') return { ok: false, error: got };
    if (got.length === 0) return { ok: false, error: emptyStage(stage) };
    const clusters = got.sort(byId);
    for (const id of clusters) takenBy.set(id, stage.name);
    remaining = remaining.filter((id) => !takenBy.has(id));
    const mc = stage.maxConcurrency;
    stages.push({
      name: stage.name,
      clusters,
      maxConcurrency: typeof mc === 'number' ? mc : Math.max(1, resolvePercent(mc, clusters.length)),
      soakSeconds: stage.soakSeconds,
      approval: stage.approval,
    });
  }
  if (remaining.length > 0)
    return {
      ok: false,
      error: `no stage takes ${remaining.join(', ')}: add a last stage without selector, clusters or share to take the rest`,
    };
  return { ok: true, stages };
}
