/**
 * drift-event: EventBridge delivers CloudTrail records of EKS API calls. A mutating call made by
 * anyone but CloudOrch's own role starts a reconcile of that cluster at once. The record is found
 * through the cluster's ownership tag (one DescribeCluster) or, when the tag is gone (someone
 * removed it: exactly the change to report), through the target's claim.
 */
import { isMutatingEksCall } from '../../config.js';
import { OWNER_TAG, ownershipOf } from '../../core/ownership.js';
import { depsOf } from '../deps.js';
import { executionName, timeBucket } from '../execution-name.js';
import { emit, log, METRIC } from '../telemetry.js';

/** The parts of a CloudTrail "AWS API Call via CloudTrail" event this handler reads. */
export interface CloudTrailEksEvent {
  readonly 'detail-type'?: string;
  /** The account the event happened in (EventBridge's envelope; a target account's rule forwards it). */
  readonly account?: string;
  readonly detail: {
    readonly eventSource: string;
    readonly eventName: string;
    readonly awsRegion: string;
    readonly userIdentity?: {
      readonly arn?: string;
      readonly sessionContext?: { readonly sessionIssuer?: { readonly arn?: string } };
    };
    readonly requestParameters?: {
      readonly name?: string;
      readonly clusterName?: string;
      /** TagResource / UntagResource name the resource by ARN. */
      readonly resourceArn?: string;
    } | null;
  };
}

/**
 * Whether a caller is CloudOrch itself: one of its roles, where an entry may name any account with
 * `*` (`arn:aws:iam::*:role/<name>`: the role it assumes in every target account).
 */
export function isOwnCaller(caller: string, own: readonly string[]): boolean {
  return own.some((o) => {
    if (o === caller) return true;
    const [head, tail] = o.split(':*:');
    return (
      tail !== undefined &&
      caller.startsWith(`${head}:`) &&
      caller.endsWith(`:${tail}`) &&
      /^\d{12}$/.test(caller.slice(head!.length + 1, caller.length - tail.length - 1))
    );
  });
}

/** The event's cluster target: in the event's account when that is not CloudOrch's own. */
export function targetOf(
  e: CloudTrailEksEvent,
  clusterName: string,
  ownAccountId: string | undefined,
): { clusterName: string; region: string; accountId?: string } {
  const other = ownAccountId !== undefined && e.account !== undefined && e.account !== ownAccountId;
  return { clusterName, region: e.detail.awsRegion, ...(other ? { accountId: e.account } : {}) };
}

export function callerOf(e: CloudTrailEksEvent): string | undefined {
  return e.detail.userIdentity?.sessionContext?.sessionIssuer?.arn ?? e.detail.userIdentity?.arn;
}

/** The cluster a call was about: by name, or from a cluster or node group ARN. */
export function clusterNameOf(e: CloudTrailEksEvent): string | undefined {
  const p = e.detail.requestParameters;
  if (p?.name ?? p?.clusterName) return p?.name ?? p?.clusterName;
  // arn:<partition>:eks:<region>:<account>:cluster/<name> or nodegroup/<cluster>/<group>/<uuid>
  const m = p?.resourceArn?.match(/^arn:[^:]+:eks:[^:]*:[^:]*:(?:cluster|nodegroup)\/([^/]+)/);
  return m?.[1];
}

export async function onDriftEvent(e: CloudTrailEksEvent): Promise<{ started: boolean; why: string }> {
  const { provider, executions, config, store, now } = depsOf('driftEvent');
  if (e.detail.eventSource !== 'eks.amazonaws.com' || !isMutatingEksCall(e.detail.eventName))
    return { started: false, why: 'not a mutating EKS call' };
  const caller = callerOf(e);
  if (caller && isOwnCaller(caller, config.ownRoleArns))
    return { started: false, why: 'made by CloudOrch itself' };
  const clusterName = clusterNameOf(e);
  if (!clusterName) return { started: false, why: 'no cluster name in the event' };
  const target = targetOf(e, clusterName, config.ownAccountId);
  const obs = await provider.observe(target);
  const owner = obs.cluster?.tags[OWNER_TAG];
  const id =
    owner && obs.cluster && ownershipOf(obs.cluster.tags, owner) === 'owned'
      ? owner
      : await store.claimHolder(target);
  if (!id) return { started: false, why: 'cluster not managed by CloudOrch' };
  const parsed = await store.inspect(id);
  if (parsed?.kind !== 'record') return { started: false, why: `no record ${id}` };
  const record = parsed.record;
  // One drift execution per cluster per minute absorbs bursts of CloudTrail events.
  const res = await executions.start(
    executionName(record.id, record.generation, 'drift', timeBucket(now(), 60), record.createdAt),
    { id: record.id, trigger: 'drift' },
  );
  if (res.started) emit(METRIC.ExecutionsStarted, 1, { Trigger: 'drift' });
  log().info('drift event', {
    clusterId: record.id,
    eventName: e.detail.eventName,
    caller,
    started: res.started,
  });
  return {
    started: res.started,
    why: res.started ? `${e.detail.eventName} by ${caller ?? 'unknown'}` : 'already reconciling',
  };
}
