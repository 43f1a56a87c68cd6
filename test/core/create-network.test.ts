/**
 * What a create sends for the network: the planner resolves deployment defaults only where the spec
 * is silent, and the provider sends what the plan says (it no longer fills in defaults itself).
 */
import { describe, expect, it } from 'vitest';
import { nextStep } from '../../lambdas/core/plan/step.js';
import type { CreateCluster } from '../../lambdas/core/plan/types.js';
import { desired, observation } from './support/fixtures.js';

const SUBNETS = ['subnet-0a000000000000001', 'subnet-0b000000000000002'];
const DEFAULTS = {
  clusterRoleArn: 'arn:aws:iam::111122223333:role/cluster',
  subnetIds: SUBNETS,
  securityGroupIds: ['sg-0default00000000001'],
};

function create(network: { subnetIds: string[]; securityGroupIds?: string[] } | undefined): CreateCluster {
  const next = nextStep(desired(network ? { network } : {}), observation(null), DEFAULTS).next;
  if (next?.kind !== 'CreateCluster') throw new Error(`expected CreateCluster, got ${next?.kind}`);
  return next;
}

describe('CreateCluster network', () => {
  it('takes the deployment security groups when the spec has no network', () => {
    expect(create(undefined).securityGroupIds).toEqual(DEFAULTS.securityGroupIds);
  });
  it('takes the deployment security groups when the spec lists none', () => {
    expect(create({ subnetIds: SUBNETS }).securityGroupIds).toEqual(DEFAULTS.securityGroupIds);
  });
  it('sends an explicit empty list as none, so drift compares the same empty list', () => {
    expect(create({ subnetIds: SUBNETS, securityGroupIds: [] }).securityGroupIds).toEqual([]);
  });
});
