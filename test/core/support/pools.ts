/** The three pools the pool tests share: a tainted system pool, general workers, an external spot pool. */
import type { CloudClusterSpecInput } from '../../../lambdas/core/spec/schema.js';

export type PoolInput = NonNullable<CloudClusterSpecInput['nodeGroups']>[number];

export const SYSTEM: PoolInput = {
  name: 'system',
  instanceTypes: ['t3.large'],
  nodeCount: 2,
  labels: { role: 'system' },
  taints: [{ key: 'CriticalAddonsOnly', effect: 'NO_SCHEDULE' }],
};
export const GENERAL: PoolInput = { name: 'general', instanceTypes: ['m6i.large'], nodeCount: 3 };
export const SPOT: PoolInput = {
  name: 'spot',
  instanceTypes: ['m5.large', 'm6i.large'],
  capacityType: 'SPOT',
  nodeCount: 2,
  minSize: 0,
  maxSize: 10,
  scaling: 'external',
};
