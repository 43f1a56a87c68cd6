import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseManifests } from '../../lambdas/core/manifest.js';

const example = (name: string) => readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8');

describe('manifests', () => {
  it.each(['dev-small.yaml', 'prod-tagged.yaml', 'denied-by-policy.yaml'])(
    'example %s is a valid CloudCluster',
    (name) => {
      const r = parseManifests(example(name), name);
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.manifests[0]?.id).toMatch(/^[a-z-]+\/[a-z-]+$/);
    },
  );

  it('reads several documents and JSON', () => {
    const two = `${example('dev-small.yaml')}\n---\n${example('prod-tagged.yaml')}`;
    const r = parseManifests(two, 'two.yaml');
    expect(r.ok && r.manifests.map((m) => m.id)).toEqual(['team-payments/dev-small', 'platform/prod-main']);
    const json = JSON.stringify({
      apiVersion: 'compute.cloudorch.io/v1',
      kind: 'CloudCluster',
      metadata: { name: 'j' },
      spec: {
        provider: 'aws',
        region: 'us-east-1',
        clusterName: 'j',
        kubernetesVersion: '1.34',
        nodeCount: 1,
        instanceType: 't3.medium',
      },
    });
    const rj = parseManifests(json, 'c.json');
    expect(rj.ok && rj.manifests[0]?.id).toBe('default/j');
  });

  it('names the file, the document and the field of each problem, and returns nothing else', () => {
    const bad = `${example('dev-small.yaml')}\n---\n${example('prod-tagged.yaml').replace('nodeCount: 6', 'nodeCount: -6')}`;
    const r = parseManifests(bad, 'f.yaml');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]?.message).toBe('f.yaml#2: spec.nodeCount: nodeCount must be at least 0');
  });

  it('reports YAML syntax errors with their document', () => {
    const r = parseManifests('apiVersion: [unclosed', 'broken.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.message).toMatch(/^broken\.yaml#1: invalid YAML/);
  });

  it('rejects the wrong kind, a bad name and duplicate ids', () => {
    const doc = example('dev-small.yaml');
    const r1 = parseManifests(doc.replace('kind: CloudCluster', 'kind: Cluster'), 'k.yaml');
    expect(!r1.ok && r1.issues.map((i) => i.field)).toEqual(['kind']);
    const r2 = parseManifests(doc.replace('name: dev-small', 'name: Dev_Small'), 'n.yaml');
    expect(!r2.ok && r2.issues.map((i) => i.field)).toEqual(['metadata.name']);
    const r3 = parseManifests(`${doc}\n---\n${doc}`, 'd.yaml');
    expect(!r3.ok && r3.issues[0]?.message).toMatch(/defined twice/);
  });
});
