/**
 * CloudRollout documents (already parsed from YAML or JSON) to a validated rollout, as core/manifest.ts
 * does for CloudCluster: the same apiVersion, metadata rules and issue style, each issue naming its field.
 */
import { type Labels, validateLabels } from '../labels.js';
import { API_VERSION } from '../manifest.js';
import { isDnsLabel } from '../record-id.js';
import { reservedKeyMessage, reservedKeyPaths, type SpecIssue } from '../spec/issue.js';
import { fieldOf } from './issues.js';
import { type RolloutSpec, validateRolloutSpec } from './schema.js';

export { API_VERSION };
export const ROLLOUT_KIND = 'CloudRollout';

export interface RolloutManifest {
  /** `<namespace>/<name>`: the rollout's record id. */
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
  /** metadata.labels ({} when none). */
  readonly labels: Labels;
  readonly spec: RolloutSpec;
  /** The spec as written, to store as the user wrote it. */
  readonly raw: unknown;
}

export type RolloutManifestResult =
  | { ok: true; rollout: RolloutManifest }
  | { ok: false; issues: SpecIssue[] };

/** What a document may hold: `status` is what a `get -o yaml` prints, and is ignored. */
const DOCUMENT_KEYS = ['apiVersion', 'kind', 'metadata', 'spec', 'status'];
/** Read-only metadata a `get -o yaml` prints: accepted (so its output applies back), type-checked, ignored. */
const READ_ONLY_METADATA = ['generation', 'creationTimestamp', 'deletionTimestamp'];
const METADATA_KEYS = ['name', 'namespace', 'labels', ...READ_ONLY_METADATA];

const issue = (field: string, message: string, rule = 'invalid_value'): SpecIssue => ({
  field,
  rule,
  message: `${field}: ${message}`,
});

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

function unknownKeys(value: Record<string, unknown>, allowed: readonly string[], at: string): SpecIssue[] {
  return Object.keys(value)
    .filter((k) => !allowed.includes(k))
    .map((k) =>
      issue(`${at}${k}`, `is not a field CloudOrch reads (allowed: ${allowed.join(', ')})`, 'unknown_field'),
    );
}

function readOnlyIssues(meta: Record<string, unknown>): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const { generation } = meta;
  if (generation !== undefined && !(Number.isInteger(generation) && (generation as number) >= 1))
    issues.push(issue('metadata.generation', 'must be a whole number of at least 1 (it is ignored)'));
  for (const field of ['creationTimestamp', 'deletionTimestamp']) {
    const at = meta[field];
    if (at !== undefined && (typeof at !== 'string' || Number.isNaN(Date.parse(at))))
      issues.push(issue(`metadata.${field}`, 'must be a date and time (it is ignored)'));
  }
  return issues;
}

function checkMetadata(meta: Record<string, unknown>) {
  const issues = [...unknownKeys(meta, METADATA_KEYS, 'metadata.'), ...readOnlyIssues(meta)];
  const { name, namespace = 'default' } = meta;
  if (!isDnsLabel(name))
    issues.push(
      issue(
        'metadata.name',
        'must be a DNS label (lowercase letters, digits and hyphens, at most 63 characters)',
        name === undefined ? 'required' : 'invalid_value',
      ),
    );
  if (!isDnsLabel(namespace)) issues.push(issue('metadata.namespace', 'must be a DNS label'));
  let labels: Labels = {};
  if (meta.labels !== undefined && meta.labels !== null) {
    const l = validateLabels(meta.labels);
    if (l.ok) labels = l.labels;
    else issues.push(...l.issues.map((i) => issue(i.field, i.message)));
  }
  const id = isDnsLabel(name) && isDnsLabel(namespace) ? { name, namespace } : undefined;
  return { id, labels, issues };
}

/** One CloudRollout document; nothing is returned unless all of it is valid. */
export function parseRolloutManifest(doc: unknown): RolloutManifestResult {
  if (!isObject(doc))
    return {
      ok: false,
      issues: [
        issue('(document)', 'must be a mapping with apiVersion, kind, metadata and spec', 'invalid_type'),
      ],
    };
  // On the document as a whole, before anything reads or copies it.
  const issues = reservedKeyPaths(doc).map((path) =>
    issue(fieldOf(path, ''), reservedKeyMessage(path.at(-1) ?? ''), 'reserved_key'),
  );
  const reported = new Set(issues.map((i) => i.field));
  const fresh = (more: SpecIssue[]) => issues.push(...more.filter((i) => !reported.has(i.field)));
  if (doc.apiVersion !== API_VERSION) issues.push(issue('apiVersion', `must be ${API_VERSION}`));
  if (doc.kind !== ROLLOUT_KIND) issues.push(issue('kind', `must be ${ROLLOUT_KIND}`));
  fresh(unknownKeys(doc, DOCUMENT_KEYS, ''));
  if (doc.status !== undefined && !isObject(doc.status))
    issues.push(issue('status', 'must be a mapping (it is ignored: the controller writes status)'));
  if (!isObject(doc.metadata)) issues.push(issue('metadata', 'must be a mapping with name', 'required'));
  const meta = checkMetadata(isObject(doc.metadata) ? doc.metadata : {});
  fresh(meta.issues);
  const v = validateRolloutSpec(doc.spec);
  if (!v.ok) fresh(v.issues);
  if (issues.length > 0 || !v.ok || !meta.id) return { ok: false, issues };
  const { name, namespace } = meta.id;
  return {
    ok: true,
    rollout: {
      id: `${namespace}/${name}`,
      name,
      namespace,
      labels: meta.labels,
      spec: v.spec,
      raw: doc.spec,
    },
  };
}
