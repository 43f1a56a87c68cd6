/** Label rules as the Kubernetes API server applies them; each case says which rule it checks. */
import { describe, expect, it } from 'vitest';
import { labelKeyProblem, labelValueProblem, sameLabels, validateLabels } from '../../lambdas/core/labels.js';
import { parseManifests } from '../../lambdas/core/manifest.js';

describe('label keys', () => {
  it.each([
    ['app', 'a plain name'],
    ['app.kubernetes.io/name', 'a DNS-subdomain prefix'],
    ['A_b-c.D', 'upper case, underscore, dash and dot inside the name'],
    ['x'.repeat(63), 'a 63-character name'],
    [`${'a'.repeat(253)}/n`, 'a 253-character prefix'],
  ])('accepts %s (%s)', (key) => expect(labelKeyProblem(key)).toBeUndefined());

  it.each([
    ['', 'an empty name'],
    ['-app', 'a name starting with a dash'],
    ['app_', 'a name ending with an underscore'],
    ['x'.repeat(64), 'a name over 63 characters'],
    ['/app', 'an empty prefix'],
    ['Example.com/app', 'an upper-case prefix'],
    [`${'a'.repeat(254)}/n`, 'a prefix over 253 characters'],
    ['a/b/c', 'two slashes (the name holds a slash)'],
    ['sp ace', 'a space'],
  ])('refuses %j (%s)', (key) => expect(labelKeyProblem(key)).toBeDefined());
});

describe('label values', () => {
  it.each(['', 'v1', 'a.b_c-d', 'x'.repeat(63)])('accepts %j', (v) =>
    expect(labelValueProblem(v)).toBeUndefined(),
  );
  it.each(['x'.repeat(64), '-v', 'v-', 'a b', 'a/b'])('refuses %j', (v) =>
    expect(labelValueProblem(v)).toBeDefined(),
  );
});

describe('validateLabels', () => {
  it('names the field of each problem, and refuses values that are not strings', () => {
    const r = validateLabels({ ok: 'yes', 'bad key': 'v', tier: 1, long: 'x'.repeat(64) });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues.map((i) => i.field)).toEqual([
        'metadata.labels.bad key',
        'metadata.labels.tier',
        'metadata.labels.long',
      ]);
    expect(validateLabels(['a']).ok).toBe(false);
  });

  it('compares label sets regardless of order', () => {
    expect(sameLabels({ a: '1', b: '2' }, { b: '2', a: '1' })).toBe(true);
    expect(sameLabels({ a: '1' }, { a: '1', b: '' })).toBe(false);
    expect(sameLabels({ a: '1' }, { a: '2' })).toBe(false);
  });
});

const doc = (metadata: string, extra = '') => `apiVersion: compute.cloudorch.io/v1
kind: CloudCluster
metadata: ${metadata}
spec: {provider: aws, region: us-east-1, clusterName: c, kubernetesVersion: "1.34", nodeCount: 1, instanceType: t3.medium}
${extra}`;

describe('manifests with labels and what get -o yaml prints', () => {
  it('reads labels beside the spec', () => {
    const r = parseManifests(doc('{name: a, labels: {app: web, "team.io/owner": pay}}'), 'l.yaml');
    expect(r.ok && r.manifests[0]?.labels).toEqual({ app: 'web', 'team.io/owner': 'pay' });
    const none = parseManifests(doc('{name: a}'), 'l.yaml');
    expect(none.ok && none.manifests[0]?.labels).toEqual({});
  });

  it('names the label field of each problem', () => {
    const r = parseManifests(doc('{name: a, labels: {"-x": v, tier: 3}}'), 'l.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues.map((i) => i.field)).toEqual(['metadata.labels.-x', 'metadata.labels.tier']);
      expect(r.issues[0]?.message).toMatch(/^l\.yaml#1: metadata\.labels\.-x: key name "-x"/);
    }
  });

  it('accepts read-only metadata and status (ignored), and refuses fields it does not read', () => {
    const printed = doc(
      '{name: a, generation: 3, creationTimestamp: "2026-01-01T00:00:00.000Z"}',
      'status: {conditions: []}',
    );
    expect(parseManifests(printed, 'p.yaml').ok).toBe(true);
    const r = parseManifests(doc('{name: a, annotations: {x: y}, generation: 0}', 'extra: 1'), 'p.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues.map((i) => i.field)).toEqual(['extra', 'metadata.annotations', 'metadata.generation']);
  });

  it('reads the items of a List, naming an item by its index', () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n- ${doc('{name: a}').replace(/\n(?!$)/g, '\n  ')}- ${doc('{name: "B"}').replace(/\n(?!$)/g, '\n  ')}`;
    const r = parseManifests(list, 'list.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues.map((i) => i.message)).toEqual([
        expect.stringMatching(/^list\.yaml#1\.items\[1\]: metadata\.name:/),
      ]);
    const ok = parseManifests(
      list.replace('"B"', 'b').replace('clusterName: c', 'clusterName: c'),
      'list.yaml',
    );
    expect(ok.ok && ok.manifests.map((m) => m.id)).toEqual(['default/a', 'default/b']);
    expect(parseManifests('apiVersion: v2\nkind: List\nitems: {}\n', 'x').ok).toBe(false);
  });
});
