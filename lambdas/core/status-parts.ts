/**
 * Conditions about a cluster's parts beside its node groups: `AddonsReady` from the listed add-ons as
 * EKS reports them, and `UpgradeBlocked` / `UpgradeWarning` from the plan's readiness gate. Pure: the
 * WriteStatus step hands in the observation and the plan; applyOutcome (status.ts) sets them.
 */
import { accessPolicyName } from './access-policies.js';
import { type ConditionInput, ConditionType, failure, notYet, Reason, success } from './conditions.js';
import { Health } from './health.js';
import type { Observation } from './observation.js';
import type { Impossible, Operation, UpgradeGate, UpgradeWarning } from './plan/types.js';
import type { CloudClusterSpec } from './spec/schema.js';
import type { AccessSummary } from './status.js';

/** What one add-on looks like in status. */
export interface AddonSummary {
  readonly name: string;
  readonly version?: string;
  /** EKS's status, or `Missing`. */
  readonly status: string;
  /** EKS's health issue codes. */
  readonly issues?: readonly string[];
}

/** What to do when a step went past the readiness gate (`readiness: warn`): plan shows it too. */
export const UPGRADE_WARNING_HINT =
  'The readiness gate would have held this step and spec.upgrade.readiness: warn let it through: check the workloads against the insights (aws eks list-insights) now.';

const HINT = {
  unhealthy:
    'Read the add-on health issues (aws eks describe-addon --cluster-name <cluster> --addon-name <name>): InsufficientNumberOfReplicas usually means no nodes can run it, ConfigurationConflict that resolveConflicts: PRESERVE kept a changed field; fix the cause, CloudOrch converges the add-on again. An add-on in CREATE_FAILED or DELETE_FAILED stays until it is deleted (aws eks delete-addon); CloudOrch then creates it again.',
};

/** The listed add-ons in spec order as observed; undefined when the add-ons were not read. */
export function addonSummaries(spec: CloudClusterSpec, o: Observation): AddonSummary[] | undefined {
  if (!o.addons) return undefined;
  return (spec.addons ?? []).map((a) => {
    const seen = o.addons?.find((x) => x.name === a.name);
    if (!seen) return { name: a.name, status: 'Missing' };
    return {
      name: a.name,
      version: seen.version,
      status: seen.status,
      ...(seen.issues.length > 0 ? { issues: seen.issues.map((i) => i.code) } : {}),
    };
  });
}

/** AddonsReady from the observation; Unknown is said by the caller when nothing was observed. */
export function addonsCondition(
  spec: CloudClusterSpec,
  o: Observation,
  g: number,
): ConditionInput | undefined {
  const listed = spec.addons ?? [];
  if (listed.length === 0) return success(ConditionType.AddonsReady, Reason.NoAddons, 'No add-ons listed', g);
  if (!o.cluster)
    return notYet(ConditionType.AddonsReady, Reason.AddonsProgressing, 'The cluster does not exist yet', g);
  if (!o.addons) return undefined;
  const unhealthy: string[] = [];
  const unhealthyNames: string[] = [];
  const pending: string[] = [];
  for (const a of listed) {
    const seen = o.addons.find((x) => x.name === a.name);
    if (!seen) pending.push(`${a.name} (not created yet)`);
    else if (seen.health === Health.Degraded || seen.health === Health.Failed) {
      const issues = seen.issues.map((i) => `${i.code}: ${i.message}`).join('; ');
      unhealthy.push(`${a.name} is ${seen.status}${issues ? ` (${issues})` : ''}`);
      unhealthyNames.push(a.name);
    } else if (seen.health !== Health.Healthy) pending.push(`${a.name} (${seen.status})`);
  }
  if (unhealthy.length > 0) {
    const first = unhealthyNames[0] ?? '<name>';
    const hint = HINT.unhealthy.replace('<cluster>', spec.clusterName).replace('<name>', first);
    return failure(ConditionType.AddonsReady, Reason.AddonUnhealthy, unhealthy.join('; '), hint, g);
  }
  if (pending.length > 0)
    return notYet(
      ConditionType.AddonsReady,
      Reason.AddonsProgressing,
      `Waiting for ${pending.join(', ')}`,
      g,
    );
  return success(ConditionType.AddonsReady, Reason.AddonsActive, `${listed.length} add-ons ACTIVE`, g);
}

/** The authentication mode and entries in status: listed ones and the others, with their policies. */
export function accessSummary(spec: CloudClusterSpec, o: Observation): AccessSummary {
  const mode = o.cluster?.authenticationMode ?? 'CONFIG_MAP';
  if (!o.accessEntries) return { authenticationMode: mode };
  const listed = new Set((spec.access?.entries ?? []).map((e) => e.principalArn));
  return {
    authenticationMode: mode,
    entries: o.accessEntries.map((e) => ({
      principalArn: e.principalArn,
      type: e.type,
      policies: e.policies.map(
        (p) =>
          `${accessPolicyName(p.policyArn)} (${p.scope.type === 'namespace' ? p.scope.namespaces.join(', ') : 'cluster'})`,
      ),
      listed: listed.has(e.principalArn),
    })),
  };
}

const insightNames = (gate: UpgradeGate) =>
  gate.missing ?? gate.insights.map((i) => `${i.name} (${i.status})`).join('; ');

/** UpgradeBlocked and UpgradeWarning from one plan: what the readiness gate decided this run. */
export function upgradeConditions(
  impossible: readonly Impossible[],
  operations: readonly Operation[],
  g: number,
): ConditionInput[] {
  const blocked = impossible.find((i) => i.upgradeBlocked)?.upgradeBlocked;
  const warned = operations.find((op): op is UpgradeWarning => op.kind === 'UpgradeWarning');
  const out: ConditionInput[] = [];
  if (blocked) {
    const stop = impossible.find((i) => i.upgradeBlocked);
    out.push({
      type: ConditionType.UpgradeBlocked,
      status: 'True',
      reason: Reason.UpgradeInsightsFailing,
      message: `Upgrade to ${blocked.toVersion} blocked by EKS upgrade insights: ${insightNames(blocked)}`,
      ...(stop ? { remediation: stop.remediation } : {}),
      observedGeneration: g,
    });
  } else
    out.push(
      notYet(ConditionType.UpgradeBlocked, Reason.UpgradeClear, 'No upgrade insight blocks a step', g),
    );
  if (warned)
    out.push({
      type: ConditionType.UpgradeWarning,
      status: 'True',
      reason: Reason.UpgradeInsightsIgnored,
      message: `Stepping to ${warned.gate.toVersion} although EKS upgrade insights are in ERROR: ${insightNames(warned.gate)}`,
      remediation: UPGRADE_WARNING_HINT,
      observedGeneration: g,
    });
  else
    out.push(
      notYet(ConditionType.UpgradeWarning, Reason.UpgradeClear, 'No step went past an ERROR insight', g),
    );
  return out;
}
