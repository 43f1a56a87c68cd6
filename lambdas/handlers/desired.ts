/** The planner's view of a record, built the same way by the reconcile steps and the sweep. */
import { Reason } from '../core/conditions.js';
import type { ClusterStatus } from '../core/status.js';

/**
 * The ARN of the cluster this record owned when its status was last written. It stays known while
 * status says the ownership was lost, so a lost tag keeps being reported until it is re-claimed.
 */
export function ownedArnOf(status: ClusterStatus | undefined): string | undefined {
  const observed = status?.observed;
  if (!status || !observed?.arn) return undefined;
  const ready = status.conditions.find((c) => c.type === 'Ready');
  return observed.owned || ready?.reason === Reason.OwnershipLost ? observed.arn : undefined;
}
