/** CloudRollout documents: the CloudCluster manifest's rules for apiVersion, metadata and issues. */
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../lambdas/core/manifest.js';
import { parseRolloutManifest, ROLLOUT_KIND } from '../../../lambdas/core/rollout/manifest.js';
import { rolloutInput } from './support/rollout.js';

const doc = (over: Record<string, unknown> = {}) => ({
  apiVersion: API_VERSION,
  kind: 'CloudRollout',
  metadata: { name: 'k8s-1-32', namespace: 'platform', labels: { team: 'platform' } },
  spec: rolloutInput(),
  ...over,
});

function issuesOf(d: unknown) {
  const r = parseRolloutManifest(d);
  if (r.ok) throw new Error('expected the document to be refused');
  return r.issues;
}

describe('parseRolloutManifest', () => {
  it('reads a document into its id, labels, validated spec and the spec as written', () => {
    const d = doc();
    const r = parseRolloutManifest(d);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.rollout).toMatchObject({
      id: 'platform/k8s-1-32',
      name: 'k8s-1-32',
      namespace: 'platform',
      labels: { team: 'platform' },
    });
    expect(r.rollout.spec.stages[1]?.maxConcurrency).toEqual({ percent: 50 });
    expect(r.rollout.raw).toBe(d.spec);
  });

  it('puts a rollout without namespace in "default", as CloudCluster does', () => {
    const r = parseRolloutManifest(doc({ metadata: { name: 'r' } }));
    expect(r.ok && r.rollout.id).toBe('default/r');
  });

  it('uses the CloudCluster apiVersion and its own kind', () => {
    expect(ROLLOUT_KIND).toBe('CloudRollout');
    const issues = issuesOf(doc({ apiVersion: 'cloudorch.io/v1alpha1', kind: 'CloudCluster' }));
    expect(issues.map((i) => i.message)).toEqual([
      `apiVersion: must be ${API_VERSION}`,
      'kind: must be CloudRollout',
    ]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a name that is not a DNS label', { metadata: { name: 'Big_Name' } }, 'metadata.name', /DNS label/],
    ['no name', { metadata: {} }, 'metadata.name', /DNS label/],
    ['no metadata', { metadata: undefined }, 'metadata', /must be a mapping with name/],
    ['a bad namespace', { metadata: { name: 'r', namespace: 'a/b' } }, 'metadata.namespace', /DNS label/],
    [
      'a bad label',
      { metadata: { name: 'r', labels: { 'bad key': 'v' } } },
      'metadata.labels.bad key',
      /key name/,
    ],
    [
      'an unknown metadata field',
      { metadata: { name: 'r', annotations: {} } },
      'metadata.annotations',
      /allowed: name, namespace, labels/,
    ],
    [
      'an unknown top-level field',
      { extra: 1 },
      'extra',
      /allowed: apiVersion, kind, metadata, spec, status/,
    ],
    ['a status that is not a mapping', { status: 'done' }, 'status', /ignored/],
    [
      'a spec issue keeps its field',
      { spec: rolloutInput({ stages: [{ name: 's', share: '0%' }] }) },
      'spec.stages[0].share',
      /"1%" to "100%"/,
    ],
    ['no spec', { spec: undefined }, 'spec', /a rollout spec must be a mapping/],
  ])('refuses %s, naming the field', (_why, over, field, rule) => {
    const issue = issuesOf(doc(over)).find((i) => i.field === field);
    expect(issue?.message, JSON.stringify(issuesOf(doc(over)))).toMatch(rule);
    expect(issue?.message.startsWith(`${field}: `)).toBe(true);
  });

  it('refuses what is not a mapping', () => {
    expect(issuesOf('CloudRollout')[0]?.field).toBe('(document)');
  });

  it('reports a reserved key once, at its field', () => {
    const d = JSON.parse(
      `{"apiVersion":"${API_VERSION}","kind":"CloudRollout","metadata":{"name":"r"},"spec":{"clusters":["a/b"],"change":{"tags":{"__proto__":"x"}},"stages":[{"name":"s"}]}}`,
    );
    expect(issuesOf(d).map((i) => i.field)).toEqual(['spec.change.tags.__proto__']);
  });

  it('accepts what a get -o yaml prints: status and read-only metadata', () => {
    const r = parseRolloutManifest(
      doc({
        metadata: { name: 'r', generation: 3, creationTimestamp: '2026-01-01T00:00:00Z' },
        status: { phase: 'Running' },
      }),
    );
    expect(r.ok).toBe(true);
  });
});
