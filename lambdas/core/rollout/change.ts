/**
 * A rollout's change merged into one cluster's stored spec document, in the form the user wrote
 * it: a spec with the flat node fields keeps them (the pool `default` is those fields), a spec with
 * `nodeGroups` keeps its pools. A change updates what the cluster has; it adds nothing. An add-on
 * or pool the cluster does not list is refused: a rollout changes versions and sizes, installing
 * an add-on or creating a pool on a whole fleet is a spec change of its own, reviewed as one.
 */
import { domainError } from '../errors.js';
import { DEFAULT_POOL } from '../spec/facts.js';
import { type SpecIssue, validateSpec } from '../spec/validate.js';
import type { AddonChange, ClusterChange, PoolChange } from './change-schema.js';

type Doc = Readonly<Record<string, unknown>>;

/** The change names a pool or add-on the cluster does not have, or cannot be said in its form. */
export class ChangeNotApplicableError extends domainError(
  'ChangeNotApplicableError',
  'Permanent',
  "Change the rollout's change (or that cluster's spec) so that every pool and add-on it names exists in the cluster, or leave the cluster out of the rollout.",
) {
  constructor(
    message: string,
    /** The cluster spec field the change cannot be merged into, e.g. `spec.nodeGroups`. */
    readonly field: string,
    /** The pool or add-on named. */
    readonly item: string,
  ) {
    super(message);
  }
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

const entries = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** Whether the spec uses the flat node fields (no `nodeGroups`): the seed's form. */
const isFlat = (spec: Doc): boolean => spec.nodeGroups === undefined;

/** A pool change without its name: the fields it sets. */
function poolFields(p: PoolChange): Record<string, unknown> {
  const { name: _name, ...fields } = p;
  return fields;
}

/** The flat fields the change of pool `default` means; a flat spec has one instance type. */
function flatFields(p: PoolChange): Record<string, unknown> {
  const { instanceTypes, ...sizes } = poolFields(p) as Omit<PoolChange, 'name'>;
  if (instanceTypes === undefined) return sizes;
  const [instanceType, ...more] = instanceTypes;
  if (more.length > 0)
    throw new ChangeNotApplicableError(
      `the cluster writes its node pool with the flat fields, which hold one instanceType; the change lists ${instanceTypes.length} for pool ${DEFAULT_POOL} (move the spec to nodeGroups first)`,
      'spec.instanceType',
      DEFAULT_POOL,
    );
  return { ...sizes, instanceType };
}

function mergePools(spec: Doc, pools: readonly PoolChange[]): Record<string, unknown> {
  if (isFlat(spec)) {
    const other = pools.find((p) => p.name !== DEFAULT_POOL);
    if (other)
      throw new ChangeNotApplicableError(
        `the cluster has no pool ${other.name}: its spec writes one pool, ${DEFAULT_POOL}, with the flat fields`,
        'spec.nodeGroups',
        other.name,
      );
    const only = pools[0];
    return only ? flatFields(only) : {};
  }
  const have = entries(spec.nodeGroups);
  const missing = pools.find((p) => !have.some((g) => g.name === p.name));
  if (missing)
    throw new ChangeNotApplicableError(
      `the cluster has no pool ${missing.name} (it has ${have.map((g) => g.name).join(', ') || 'none'})`,
      'spec.nodeGroups',
      missing.name,
    );
  const raw = Array.isArray(spec.nodeGroups) ? spec.nodeGroups : [];
  const nodeGroups = raw.map((g: unknown) => {
    const p = isObject(g) ? pools.find((c) => c.name === g.name) : undefined;
    return p && isObject(g) ? { ...g, ...poolFields(p) } : g;
  });
  return { nodeGroups };
}

function mergeAddons(spec: Doc, addons: readonly AddonChange[]): unknown[] {
  const have = entries(spec.addons);
  const missing = addons.find((a) => !have.some((h) => h.name === a.name));
  if (missing)
    throw new ChangeNotApplicableError(
      `the cluster does not list add-on ${missing.name}; a rollout changes versions, it does not install add-ons`,
      'spec.addons',
      missing.name,
    );
  const raw = Array.isArray(spec.addons) ? spec.addons : [];
  return raw.map((h: unknown) => {
    const a = isObject(h) ? addons.find((c) => c.name === h.name) : undefined;
    return a && isObject(h) ? { ...h, version: a.version } : h;
  });
}

/**
 * The spec document with the change merged in; the input is not modified. Throws
 * {@link ChangeNotApplicableError} when the change names a pool or add-on the cluster lacks.
 */
export function applyChange(spec: Doc, change: ClusterChange): Record<string, unknown> {
  const out: Record<string, unknown> = { ...spec };
  if (change.kubernetesVersion !== undefined) out.kubernetesVersion = change.kubernetesVersion;
  if (change.addons) out.addons = mergeAddons(spec, change.addons);
  if (change.nodeGroups) Object.assign(out, mergePools(spec, change.nodeGroups));
  if (change.tags) out.tags = { ...(isObject(spec.tags) ? spec.tags : {}), ...change.tags };
  return out;
}

export type ChangePreview = { ok: true; spec: Record<string, unknown> } | { ok: false; issues: SpecIssue[] };

/**
 * The merged document (what a rollout writes for cluster `id`) once the cluster spec's own
 * validation passes on it; every issue message starts with the cluster id.
 */
export function previewChange(id: string, spec: Doc, change: ClusterChange): ChangePreview {
  let merged: Record<string, unknown>;
  try {
    merged = applyChange(spec, change);
  } catch (err) {
    if (!(err instanceof ChangeNotApplicableError)) throw err;
    return {
      ok: false,
      issues: [{ field: err.field, rule: 'not_applicable', message: `${id}: ${err.field}: ${err.message}` }],
    };
  }
  const v = validateSpec(merged);
  if (v.ok) return { ok: true, spec: merged };
  return { ok: false, issues: v.issues.map((i) => ({ ...i, message: `${id}: ${i.message}` })) };
}

const sameValue = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x, i) => x === b[i]) : a === b;

/** The pool's fields as a change reads them; the flat form is the pool `default`. */
function poolView(spec: Doc, name: string): Record<string, unknown> | undefined {
  if (!isFlat(spec)) return entries(spec.nodeGroups).find((g) => g.name === name);
  if (name !== DEFAULT_POOL) return undefined;
  const { instanceType, ...rest } = spec;
  return { ...rest, ...(instanceType !== undefined ? { instanceTypes: [instanceType] } : {}) };
}

/** Defaults of the cluster spec that a change may name explicitly. */
const withDefaults = (pool: Record<string, unknown>): Record<string, unknown> => ({
  scaling: 'managed',
  ...pool,
});

/**
 * Whether the cluster already has everything the change sets (its defaults counted: an add-on
 * without a version is at `default`), so the rollout counts it done without writing a generation.
 */
export function changeSatisfied(spec: Doc, change: ClusterChange): boolean {
  if (change.kubernetesVersion !== undefined && spec.kubernetesVersion !== change.kubernetesVersion)
    return false;
  for (const a of change.addons ?? []) {
    const have = entries(spec.addons).find((h) => h.name === a.name);
    if (!have || (have.version ?? 'default') !== a.version) return false;
  }
  for (const p of change.nodeGroups ?? []) {
    const view = poolView(spec, p.name);
    if (!view) return false;
    const pool = withDefaults(view);
    if (Object.entries(poolFields(p)).some(([k, v]) => !sameValue(pool[k], v))) return false;
  }
  const tags = isObject(spec.tags) ? spec.tags : {};
  return Object.entries(change.tags ?? {}).every(([k, v]) => Object.hasOwn(tags, k) && tags[k] === v);
}
