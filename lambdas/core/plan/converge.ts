/**
 * Converging a cluster this record owns: an ordered list of small stages, each deciding one concern.
 * The order is the EKS rulebook: what cannot converge is reported first, transitions in flight are
 * waited for, ownership is claimed, each pool's group is replaced without a capacity gap, groups no
 * pool wants go once every pool is ACTIVE, versions step one minor at a time with the pools brought
 * along first (in spec order), then each pool's mutable fields, then tags. One operation per step:
 * pools never update concurrently.
 */
import { Health } from '../health.js';
import type { Observation, ObservedCluster } from '../observation.js';
import { OWNER_TAG, ownershipOf, ownershipTags, ownershipTagsOf, RELEASED_TAG } from '../ownership.js';
import { readinessOf } from '../spec/facts.js';
import { nextMinor } from '../version.js';
import { compatible } from './addons.js';
import { accessBlockers, convergeAccess } from './converge-access.js';
import { addonBlockers, convergeAddons } from './converge-addons.js';
import {
  catchUpPoolVersions,
  configurePools,
  removeUnwantedGroups,
  replacePools,
  reportPoolsAhead,
  workingPools,
} from './converge-pools.js';
import type { Decision, PlanContext, Stage } from './converge-types.js';
import { FIELD_TABLE, fieldContext, unconvergeableDifferences } from './fields.js';
import { busy, impossible, type Step } from './guards.js';
import { withToken } from './tokens.js';
import {
  type BlockingInsight,
  baseOf,
  type Desired,
  type Impossible,
  type MutatingOperation,
  type PlanDefaults,
  type UpgradeGate,
  type Wait,
} from './types.js';

/** The values each stage acts on: the same ones its field's rule compares for drift. */
const version = FIELD_TABLE.kubernetesVersion.values;
const tags = FIELD_TABLE.tags.values;

const act = (next: MutatingOperation | Wait): Decision => ({ next });
const stop = (blocker: Impossible): Decision => ({ impossible: [blocker], next: null });

/** Fields EKS cannot change are reported whatever else this step does. */
const reportUnconvergeable: Stage = (x) => ({
  impossible: [...unconvergeableDifferences(x), ...accessBlockers(x), ...addonBlockers(x)],
});

/** EKS refuses changes to resources that are still changing: observe again later. */
const waitForEks: Stage = ({ cluster, nodegroups, parts }) => {
  const waiting = busy(cluster, nodegroups, parts.addons ?? []);
  return waiting ? act(waiting) : undefined;
};

const stopIfClusterFailed: Stage = ({ cluster: c }) =>
  c.health === Health.Failed
    ? stop(
        impossible(
          'cluster',
          `cluster ${c.name} is FAILED in EKS`,
          'Inspect the cluster in the EKS console; delete it (set deletionPolicy: Delete and delete the record) to start over.',
        ),
      )
    : undefined;

/**
 * Adopting (or re-claiming a released or lost cluster): the ownership comes first. A cluster this
 * very record released only loses its release mark; another record's is tagged as ours (and the
 * stale mark then goes with the other tags).
 */
const claimOwnership: Stage = ({ d, cluster: c, base }) => {
  const owner = ownershipOf(c.tags, d.id);
  if (owner === 'released' && c.tags[OWNER_TAG] === d.id)
    return act({ kind: 'UntagResource', ...base, resourceArn: c.arn, tagKeys: [RELEASED_TAG] });
  if (owner === 'unowned' || owner === 'released')
    return act({ kind: 'TagResource', ...base, resourceArn: c.arn, tags: ownershipTags(d.id) });
  return undefined;
};

/**
 * What EKS's upgrade insights say about a step to `to`: not read; read, but none is about `to` yet
 * (EKS refreshes them about daily, so right after a step the next minor may have none); or the ones
 * in ERROR or UNKNOWN (an insight naming no version is about every step).
 */
function insightsAbout(x: PlanContext, to: string): { missing: string } | { blocking: BlockingInsight[] } {
  const insights = x.parts.insights;
  if (!insights) return { missing: 'upgrade insights were not read' };
  if (!insights.some((i) => i.kubernetesVersion === to))
    return { missing: `EKS has reported no upgrade insight about ${to} yet` };
  const blocking = insights
    .filter((i) => i.kubernetesVersion === undefined || i.kubernetesVersion === to)
    .filter((i) => i.status === 'ERROR' || i.status === 'UNKNOWN')
    .map((i) => ({
      name: i.name,
      id: i.id,
      status: i.status,
      ...(i.reason ? { reason: i.reason } : {}),
      ...(i.recommendation ? { recommendation: i.recommendation } : {}),
    }));
  return { blocking };
}

const gateText = (g: UpgradeGate) =>
  g.missing ?? g.insights.map((i) => `${i.name} (${i.status}${i.reason ? `: ${i.reason}` : ''})`).join('; ');

/**
 * The readiness gate before a control-plane step: under `block`, insights in ERROR or UNKNOWN, or
 * none known about the target, hold the step (with no call); under `warn` it goes ahead with a
 * warning. Either way the rest of the plan (sizes, labels, tags) still converges.
 */
function readinessGate(
  x: PlanContext,
  to: string,
): { block: Impossible } | { warn: UpgradeGate } | undefined {
  const mode = readinessOf(x.spec);
  if (mode === 'ignore') return undefined;
  const about = insightsAbout(x, to);
  if ('blocking' in about && about.blocking.length === 0) return undefined;
  const gate: UpgradeGate =
    'missing' in about
      ? { toVersion: to, insights: [], missing: about.missing }
      : { toVersion: to, insights: about.blocking };
  if (mode === 'warn') return { warn: gate };
  // Each recommendation as one clause: EKS's text may or may not end in a full stop.
  const advice = gate.insights.flatMap((i) =>
    i.recommendation ? [`${i.name}: ${i.recommendation.trim().replace(/\.$/, '')}.`] : [],
  );
  const remediation =
    'missing' in about
      ? `CloudOrch steps once EKS reports its upgrade insights for ${to} (aws eks list-insights --cluster-name ${x.cluster.name}) and none is in ERROR; to step without them, set spec.upgrade.readiness: warn.`
      : `${advice.length > 0 ? `${advice.join(' ')} ` : ''}Fix what the insights report (aws eks describe-insight --cluster-name ${x.cluster.name} --id <id>); CloudOrch steps once EKS marks them passing. To step anyway, set spec.upgrade.readiness: warn.`;
  return {
    block: {
      ...impossible(
        'kubernetesVersion',
        `upgrade to ${to} held by the readiness gate: ${gateText(gate)}`,
        remediation,
      ),
      upgradeBlocked: gate,
    },
  };
}

/**
 * A listed add-on the control plane would leave behind: missing, or running a version the current
 * minor does not run (its update failed or has not happened). Add-ons catch up before the next step,
 * as node groups do.
 */
function addonBehind(x: PlanContext): Impossible | undefined {
  for (const addon of x.spec.addons ?? []) {
    const versions = x.parts.addonVersions?.[addon.name];
    if (!versions || !x.parts.addons) continue;
    const current = x.parts.addons.find((a) => a.name === addon.name);
    if (current && compatible(versions, current.version, x.cluster.version)) continue;
    return impossible(
      `addons[${addon.name}]`,
      current
        ? `add-on ${addon.name} is ${current.status} at ${current.version}, which Kubernetes ${x.cluster.version} does not run; the control plane waits for it`
        : `add-on ${addon.name} does not exist yet; the control plane waits for it`,
      'Check the add-on (aws eks describe-addon); CloudOrch updates it before the next step. A failed update is tried again by cloudorch reconcile.',
    );
  }
  return undefined;
}

/**
 * EKS moves the control plane one minor version at a time. A step held back (add-ons, the readiness
 * gate) is reported, and the later stages still converge what they can.
 */
const upgradeControlPlane: Stage = (x) => {
  const { d, cluster: c, base } = x;
  if (version.gap(x, c.version) >= 0) return undefined;
  // A listed add-on that no minor on the way can run: reported up front (reportUnconvergeable).
  if (addonBlockers(x).length > 0) return undefined;
  // Pools caught up in the stage before; a group still behind is one CloudOrch does not upgrade.
  const behind = x.nodegroups.find((ng) => version.behindPlane(ng, c));
  if (behind)
    return stop(
      impossible(
        'kubernetesVersion',
        `node group ${behind.name} is at ${behind.version}, behind the control plane (${c.version}); EKS upgrades the control plane only when its node groups have caught up`,
        'Fix or delete that node group (a failed pool, or one CloudOrch did not create); CloudOrch then continues the upgrade.',
      ),
    );
  const lagging = addonBehind(x);
  if (lagging) return { impossible: [lagging] };
  const to = nextMinor(c.version);
  const gate = readinessGate(x, to);
  if (gate && 'block' in gate) return { impossible: [gate.block] };
  const op = { kind: 'UpdateClusterVersion', ...base, fromVersion: c.version, toVersion: to } as const;
  return {
    next: withToken(d, op, to),
    ...(gate ? { warnings: [{ kind: 'UpgradeWarning', gate: gate.warn } as const] } : {}),
  };
};

/**
 * Tags of one resource. The cluster carries this record's ownership tags; a node group keeps the
 * ownership tags it has (one made under a record that released the cluster stays so: IAM lets no
 * one re-own a node group, and CloudOrch manages it through the cluster's claim).
 */
function retag(
  x: PlanContext,
  resourceArn: string,
  observed: Readonly<Record<string, string>>,
  ownership: Readonly<Record<string, string>>,
): MutatingOperation | null {
  const { base } = x;
  const { toSet, toRemove } = tags.changes(x, observed, ownership);
  if (Object.keys(toSet).length > 0) return { kind: 'TagResource', ...base, resourceArn, tags: toSet };
  if (toRemove.length > 0) return { kind: 'UntagResource', ...base, resourceArn, tagKeys: toRemove };
  return null;
}

/** The cluster's tags, then each pool's group's in spec order. */
const convergeTags: Stage = (x) => {
  const op =
    retag(x, x.cluster.arn, x.cluster.tags, ownershipTags(x.d.id)) ??
    workingPools(x).reduce<MutatingOperation | null>(
      (found, { current: ng }) => found ?? retag(x, ng.arn, ng.tags, ownershipTagsOf(ng.tags)),
      null,
    );
  return op ? act(op) : undefined;
};

const STAGES: readonly Stage[] = [
  reportUnconvergeable,
  waitForEks,
  stopIfClusterFailed,
  claimOwnership,
  convergeAccess,
  convergeAddons,
  replacePools,
  removeUnwantedGroups,
  catchUpPoolVersions,
  upgradeControlPlane,
  reportPoolsAhead,
  configurePools,
  convergeTags,
];

/** The next step for a cluster this record may change: the first stage that acts decides it. */
export function convergeStep(d: Desired, c: ObservedCluster, o: Observation, defaults: PlanDefaults): Step {
  const x: PlanContext = {
    ...fieldContext(d.spec, c, o.nodegroups, defaults, o),
    d,
    base: baseOf({ clusterName: c.name, region: c.region, accountId: d.spec.accountId }),
  };
  const found: Impossible[] = [];
  for (const stage of STAGES) {
    const decision = stage(x);
    found.push(...(decision?.impossible ?? []));
    if (decision?.next !== undefined)
      return {
        impossible: found,
        next: decision.next,
        ...(decision.warnings ? { warnings: decision.warnings } : {}),
      };
  }
  return { impossible: found, next: null };
}
