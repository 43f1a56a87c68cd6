/**
 * CloudCluster manifests (YAML or JSON, several documents per file) to validated desired state.
 * Errors name the source, the document and the field.
 */
import { parseAllDocuments } from 'yaml';
import type { CloudClusterSpec } from './spec/schema.js';
import { formatPath, reservedKeyMessage, reservedKeyPaths, validateSpec } from './spec/validate.js';
import { describeTarget } from './target.js';

export const API_VERSION = 'compute.cloudorch.io/v1';
export const KIND = 'CloudCluster';
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface CloudClusterManifest {
  /** `<namespace>/<name>`: the record id. */
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
  readonly spec: CloudClusterSpec;
  /** Where it was read: `file.yaml#2`. */
  readonly source: string;
}

export interface ManifestIssue {
  /** `file.yaml#2` (document index, 1-based). */
  readonly source: string;
  readonly field: string;
  readonly message: string;
}

export type ManifestResult =
  | { ok: true; manifests: CloudClusterManifest[] }
  | { ok: false; issues: ManifestIssue[] };

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function checkDocument(
  doc: unknown,
  source: string,
): { manifest?: CloudClusterManifest; issues: ManifestIssue[] } {
  const issue = (field: string, message: string): ManifestIssue => ({
    source,
    field,
    message: `${source}: ${field}: ${message}`,
  });
  if (!isObject(doc))
    return { issues: [issue('(document)', 'must be a mapping with apiVersion, kind, metadata and spec')] };
  // Checked on the parsed document as a whole, before anything reads or copies it.
  const issues: ManifestIssue[] = reservedKeyPaths(doc).map((path) =>
    issue(formatPath(path), reservedKeyMessage(path.at(-1) ?? '')),
  );
  const reported = new Set(issues.map((i) => i.field));
  if (doc.apiVersion !== API_VERSION) issues.push(issue('apiVersion', `must be ${API_VERSION}`));
  if (doc.kind !== KIND) issues.push(issue('kind', `must be ${KIND}`));
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  const name = meta.name;
  const namespace = meta.namespace ?? 'default';
  if (typeof name !== 'string' || !NAME.test(name) || name.length > 63) {
    issues.push(
      issue(
        'metadata.name',
        'must be a DNS label (lowercase letters, digits and hyphens, at most 63 characters)',
      ),
    );
  }
  if (typeof namespace !== 'string' || !NAME.test(namespace) || namespace.length > 63) {
    issues.push(issue('metadata.namespace', 'must be a DNS label'));
  }
  const v = validateSpec(doc.spec);
  if (!v.ok)
    for (const i of v.issues)
      if (!reported.has(i.field)) issues.push(issue(i.field, i.message.slice(i.field.length + 2)));
  if (issues.length > 0 || !v.ok) return { issues };
  const ns = namespace as string;
  return {
    manifest: { id: `${ns}/${name as string}`, name: name as string, namespace: ns, spec: v.spec, source },
    issues: [],
  };
}

/**
 * Manifests that define an id already defined by an earlier one, each named with both sources.
 * Applying both would write one generation per copy, and the last one read would win.
 */
export function duplicateIds(manifests: readonly CloudClusterManifest[]): ManifestIssue[] {
  const first = new Map<string, string>();
  const issues: ManifestIssue[] = [];
  for (const m of manifests) {
    const earlier = first.get(m.id);
    if (earlier === undefined) first.set(m.id, m.source);
    else
      issues.push({
        source: m.source,
        field: 'metadata.name',
        message: `${m.source}: metadata.name: ${m.id} is defined twice (first in ${earlier})`,
      });
  }
  return issues;
}

/**
 * Two manifests of one apply naming the same cluster: refused before anything is written (the store
 * would refuse the second after the first was written).
 */
export function duplicateTargets(manifests: readonly CloudClusterManifest[]): ManifestIssue[] {
  const first = new Map<string, CloudClusterManifest>();
  const issues: ManifestIssue[] = [];
  for (const m of manifests) {
    const key = describeTarget(m.spec);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, m);
    else if (earlier.id !== m.id)
      issues.push({
        source: m.source,
        field: 'spec.clusterName',
        message: `${m.source}: spec.clusterName: cluster ${m.spec.clusterName} in ${m.spec.region} is also named by ${earlier.id} (${earlier.source}); one record per cluster`,
      });
  }
  return issues;
}

/** Parses one file's text. Nothing is returned unless every document is valid. */
export function parseManifests(text: string, sourceName: string): ManifestResult {
  const docs = parseAllDocuments(text);
  const manifests: CloudClusterManifest[] = [];
  const issues: ManifestIssue[] = [];
  let index = 0;
  for (const d of docs) {
    index += 1;
    const source = `${sourceName}#${index}`;
    if (d.errors.length > 0) {
      issues.push(
        ...d.errors.map((e) => ({
          source,
          field: '(syntax)',
          message: `${source}: invalid YAML: ${e.message.split('\n')[0]}`,
        })),
      );
      continue;
    }
    let value: unknown;
    try {
      // Throws on an alias bomb (yaml's maxAliasCount) and on unresolvable aliases.
      value = d.toJS();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      issues.push({
        source,
        field: '(syntax)',
        message: `${source}: invalid YAML: ${message.split('\n')[0]}`,
      });
      continue;
    }
    if (value === null || value === undefined) continue; // empty document between separators
    const r = checkDocument(value, source);
    if (r.manifest) manifests.push(r.manifest);
    issues.push(...r.issues);
  }
  issues.push(...duplicateIds(manifests));
  return issues.length > 0 ? { ok: false, issues } : { ok: true, manifests };
}
