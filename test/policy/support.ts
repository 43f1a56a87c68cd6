/**
 * Policy inputs built the way the pipeline builds them (manifest -> spec -> plan -> estimate ->
 * buildPolicyInput), and the case table that the WASM tests and the parity test share.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { estimateSpecCost } from '../../lambdas/core/cost/estimate.js';
import { Health } from '../../lambdas/core/health.js';
import { parseManifests } from '../../lambdas/core/manifest.js';
import type {
  Observation,
  ObservedAccessEntry,
  ObservedCluster,
  ObservedInsight,
  ObservedNodegroup,
} from '../../lambdas/core/observation.js';
import { ownershipTags } from '../../lambdas/core/ownership.js';
import { plan } from '../../lambdas/core/plan/plan.js';
import type { Desired, Operation, PlanDefaults } from '../../lambdas/core/plan/types.js';
import { buildPolicyInput, emptyObservation, type PolicyInput } from '../../lambdas/core/policy-input.js';
import type { NodePool } from '../../lambdas/core/spec/pools.js';
import type { CloudClusterSpec } from '../../lambdas/core/spec/schema.js';
import { BUNDLE_FILE, POLICY_DIR } from '../../policies/build.js';

export const BUNDLE_DIR = join(POLICY_DIR, 'build');
export const BUNDLE_PATH = join(BUNDLE_DIR, BUNDLE_FILE);
/** A day on which 1.34 is in standard support, 1.32 in extended support and 1.31 end-of-life. */
export const NOW = new Date('2026-11-29T12:00:00.000Z');

const ACCOUNT = '111122223333';
/** The deployment defaults the observations here were created with. */
export const PLAN_DEFAULTS: PlanDefaults = {
  clusterRoleArn: `arn:aws:iam::${ACCOUNT}:role/eks-cluster`,
  nodeRoleArn: `arn:aws:iam::${ACCOUNT}:role/eks-node`,
  subnetIds: ['subnet-0000000a', 'subnet-0000000b'],
};

export function example(file: string): Desired {
  const path = join(POLICY_DIR, '..', 'examples', file);
  const r = parseManifests(readFileSync(path, 'utf8'), file);
  if (!r.ok) throw new Error(`example ${file} is invalid: ${r.issues.map((i) => i.message).join('; ')}`);
  const m = r.manifests[0]!;
  return { id: m.id, spec: m.spec, generation: 1, deletionRequested: false };
}

export function observedCluster(d: Desired, over: Partial<ObservedCluster> = {}): ObservedCluster {
  return {
    name: d.spec.clusterName,
    arn: `arn:aws:eks:${d.spec.region}:${ACCOUNT}:cluster/${d.spec.clusterName}`,
    region: d.spec.region,
    version: d.spec.kubernetesVersion,
    status: 'ACTIVE',
    health: Health.Healthy,
    roleArn: PLAN_DEFAULTS.clusterRoleArn!,
    subnetIds: PLAN_DEFAULTS.subnetIds!,
    securityGroupIds: [],
    tags: { ...d.spec.tags, ...ownershipTags(d.id) },
    ...over,
  };
}

/**
 * A node group of the record's first pool (sized as it), tagged as CloudOrch tags what it creates;
 * `tags` replaces those (a foreign group carries none of them).
 */
export function observedNodegroup(
  d: Desired,
  name: string,
  instanceType: string,
  tags: Record<string, string> = { ...d.spec.tags, ...ownershipTags(d.id) },
): ObservedNodegroup {
  const n = d.spec.nodeGroups[0]?.nodeCount ?? 0;
  return {
    name,
    arn: `arn:aws:eks:${d.spec.region}:${ACCOUNT}:nodegroup/${d.spec.clusterName}/${name}/1`,
    version: d.spec.kubernetesVersion,
    status: 'ACTIVE',
    health: Health.Healthy,
    instanceTypes: [instanceType],
    capacityType: 'ON_DEMAND',
    scaling: { minSize: n, maxSize: n, desiredSize: n },
    nodeRole: PLAN_DEFAULTS.nodeRoleArn!,
    subnets: PLAN_DEFAULTS.subnetIds!,
    tags,
    labels: {},
    taints: [],
  };
}

export function observation(c: ObservedCluster | null, ngs: ObservedNodegroup[] = []): Observation {
  return { cluster: c, nodegroups: ngs, observedAt: NOW.toISOString() };
}

/** EKS after the planner's node group creates for this record succeeded: every pool ACTIVE. */
export function converged(d: Desired): Observation {
  const cluster = observedCluster(d);
  const creates = plan(d, observation(cluster), PLAN_DEFAULTS).filter((op) => op.kind === 'CreateNodegroup');
  const groups = creates.map(
    (op): ObservedNodegroup => ({
      ...observedNodegroup(d, op.nodegroupName, op.instanceTypes[0]!, { ...op.tags }),
      instanceTypes: op.instanceTypes,
      capacityType: op.capacityType,
      scaling: op.scaling,
      labels: op.labels,
      taints: op.taints,
      amiType: op.amiType,
      ...(op.nodeRoleArn ? { nodeRole: op.nodeRoleArn } : {}),
      subnets: op.subnetIds,
    }),
  );
  return observation(cluster, groups);
}

/** The input the pipeline would build: the real planner and the real cost estimate. */
export function inputFor(d: Desired, o: Observation = emptyObservation(NOW), ops?: Operation[]): PolicyInput {
  return buildPolicyInput({
    desired: d,
    observation: o,
    plan: ops ?? plan(d, o, PLAN_DEFAULTS),
    estimate: estimateSpecCost(d.spec, NOW),
    now: NOW,
  });
}

export function withSpec(d: Desired, over: Partial<CloudClusterSpec>, id = d.id): Desired {
  return { ...d, id, spec: { ...d.spec, ...over } };
}

/** The record with one pool changed (by name; the flat fields' pool is `default`). */
export function withPool(d: Desired, over: Partial<NodePool>, name = 'default'): Desired {
  const nodeGroups = d.spec.nodeGroups.map((p) => (p.name === name ? { ...p, ...over } : p));
  return withSpec(d, { nodeGroups });
}

export interface PolicyCase {
  readonly name: string;
  readonly input: PolicyInput;
  readonly allow: boolean;
  /** Every rule named in the violations (errors and warnings). */
  readonly rules: readonly string[];
  /** A fragment one of the messages must contain, where the message itself is the point. */
  readonly message?: string;
}

/** The add-ons policy requires of production clusters (settings.coreAddons.names). */
const CORE_ADDONS = ['vpc-cni', 'coredns', 'kube-proxy'];
const withCoreAddons = (d: Desired): Desired =>
  withSpec(d, {
    addons: CORE_ADDONS.map((name) => ({ name, version: 'default', resolveConflicts: 'OVERWRITE' as const })),
  });

const dev = example('dev-small.yaml');
/** The prod-tagged example as written: a production cluster with the core add-ons and a platform admin. */
const prod = example('prod-tagged.yaml');
/** The same cluster managing no add-on. */
const prodBare: Desired = (({ addons: _, ...spec }) => ({ ...prod, spec }))(prod.spec);
const denied = example('denied-by-policy.yaml');

/** A spec the schema would reject, as it could reach admission from an older CRD or a stale record. */
function unchecked(d: Desired, over: Record<string, unknown>): PolicyInput {
  const base = inputFor(d);
  return { ...base, cluster: { ...base.cluster, ...over } };
}

const multi = example('multi-pool.yaml');
const multiProd = withCoreAddons(
  withSpec(multi, { tags: { ...multi.spec.tags, environment: 'production' } }),
);
const gpuPool: NodePool = {
  name: 'gpu',
  instanceTypes: ['g4dn.xlarge'],
  capacityType: 'ON_DEMAND',
  nodeCount: 1,
  scaling: 'managed',
  labels: {},
  taints: [],
};
/** The multi-pool example with a GPU pool that carries no taint. */
export const multiWithGpu = withSpec(multi, { nodeGroups: [...multi.spec.nodeGroups, gpuPool] });
const withoutSpot = (d: Desired) =>
  withSpec(d, { nodeGroups: d.spec.nodeGroups.filter((p) => p.name !== 'spot') });
const devSettled = converged(dev);
const foreignGroup = observedNodegroup(dev, 'team-batch', 't3.medium', { team: 'batch' });
const devWithForeign = observation(devSettled.cluster, [...devSettled.nodegroups, foreignGroup]);

const prodExisting = observation(observedCluster(prod), [observedNodegroup(prod, 'ng-m5', 'm5.xlarge')]);
const deleting: Desired = { ...dev, deletionRequested: true };
/** 30 r6i.xlarge: $5591.80 a month, above the default limit. */
const prod30 = withPool(prod, { instanceTypes: ['r6i.xlarge'], nodeCount: 30, maxSize: 30 });
const deleteCluster: Operation[] = [
  { kind: 'DeleteCluster', clusterName: 'payments-dev', region: 'us-east-1' },
];

/** The settings' default cluster-admin pattern, and a principal it does not match. */
export const PLATFORM_ADMIN = `arn:aws:iam::${ACCOUNT}:role/platform-admin`;
const DEV_ROLE = `arn:aws:iam::${ACCOUNT}:role/payments-dev`;
const ADMIN_POLICY_ARN = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy';

function granting(d: Desired, admins: readonly string[]): Desired {
  return withSpec(d, {
    access: {
      authenticationMode: 'API',
      exclusive: false,
      entries: admins.map((principalArn) => ({
        principalArn,
        type: 'STANDARD' as const,
        policies: [{ name: 'AmazonEKSClusterAdminPolicy' as const, scope: 'cluster' as const }],
      })),
    },
  });
}

function observedAdmin(d: Desired, principalArn: string): ObservedAccessEntry {
  return {
    principalArn,
    arn: `arn:aws:eks:${d.spec.region}:${ACCOUNT}:access-entry/${d.spec.clusterName}/role/${ACCOUNT}/${principalArn.split('/').at(-1)}/1`,
    type: 'STANDARD',
    kubernetesGroups: [],
    tags: {},
    policies: [{ policyArn: ADMIN_POLICY_ARN, scope: { type: 'cluster', namespaces: [] } }],
  };
}

/** dev on 1.33, its spec asking for 1.34 with the readiness gate at `warn`, an insight in ERROR. */
const devUpgrading = withSpec(dev, { upgrade: { readiness: 'warn' } });
const removedApis: ObservedInsight = {
  id: 'insight-removed-apis',
  name: 'Kubernetes API deprecations and removals',
  kubernetesVersion: dev.spec.kubernetesVersion,
  status: 'ERROR',
  reason: 'Deprecated API usage detected',
};
/** The observation of {@link upgradingWithErrorInsight}: the control plane one minor behind. */
export const upgradingWithErrorInsight = inputFor(devUpgrading, {
  ...observation(observedCluster(dev, { version: '1.33' })),
  insights: [removedApis],
});

/** The prod-tagged example deleted under deletionPolicy Delete: the plan deletes its node groups first. */
const prodDeletable = withSpec(prod, { deletionPolicy: 'Delete' });
export const deletingProduction = inputFor(
  { ...prodDeletable, deletionRequested: true },
  converged(prodDeletable),
);

/** For every rule a compliant and a non-compliant case; the examples as the pipeline sees them. */
export const CASES: readonly PolicyCase[] = [
  { name: 'dev-small example is allowed', input: inputFor(dev), allow: true, rules: [] },
  // Allowed, with an approval (rules.test.ts checks it): approvals are not violations.
  { name: 'deleting a production cluster is allowed', input: deletingProduction, allow: true, rules: [] },
  {
    name: 'prod-tagged example is allowed',
    input: inputFor(prod),
    allow: true,
    rules: [],
  },
  {
    name: 'prod-tagged example without its add-ons is denied',
    input: inputFor(prodBare),
    allow: false,
    rules: ['core-addons'],
    message: 'but addons does not list vpc-cni, coredns, kube-proxy',
  },
  {
    name: 'deleting a core add-on of a production cluster is denied',
    input: inputFor(prod, observation(observedCluster(prod)), [
      {
        kind: 'DeleteAddon',
        clusterName: prod.spec.clusterName,
        region: prod.spec.region,
        addonName: 'coredns',
        preserve: true,
      },
    ]),
    allow: false,
    rules: ['core-addons'],
    message: 'the plan deletes add-on coredns',
  },
  {
    name: 'cluster-admin for the allowed platform role is allowed',
    input: inputFor(granting(dev, [PLATFORM_ADMIN])),
    allow: true,
    rules: [],
  },
  {
    name: 'cluster-admin for a principal outside the allow-list is denied',
    input: inputFor(granting(dev, [PLATFORM_ADMIN, DEV_ROLE])),
    allow: false,
    rules: ['cluster-admin'],
    message: `access entry ${DEV_ROLE} (access.entries[1]) is granted AmazonEKSClusterAdminPolicy`,
  },
  {
    name: 'an out-of-band cluster-admin in EKS is reported',
    input: inputFor(dev, {
      ...observation(observedCluster(dev)),
      accessEntries: [observedAdmin(dev, PLATFORM_ADMIN), observedAdmin(dev, DEV_ROLE)],
    }),
    allow: true,
    rules: ['cluster-admin'],
    message: `observed access entry ${DEV_ROLE} holds AmazonEKSClusterAdminPolicy`,
  },
  {
    name: 'an ERROR upgrade insight under readiness warn is allowed while the platform does not enforce the gate',
    input: upgradingWithErrorInsight,
    allow: true,
    rules: [],
  },
  {
    name: 'denied-by-policy example is denied for tags, node count and cost',
    input: inputFor(denied),
    allow: false,
    rules: ['cost-threshold', 'node-count-limit', 'required-tags'],
    message: 'tag team is required',
  },
  {
    name: 'region outside the allowlist is denied',
    input: unchecked(dev, { region: 'cn-north-1' }),
    allow: false,
    rules: ['region-allowed'],
  },
  {
    name: 'instance type outside the allowlist is denied',
    input: unchecked(dev, { nodeGroups: withPool(dev, { instanceTypes: ['p5.48xlarge'] }).spec.nodeGroups }),
    allow: false,
    rules: ['instance-type-allowed'],
    message: 'pool default: instance type p5.48xlarge is not allowed',
  },
  {
    name: 'blank required tag is denied',
    input: inputFor(withSpec(dev, { tags: { team: ' ', environment: 'dev' } })),
    allow: false,
    rules: ['required-tags'],
  },
  {
    name: '25 nodes in dev exceed the non-production limit',
    input: inputFor(withPool(dev, { nodeCount: 25 })),
    allow: false,
    rules: ['node-count-limit'],
    message: 'pool default: nodeCount 25 exceeds the limit of 20 nodes for non-production clusters',
  },
  {
    name: '25 nodes in production are within the production limit',
    input: inputFor(withPool(prod, { nodeCount: 25, maxSize: 25 })),
    allow: true,
    rules: [],
  },
  {
    name: 'cost above the threshold is denied',
    input: inputFor(prod30),
    allow: false,
    rules: ['cost-threshold'],
    message: 'estimated monthly cost $5591.80 exceeds the limit of $5000.00',
  },
  {
    name: 'cost override granted by settings raises the limit',
    input: inputFor(withSpec(prod30, { tags: { ...prod.spec.tags, 'cost-limit-usd': '6000' } })),
    allow: true,
    rules: [],
  },
  {
    name: 'cost override not granted to this cluster is ignored',
    input: inputFor(
      withSpec(prod30, { tags: { ...prod.spec.tags, 'cost-limit-usd': '6000' } }, 'platform/other'),
    ),
    allow: false,
    rules: ['cost-threshold'],
    message: 'is not granted to platform/other',
  },
  {
    name: 'extended-support version is allowed with its price',
    input: inputFor(withSpec(dev, { kubernetesVersion: '1.32' })),
    allow: true,
    rules: ['kubernetes-version'],
    message: 'billed at the extended-support rate, $438.00/month',
  },
  {
    name: 'end-of-life version is denied',
    input: inputFor(withSpec(dev, { kubernetesVersion: '1.31' })),
    allow: false,
    rules: ['kubernetes-version'],
    message: 'reached the end of extended support on 2026-11-26',
  },
  {
    name: 'deleting with deletionPolicy Delete is allowed',
    input: inputFor(deleting, observation(observedCluster(dev)), deleteCluster),
    allow: true,
    rules: [],
  },
  {
    name: 'deleting with deletionPolicy Retain is denied',
    input: inputFor(
      withSpec(deleting, { deletionPolicy: 'Retain' }),
      observation(observedCluster(dev)),
      deleteCluster,
    ),
    allow: false,
    rules: ['deletion-policy'],
  },
  {
    name: 'replacing a production node group without the allow tag is denied',
    input: inputFor(prod, prodExisting),
    allow: false,
    rules: ['nodegroup-replacement'],
    message: 'replaces node group ng-m5 of a production cluster',
  },
  {
    name: 'replacing a production node group with the allow tag is allowed',
    input: inputFor(
      withSpec(prod, { tags: { ...prod.spec.tags, 'allow-nodegroup-replacement': 'true' } }),
      prodExisting,
    ),
    allow: true,
    rules: [],
  },
  {
    name: 'instance type changed out of band to a forbidden one is reported',
    input: inputFor(
      dev,
      observation(observedCluster(dev), [observedNodegroup(dev, 'ng-gpu', 'p4d.24xlarge')]),
    ),
    allow: true,
    rules: ['observed-drift'],
    message: 'observed node group ng-gpu runs instance type p4d.24xlarge, which is not allowed',
  },
  {
    name: 'an observation that matches policy reports nothing',
    input: inputFor(dev, observation(observedCluster(dev), [observedNodegroup(dev, 'ng', 't3.medium')])),
    allow: true,
    rules: [],
  },
  {
    name: 'input without an estimate is denied, never read as zero cost',
    input: (() => {
      const { estimate: _dropped, ...rest } = inputFor(dev);
      return rest as unknown as PolicyInput;
    })(),
    allow: false,
    rules: ['cost-threshold', 'input-valid'],
  },
  {
    name: 'multi-pool example is allowed',
    input: inputFor(multi),
    allow: true,
    rules: [],
  },
  {
    name: 'the node-count limit applies per pool and names the pool',
    input: inputFor(withPool(multi, { nodeCount: 25, maxSize: 25 }, 'general')),
    allow: false,
    rules: ['node-count-limit'],
    message: 'pool general: nodeCount 25 exceeds the limit of 20 nodes for non-production clusters',
  },
  {
    name: 'pools within their own limits may together exceed the cluster total',
    input: inputFor(
      withSpec(multi, {
        nodeGroups: multi.spec.nodeGroups.map((p) =>
          p.name === 'system' ? p : { ...p, nodeCount: 18, maxSize: 20 },
        ),
      }),
    ),
    allow: false,
    rules: ['cluster-size-limit'],
    message: 'the pools may grow to 43 nodes in total',
  },
  {
    name: 'a GPU pool without a NoSchedule taint is allowed while settings do not require one',
    input: inputFor(multiWithGpu),
    allow: true,
    rules: [],
  },
  {
    name: 'deleting a node group CloudOrch did not create is denied',
    input: inputFor(dev, devWithForeign),
    allow: false,
    rules: ['foreign-nodegroup-deletion'],
    message: 'the plan deletes node group team-batch, which CloudOrch did not create',
  },
  {
    name: 'deleting the cluster does not exempt a foreign node group',
    input: inputFor(deleting, devWithForeign),
    allow: false,
    rules: ['foreign-nodegroup-deletion'],
    message: 'node group team-batch',
  },
  {
    name: 'adding a pool to a production cluster is no replacement',
    input: inputFor(multiProd, converged(withoutSpot(multiProd))),
    allow: true,
    rules: [],
  },
  {
    name: 'removing a pool from a production cluster needs the allow tag',
    input: inputFor(withoutSpot(multiProd), converged(multiProd)),
    allow: false,
    rules: ['nodegroup-replacement'],
    message: 'the plan removes pool spot (node group cloudorch-spot-',
  },
];
