/** What every `cloudorch sim` command needs: the simulator of a target, and the cluster a name means. */
import { InternalError } from '../../../lambdas/core/errors.js';
import { listItems } from '../../../lambdas/store/list.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import type { Output } from '../format.js';
import { NameResolutionError, resolveName } from '../resolve.js';
import type { Target } from '../target.js';

/** What the commands that only talk to the admin API need of a target. */
export type SimTarget = Pick<Target, 'store' | 'sim' | 'simIn'>;

export function simOf(t: Pick<Target, 'sim'>, o: Output) {
  if (!t.sim)
    o.err('error: `cloudorch sim` only works against `cloudorch dev` (the EKS simulator), never against AWS');
  return t.sim;
}

/** Where `sim drift` acts when it is given no region and names no CloudCluster. */
export const DEFAULT_DRIFT_REGION = 'us-east-1';

/** A simulated EKS cluster: its name, region and, when not the simulator's default, its account. */
export interface SimCluster {
  readonly clusterName: string;
  readonly region: string;
  readonly accountId?: string;
}

/**
 * The EKS cluster a `sim drift` name means: a CloudCluster (by id or bare name, as `describe` and
 * `delete` match) gives its spec's cluster name, region and account; anything else is an EKS cluster
 * name, in `region` and `account` (default: the simulator's own account).
 */
export async function driftTarget(
  t: Pick<Target, 'store'>,
  o: Output,
  name: string,
  region: string | undefined,
  account?: string,
): Promise<SimCluster | undefined> {
  const { records } = await listItems(t.store);
  let r: ClusterRecord;
  try {
    const found = resolveName({ records, invalid: [] }, name, {});
    if (found.kind !== 'record') throw new InternalError('a listing of records found a malformed item');
    r = found.record;
  } catch (err) {
    if (!(err instanceof NameResolutionError)) throw err;
    // Two CloudClusters of that name: which one is meant cannot be guessed.
    if (err.ambiguous) {
      o.err(`error: ${err.message}`);
      return undefined;
    }
    return {
      clusterName: name,
      region: region ?? DEFAULT_DRIFT_REGION,
      ...(account !== undefined ? { accountId: account } : {}),
    };
  }
  // A region that contradicts the record would drift some other cluster than the one named.
  if (region !== undefined && region !== r.spec.region) {
    o.err(`error: cloudcluster ${r.id} is in ${r.spec.region}, not ${region}`);
    return undefined;
  }
  if (account !== undefined && account !== r.spec.accountId) {
    o.err(
      `error: cloudcluster ${r.id} is in ${r.spec.accountId ? `account ${r.spec.accountId}` : "CloudOrch's own account"}, not ${account}`,
    );
    return undefined;
  }
  const { clusterName, region: own, accountId } = r.spec;
  return { clusterName, region: own, ...(accountId !== undefined ? { accountId } : {}) };
}

/** The simulator's admin API where a cluster lives: its region, and its account when named. */
export function simAt(t: Required<Pick<Target, 'simIn'>>, where: SimCluster) {
  const sim = t.simIn(where.region);
  return where.accountId !== undefined ? sim.forAccount(where.accountId) : sim;
}
