import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseManifests } from '../../lambdas/core/manifest.js';

const example = (name: string) => readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8');

describe('manifests', () => {
  it.each(readdirSync(new URL('../../examples/', import.meta.url)).filter((f) => f.endsWith('.yaml')))(
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
    expect(!r3.ok && r3.issues.map((i) => i.message)).toEqual([
      'd.yaml#2: metadata.name: team-payments/dev-small is defined twice (first in d.yaml#1)',
    ]);
  });

  describe('reserved object keys anywhere are errors naming the path, never dropped', () => {
    const doc = example('dev-small.yaml');
    const json = (spec: string, metadata = '{"name":"j"}', extra = '') =>
      `{"apiVersion":"compute.cloudorch.io/v1","kind":"CloudCluster",${extra}"metadata":${metadata},"spec":${spec}}`;
    const spec = (more: string) =>
      `{"provider":"aws","region":"us-east-1","clusterName":"j","kubernetesVersion":"1.34","nodeCount":1,"instanceType":"t3.medium"${more}}`;
    it.each([
      ['a YAML tag key', doc.replace(/tags:\n/, 'tags:\n    __proto__: x\n'), 'spec.tags.__proto__'],
      ['a quoted YAML tag key', doc.replace(/tags:\n/, 'tags:\n    "__proto__": x\n'), 'spec.tags.__proto__'],
      ['a JSON tag key', json(spec(',"tags":{"__proto__":"x","team":"a"}')), 'spec.tags.__proto__'],
      ['a JSON-escaped tag key', json(spec(',"tags":{"\\u005f_proto__":"x"}')), 'spec.tags.__proto__'],
      ['a spec key', json(spec(',"__proto__":{"paused":true}')), 'spec.__proto__'],
      ['a constructor tag', doc.replace(/tags:\n/, 'tags:\n    constructor: x\n'), 'spec.tags.constructor'],
      [
        'a nested network key',
        json(spec(',"network":{"subnetIds":["subnet-0123abcd","subnet-0123abce"],"prototype":[]}')),
        'spec.network.prototype',
      ],
      ['a metadata key', json(spec(''), '{"name":"j","__proto__":{"namespace":"x"}}'), 'metadata.__proto__'],
      ['a top-level key', json(spec(''), '{"name":"j"}', '"__proto__":{},'), '__proto__'],
      [
        'a key inside a list',
        json(spec(',"network":{"subnetIds":[{"constructor":1},"subnet-0123abce"]}')),
        'spec.network.subnetIds.0.constructor',
      ],
    ])('%s', (_why, text, field) => {
      const r = parseManifests(text, 'p.yaml');
      expect(r.ok).toBe(false);
      if (r.ok) return;
      const hits = r.issues.filter((i) => i.field === field);
      expect(hits, JSON.stringify(r.issues)).toHaveLength(1);
      expect(hits[0]?.message).toMatch(
        new RegExp(
          `^p\\.yaml#1: ${field.replace(/\./g, '\\.')}: "(__proto__|constructor|prototype)" is not allowed as a key`,
        ),
      );
    });
  });

  it('names the file and document of a YAML alias bomb', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    const bomb = `${example('dev-small.yaml')}\n---\n${lines.join('\n')}\n`;
    const r = parseManifests(bomb, 'bomb.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues.map((i) => i.message)).toEqual([
        'bomb.yaml#2: invalid YAML: Excessive alias count indicates a resource exhaustion attack',
      ]);
  });
});
