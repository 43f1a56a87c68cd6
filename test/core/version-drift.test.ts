/**
 * Version drift and the version stages read one comparison (the rule's `gap`), so they agree even
 * where two strings name one version.
 */
import { describe, expect, it } from 'vitest';
import { ownershipTags } from '../../lambdas/core/ownership.js';
import { detectDrift } from '../../lambdas/core/plan/fields.js';
import { nextStep } from '../../lambdas/core/plan/step.js';
import { cluster, DEFAULTS, desired, ID, nodegroupFor, observation, spec } from './support/fixtures.js';

const s = spec({ kubernetesVersion: '1.31' });

function at(planeVersion: string, groupVersion: string) {
  const tags = { ...s.tags, ...ownershipTags(ID) };
  return observation(cluster({ version: planeVersion, tags }), [nodegroupFor(s, { version: groupVersion })]);
}

const versionDrift = (o: ReturnType<typeof at>) =>
  detectDrift(s, o, DEFAULTS).filter((i) => /(^|\.)kubernetesVersion$/.test(i.field));

describe('kubernetesVersion drift', () => {
  it('is none where the planner sees no version work, however the version is spelled', () => {
    const o = at('1.031', '1.31');
    expect(versionDrift(o)).toEqual([]);
    expect(nextStep(desired({ kubernetesVersion: '1.31' }), o, DEFAULTS).next).toBeNull();
  });

  it('names each resource the planner will upgrade', () => {
    const o = at('1.30', '1.30');
    expect(versionDrift(o).map((i) => i.field)).toEqual([
      'kubernetesVersion',
      'nodeGroups[default].kubernetesVersion',
    ]);
    expect(nextStep(desired({ kubernetesVersion: '1.31' }), o, DEFAULTS).next?.kind).toBe(
      'UpdateClusterVersion',
    );
  });
});
