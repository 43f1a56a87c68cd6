/**
 * A manifest file that holds CloudRollout documents (or a `List` of them, as `rollout get -o yaml`
 * prints): each document goes to its kind's parser, and every issue names the file, the document and
 * the field as the CloudCluster parser does. A file without a CloudRollout is left to that parser
 * whole, so its reading is exactly what it was.
 */
import { parseAllDocuments, stringify } from 'yaml';
import {
  type CloudClusterManifest,
  type ManifestIssue,
  parseManifests,
} from '../../lambdas/core/manifest.js';
import {
  parseRolloutManifest,
  ROLLOUT_KIND,
  type RolloutManifest,
} from '../../lambdas/core/rollout/manifest.js';

/** A validated CloudRollout and where it was read (`file.yaml#2`). */
export interface SourcedRollout {
  readonly rollout: RolloutManifest;
  readonly source: string;
}

interface Parts {
  manifests: CloudClusterManifest[];
  rollouts: SourcedRollout[];
  issues: ManifestIssue[];
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

const isRollout = (x: unknown): boolean => isObject(x) && x.kind === ROLLOUT_KIND;
const isList = (x: unknown): x is Record<string, unknown> => isObject(x) && x.kind === 'List';

const issueAt = (source: string, field: string, message: string): ManifestIssue => ({
  source,
  field,
  message: `${source}: ${field}: ${message}`,
});

/** One CloudCluster document through the CloudCluster parser, its issues named by `source`. */
function clusterDocument(value: unknown, sourceName: string, source: string, into: Parts): void {
  const r = parseManifests(stringify(value), sourceName);
  const from = `${sourceName}#1`;
  const named = (s: string) => (s.startsWith(from) ? `${source}${s.slice(from.length)}` : s);
  if (r.ok) into.manifests.push(...r.manifests.map((m) => ({ ...m, source: named(m.source) })));
  else
    into.issues.push(...r.issues.map((i) => ({ ...i, source: named(i.source), message: named(i.message) })));
}

function rolloutDocument(value: unknown, source: string, into: Parts): void {
  const r = parseRolloutManifest(value);
  if (r.ok) into.rollouts.push({ rollout: r.rollout, source });
  else
    into.issues.push(
      ...r.issues.map((i) => ({ source, field: i.field, message: `${source}: ${i.message}` })),
    );
}

function listDocument(doc: Record<string, unknown>, sourceName: string, source: string, into: Parts): void {
  for (const k of Object.keys(doc))
    if (!['apiVersion', 'kind', 'metadata', 'items'].includes(k))
      into.issues.push(
        issueAt(source, k, 'is not a field CloudOrch reads (allowed: apiVersion, kind, metadata, items)'),
      );
  if (doc.apiVersion !== 'v1') into.issues.push(issueAt(source, 'apiVersion', 'must be v1 for a List'));
  if (!Array.isArray(doc.items)) {
    into.issues.push(issueAt(source, 'items', 'must be a list of CloudClusters or CloudRollouts'));
    return;
  }
  for (const [i, item] of doc.items.entries()) {
    const at = `${source}.items[${i}]`;
    if (isRollout(item)) rolloutDocument(item, at, into);
    else clusterDocument(item, sourceName, at, into);
  }
}

/** The documents' values, or undefined for one that does not parse (the caller reports it). */
function values(text: string) {
  return parseAllDocuments(text).map((d) => {
    if (d.errors.length > 0) return { errors: d.errors.map((e) => e.message.split('\n')[0] ?? '') };
    try {
      // Throws on an alias bomb (yaml's maxAliasCount) and on unresolvable aliases.
      return { value: d.toJS() as unknown };
    } catch (err) {
      return { errors: [(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''] };
    }
  });
}

/**
 * The file's clusters, rollouts and issues when it holds a CloudRollout; undefined otherwise (the
 * CloudCluster parser then reads it as it always did).
 */
export function splitRollouts(text: string, sourceName: string): Parts | undefined {
  const docs = values(text);
  const holdsRollout = docs.some(
    (d) =>
      isRollout(d.value) ||
      (isList(d.value) && Array.isArray(d.value.items) && d.value.items.some(isRollout)),
  );
  if (!holdsRollout) return undefined;
  const parts: Parts = { manifests: [], rollouts: [], issues: [] };
  for (const [i, d] of docs.entries()) {
    const source = `${sourceName}#${i + 1}`;
    if (d.errors) {
      for (const e of d.errors)
        parts.issues.push({ source, field: '(syntax)', message: `${source}: invalid YAML: ${e}` });
      continue;
    }
    const { value } = d;
    if (value === null || value === undefined) continue; // empty document between separators
    if (isRollout(value)) rolloutDocument(value, source, parts);
    else if (isList(value)) listDocument(value, sourceName, source, parts);
    else clusterDocument(value, sourceName, source, parts);
  }
  return parts;
}
