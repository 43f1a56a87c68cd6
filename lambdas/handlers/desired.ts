/** The planner's view of a record, built the same way by the reconcile steps and the sweep. */
import type { ClusterStatus } from '../core/status.js';

/**
 * The ARN of the cluster this record has owned: kept in status across every later outcome (an EKS
 * outage included), so a removed owner tag is always told apart from one that was never there.
 * Status written before `ownedArn` existed says it through `observed.owned`.
 */
export function ownedArnOf(status: ClusterStatus | undefined): string | undefined {
  return status?.ownedArn ?? (status?.observed?.owned ? status.observed.arn : undefined);
}
