/**
 * CloudCluster manifests (YAML or JSON, several documents per file) to validated desired state.
 * Errors name the source, the document and the field.
 */
import { parseAllDocuments } from 'yaml';
import { type Labels, validateLabels } from './labels.js';
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
  /** metadata.labels ({} when none): stored beside the spec, so they never change the generation. */
  readonly labels: Labels;
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

/** What a document may hold: `status` is what `cloudorch get -o yaml` prints, and is ignored. */
const DOCUMENT_KEYS = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
/** Read-only metadata `get -o yaml` prints: accepted (so its output applies back) and ignored. */
const READ_ONLY_METADATA = new Set(['generation', 'creationTimestamp', 'deletionTimestamp']);
const METADATA_KEYS = new Set(['name', 'namespace', 'labels', ...READ_ONLY_METADATA]);

type Issue = (field: string, message: string) => ManifestIssue;

function unknownKeys(value: Record<string, unknown>, allowed: Set<string>, at: string, issue: Issue) {
  return Object.keys(value)
    .filter((k) => !allowed.has(k))
    .map((k) => issue(`${at}${k}`, `is not a field CloudOrch reads (allowed: ${[...allowed].join(', ')})`));
}

/** name, namespace and labels; read-only fields are checked for their type only. */
function checkMetadata(
  doc: Record<string, unknown>,
  issue: Issue,
): { name?: string; namespace?: string; labels: Labels; issues: ManifestIssue[] } {
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  const issues = unknownKeys(meta, METADATA_KEYS, 'metadata.', issue);
  const { name, namespace = 'default', generation, creationTimestamp, deletionTimestamp } = meta;
  const nameOk = typeof name === 'string' && NAME.test(name) && name.length <= 63;
  if (!nameOk)
    issues.push(
      issue(
        'metadata.name',
        'must be a DNS label (lowercase letters, digits and hyphens, at most 63 characters)',
      ),
    );
  const namespaceOk = typeof namespace === 'string' && NAME.test(namespace) && namespace.length <= 63;
  if (!namespaceOk) issues.push(issue('metadata.namespace', 'must be a DNS label'));
  if (generation !== undefined && !(Number.isInteger(generation) && (generation as number) >= 1))
    issues.push(issue('metadata.generation', 'must be a whole number of at least 1 (it is ignored)'));
  for (const [field, at] of Object.entries({ creationTimestamp, deletionTimestamp }))
    if (at !== undefined && (typeof at !== 'string' || Number.isNaN(Date.parse(at))))
      issues.push(issue(`metadata.${field}`, 'must be a date and time (it is ignored)'));
  let labels: Labels = {};
  if (meta.labels !== undefined && meta.labels !== null) {
    const l = validateLabels(meta.labels);
    if (l.ok) labels = l.labels;
    else issues.push(...l.issues.map((i) => issue(i.field, i.message)));
  }
  return {
    ...(nameOk ? { name } : {}),
    ...(namespaceOk ? { namespace } : {}),
    labels,
    issues,
  };
}

function checkDocument(
  doc: unknown,
  source: string,
): { manifest?: CloudClusterManifest; issues: ManifestIssue[] } {
  const issue: Issue = (field, message) => ({ source, field, message: `${source}: ${field}: ${message}` });
  if (!isObject(doc))
    return { issues: [issue('(document)', 'must be a mapping with apiVersion, kind, metadata and spec')] };
  // Checked on the parsed document as a whole, before anything reads or copies it.
  const issues: ManifestIssue[] = reservedKeyPaths(doc).map((path) =>
    issue(formatPath(path), reservedKeyMessage(path.at(-1) ?? '')),
  );
  const reported = new Set(issues.map((i) => i.field));
  if (doc.apiVersion !== API_VERSION) issues.push(issue('apiVersion', `must be ${API_VERSION}`));
  if (doc.kind !== KIND) issues.push(issue('kind', `must be ${KIND}`));
  issues.push(...unknownKeys(doc, DOCUMENT_KEYS, '', issue).filter((i) => !reported.has(i.field)));
  if (doc.status !== undefined && !isObject(doc.status))
    issues.push(issue('status', 'must be a mapping (it is ignored: the reconciler writes status)'));
  const meta = checkMetadata(doc, issue);
  issues.push(...meta.issues.filter((i) => !reported.has(i.field)));
  const v = validateSpec(doc.spec);
  if (!v.ok)
    for (const i of v.issues)
      if (!reported.has(i.field)) issues.push(issue(i.field, i.message.slice(i.field.length + 2)));
  const { name, namespace, labels } = meta;
  if (issues.length > 0 || !v.ok || name === undefined || namespace === undefined) return { issues };
  return {
    manifest: { id: `${namespace}/${name}`, name, namespace, labels, spec: v.spec, source },
    issues: [],
  };
}

/**
 * A `kind: List` (what `cloudorch get -o yaml` prints for several clusters): its items, each checked
 * as a document of its own (`file.yaml#1.items[0]`).
 */
function checkList(
  doc: Record<string, unknown>,
  source: string,
): { manifests: CloudClusterManifest[]; issues: ManifestIssue[] } {
  const issue: Issue = (field, message) => ({ source, field, message: `${source}: ${field}: ${message}` });
  const issues = unknownKeys(doc, new Set(['apiVersion', 'kind', 'metadata', 'items']), '', issue);
  if (doc.apiVersion !== 'v1') issues.push(issue('apiVersion', 'must be v1 for a List'));
  if (!Array.isArray(doc.items)) issues.push(issue('items', 'must be a list of CloudClusters'));
  const manifests: CloudClusterManifest[] = [];
  (Array.isArray(doc.items) ? doc.items : []).forEach((item, i) => {
    const r = checkDocument(item, `${source}.items[${i}]`);
    if (r.manifest) manifests.push(r.manifest);
    issues.push(...r.issues);
  });
  return { manifests, issues };
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
    if (isObject(value) && value.kind === 'List') {
      const l = checkList(value, source);
      manifests.push(...l.manifests);
      issues.push(...l.issues);
      continue;
    }
    const r = checkDocument(value, source);
    if (r.manifest) manifests.push(r.manifest);
    issues.push(...r.issues);
  }
  issues.push(...duplicateIds(manifests));
  return issues.length > 0 ? { ok: false, issues } : { ok: true, manifests };
}
