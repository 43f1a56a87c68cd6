/**
 * Which records a command means, for get, describe, delete, reconcile and sim drift alike.
 * Lists follow kubectl: `-n NS` (default `default`) or `-A` for every namespace. A name is `NAME`,
 * `NS/NAME` (the record id), or what `get -o name` prints (`cloudcluster.compute.cloudorch.io/NAME`,
 * also `cloudcluster/NAME`). A bare name without `-n` is looked up in every namespace, as CloudOrch
 * always did; when two namespaces have it, that is an error listing both, never a silent first pick.
 */
import type { Listing } from '../../lambdas/store/list.js';
import type { InvalidItem } from '../../lambdas/store/record.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { matches, type Selector } from './select.js';

export const DEFAULT_NAMESPACE = 'default';
/** The resource as `get -o name` prints it (kubectl's `<resource>.<group>/<name>`). */
export const RESOURCE = 'cloudcluster.compute.cloudorch.io';
const RESOURCE_PREFIXES = [
  'cloudcluster',
  'cloudclusters',
  RESOURCE,
  'cloudclusters.compute.cloudorch.io',
].map((r) => `${r}/`);

export interface Scope {
  /** `-n`: absent means `default` for lists, any namespace for a bare name. */
  readonly namespace?: string;
  /** `-A` / `--all-namespaces`. */
  readonly allNamespaces?: boolean;
}

/** A name that matches nothing, matches in several namespaces, or contradicts `-n`. */
export class NameResolutionError extends Error {
  constructor(
    message: string,
    /** True when several namespaces have the name; false when nothing has it (or -n contradicts it). */
    readonly ambiguous = false,
  ) {
    super(message);
    this.name = 'NameResolutionError';
  }
}

/** What a name found: a record, or an item that does not parse (with why). */
export type Found =
  | { readonly kind: 'record'; readonly record: ClusterRecord }
  | { readonly kind: 'invalid'; readonly invalid: InvalidItem };

export const idOf = (f: Found): string => (f.kind === 'record' ? f.record.id : f.invalid.id);

export function splitId(id: string): { namespace: string; name: string } {
  const slash = id.indexOf('/');
  return slash < 0
    ? { namespace: '', name: id }
    : { namespace: id.slice(0, slash), name: id.slice(slash + 1) };
}

/** The records and malformed items `scope` covers, records narrowed by `selector`. */
export function inScope(listing: Listing, scope: Scope, selector?: Selector): Listing {
  const ns = scope.namespace ?? DEFAULT_NAMESPACE;
  const covers = (id: string) => scope.allNamespaces === true || splitId(id).namespace === ns;
  return {
    records: listing.records.filter((r) => covers(r.id) && (!selector || matches(selector, r.labels ?? {}))),
    // A malformed item's labels cannot be trusted, so a selector neither picks nor hides it.
    invalid: listing.invalid.filter((i) => covers(i.id)),
  };
}

/** `cloudcluster/x`, `ns/x` or `x`: the namespace when the name carries one, and the bare name. */
export function parseName(arg: string): { namespace?: string; name: string } {
  const prefix = RESOURCE_PREFIXES.find((p) => arg.startsWith(p));
  const rest = prefix ? arg.slice(prefix.length) : arg;
  const slash = rest.indexOf('/');
  return slash < 0 ? { name: rest } : { namespace: rest.slice(0, slash), name: rest.slice(slash + 1) };
}

/**
 * The one record or malformed item `arg` names within `scope`; NameResolutionError when there is
 * none, or more than one (naming each).
 */
export function resolveName(listing: Listing, arg: string, scope: Scope): Found {
  const { namespace, name } = parseName(arg);
  if (namespace !== undefined && scope.namespace !== undefined && namespace !== scope.namespace)
    throw new NameResolutionError(`${arg} names namespace ${namespace}, but -n says ${scope.namespace}`);
  const ns = namespace ?? (scope.allNamespaces ? undefined : scope.namespace);
  const hit = (id: string) => (ns === undefined ? splitId(id).name === name : id === `${ns}/${name}`);
  const found: Found[] = [
    ...listing.records.filter((r) => hit(r.id)).map((record) => ({ kind: 'record' as const, record })),
    ...listing.invalid.filter((i) => hit(i.id)).map((invalid) => ({ kind: 'invalid' as const, invalid })),
  ];
  const [first, ...more] = found;
  if (!first)
    throw new NameResolutionError(`cloudcluster ${arg} not found${ns ? ` in namespace ${ns}` : ''}`);
  if (more.length > 0)
    throw new NameResolutionError(
      `cloudcluster ${name} is in several namespaces: ${found.map(idOf).join(', ')}; name one with -n NAMESPACE or NAMESPACE/${name}`,
      true,
    );
  return first;
}
