/**
 * The next step towards desired state: every impossible difference, then at most one action (one
 * mutating operation, or a wait while EKS is busy). Deletion, pause and ownership are decided here;
 * a cluster this record may change is converged by the stages in converge.ts.
 */
import type { Observation } from '../observation.js';
import { ownershipTags } from '../ownership.js';
import { convergeStep } from './converge.js';
import { deletionStep } from './deletion.js';
import type { Step } from './guards.js';
import { claimBlock, impossible, ownershipBlock } from './guards.js';
import { withToken } from './tokens.js';
import { baseOf, type Desired, defaultsFor, type Impossible, type PlanDefaults } from './types.js';

export type { Step } from './guards.js';

const none = (impossible: Impossible[] = []): Step => ({ impossible, next: null });

/** What a create needs that neither the spec nor the deployment gave. */
function createBlockers(
  roleArn: string | undefined,
  subnetIds: readonly string[],
  accountId: string | undefined,
): Impossible[] {
  const blockers: Impossible[] = [];
  // The deployment's defaults are CloudOrch's own account's: another account names its own.
  const elsewhere = accountId
    ? ` in account ${accountId} (the deployment's defaults are for CloudOrch's own account)`
    : '';
  if (!roleArn)
    blockers.push(
      impossible(
        'clusterRoleArn',
        'no cluster IAM role is known',
        accountId
          ? `Set spec.clusterRoleArn to a role${elsewhere}.`
          : 'Set spec.clusterRoleArn or deploy CloudOrch with a default cluster role.',
      ),
    );
  if (subnetIds.length < 2)
    blockers.push(
      impossible(
        'network.subnetIds',
        'EKS needs at least two subnets',
        accountId
          ? `Set spec.network.subnetIds to subnets${elsewhere}.`
          : 'Set spec.network.subnetIds or deploy CloudOrch with default subnets.',
      ),
    );
  return blockers;
}

function createCluster(d: Desired, defaults: PlanDefaults): Step {
  const { spec } = d;
  const roleArn = spec.clusterRoleArn ?? defaults.clusterRoleArn;
  const subnetIds = spec.network?.subnetIds ?? defaults.subnetIds ?? [];
  const blockers = createBlockers(roleArn, subnetIds, spec.accountId);
  // Another account's pools have no deployment default either: a cluster whose pools could not be
  // created is not created (a control plane alone is billed and useless).
  if (spec.accountId)
    for (const pool of spec.nodeGroups.filter((p) => !p.nodeRoleArn))
      blockers.push(
        impossible(
          `nodeGroups[${pool.name}].nodeRoleArn`,
          'no node IAM role is known',
          `Set the pool's nodeRoleArn (or spec.nodeRoleArn) to a role in account ${spec.accountId} (the deployment's defaults are for CloudOrch's own account).`,
        ),
      );
  if (blockers.length > 0) return none(blockers);
  const op = {
    kind: 'CreateCluster',
    ...baseOf(spec),
    version: spec.kubernetesVersion,
    roleArn,
    subnetIds,
    securityGroupIds: spec.network?.securityGroupIds ?? defaults.securityGroupIds ?? [],
    tags: { ...spec.tags, ...ownershipTags(d.id) },
    // CloudOrch needs no Kubernetes access: the creator gets no admin entry; the spec's entries follow.
    accessConfig: {
      authenticationMode: spec.access?.authenticationMode ?? 'API_AND_CONFIG_MAP',
      bootstrapClusterCreatorAdminPermissions: false,
    },
  } as const;
  return { impossible: [], next: withToken(d, op, spec.kubernetesVersion) };
}

/** The next step for one cluster. Pure: the same input always gives the same step. */
export function nextStep(d: Desired, o: Observation, deployment: PlanDefaults = {}): Step {
  const defaults = defaultsFor(d.spec, deployment);
  if (d.deletionRequested) return deletionStep(d, o);
  if (d.spec.paused) return none();
  const c = o.cluster;
  // A target another record holds is never created or changed by this one.
  const claimed = claimBlock(d);
  if (claimed) return none([claimed]);
  if (!c) return createCluster(d, defaults);
  const block = ownershipBlock(d, c);
  if (block) return none([block]);
  return convergeStep(d, c, o, defaults);
}
