import { describe, expect, it } from 'vitest';
import {
  CLUSTER_STATUS_HEALTH,
  clusterHealth,
  Health,
  isTransitional,
  NODEGROUP_STATUS_HEALTH,
  nodegroupHealth,
  UPDATE_STATUS_HEALTH,
  updateHealth,
} from '../../lambdas/core/health.js';

// The EKS model's enums (botocore service-2.json): the mapping must cover every value.
const CLUSTER_STATUSES = ['CREATING', 'ACTIVE', 'DELETING', 'FAILED', 'UPDATING', 'PENDING'];
const NODEGROUP_STATUSES = [
  'CREATING',
  'ACTIVE',
  'UPDATING',
  'DELETING',
  'CREATE_FAILED',
  'DELETE_FAILED',
  'DEGRADED',
];
const UPDATE_STATUSES = ['InProgress', 'Failed', 'Cancelled', 'Successful'];

describe('health mapping', () => {
  it('covers every EKS status enum value exactly', () => {
    expect(Object.keys(CLUSTER_STATUS_HEALTH).sort()).toEqual([...CLUSTER_STATUSES].sort());
    expect(Object.keys(NODEGROUP_STATUS_HEALTH).sort()).toEqual([...NODEGROUP_STATUSES].sort());
    expect(Object.keys(UPDATE_STATUS_HEALTH).sort()).toEqual([...UPDATE_STATUSES].sort());
  });

  it.each([
    ['CREATING', Health.Progressing],
    ['ACTIVE', Health.Healthy],
    ['UPDATING', Health.Progressing],
    ['DELETING', Health.Deleting],
    ['FAILED', Health.Failed],
    ['PENDING', Health.Progressing],
  ])('cluster %s is %s', (status, health) => {
    expect(clusterHealth(status)).toBe(health);
  });

  it.each([
    ['CREATING', Health.Progressing],
    ['ACTIVE', Health.Healthy],
    ['UPDATING', Health.Progressing],
    ['DELETING', Health.Deleting],
    ['CREATE_FAILED', Health.Failed],
    ['DELETE_FAILED', Health.Failed],
    ['DEGRADED', Health.Degraded],
  ])('node group %s is %s', (status, health) => {
    expect(nodegroupHealth(status)).toBe(health);
  });

  it.each([
    ['InProgress', Health.Progressing],
    ['Successful', Health.Healthy],
    ['Failed', Health.Failed],
    ['Cancelled', Health.Degraded],
  ])('update %s is %s', (status, health) => {
    expect(updateHealth(status)).toBe(health);
  });

  it('never guesses: unknown or missing statuses are Unknown, even prototype keys', () => {
    expect(clusterHealth('RUNNING')).toBe(Health.Unknown);
    expect(clusterHealth(undefined)).toBe(Health.Unknown);
    expect(nodegroupHealth('toString')).toBe(Health.Unknown);
    expect(updateHealth('active')).toBe(Health.Unknown);
  });

  it('an ACTIVE resource with health issues is Degraded, not Healthy', () => {
    expect(clusterHealth('ACTIVE', 1)).toBe(Health.Degraded);
    expect(nodegroupHealth('ACTIVE', 2)).toBe(Health.Degraded);
    expect(clusterHealth('CREATING', 1)).toBe(Health.Progressing);
  });

  it('only Progressing and Deleting are transitional', () => {
    expect(Object.values(Health).filter(isTransitional).sort()).toEqual([
      Health.Deleting,
      Health.Progressing,
    ]);
  });
});
