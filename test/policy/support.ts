/**
 * Policy inputs built the way the pipeline builds them (manifest -> spec -> plan -> estimate ->
 * buildPolicyInput), and the case table that the WASM tests and the parity test share.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { estimateSpecCost } from '../../lambdas/core/cost/estimate.js';
import { Health } from '../../lambdas/core/health.js';
import { parseManifests } from '../../lambdas/core/manifest.js';
import type { Observation, ObservedCluster, ObservedNodegroup } from '../../lambdas/core/observation.js';
import { ownershipTags } from '../../lambdas/core/ownership.js';
import { plan } from '../../lambdas/core/plan/plan.js';
import type { Desired, Operation, PlanDefaults } from '../../lambdas/core/plan/types.js';
import { buildPolicyInput, emptyObservation, type PolicyInput } from '../../lambdas/core/policy-input.js';
import type { CloudClusterSpec } from '../../lambdas/core/spec/schema.js';
import { BUNDLE_FILE, POLICY_DIR } from '../../policies/build.js';

export const BUNDLE_DIR = join(POLICY_DIR, 'build');
export const BUNDLE_PATH = join(BUNDLE_DIR, BUNDLE_FILE);
/** A day on which 1.34 is in standard support, 1.32 in extended support and 1.31 end-of-life. */
export const NOW = new Date('2026-11-29T12:00:00.000Z');

const ACCOUNT = '111122223333';
const DEFAULTS: PlanDefaults = {
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
    roleArn: DEFAULTS.clusterRoleArn!,
    subnetIds: DEFAULTS.subnetIds!,
    securityGroupIds: [],
    tags: { ...d.spec.tags, ...ownershipTags(d.id) },
    ...over,
  };
}

export function observedNodegroup(d: Desired, name: string, instanceType: string): ObservedNodegroup {
  return {
    name,
    arn: `arn:aws:eks:${d.spec.region}:${ACCOUNT}:nodegroup/${d.spec.clusterName}/${name}/1`,
    version: d.spec.kubernetesVersion,
    status: 'ACTIVE',
    health: Health.Healthy,
    instanceTypes: [instanceType],
    capacityType: 'ON_DEMAND',
    scaling: { minSize: d.spec.nodeCount, maxSize: d.spec.nodeCount, desiredSize: d.spec.nodeCount },
    nodeRole: DEFAULTS.nodeRoleArn!,
    subnets: DEFAULTS.subnetIds!,
    tags: { ...d.spec.tags, ...ownershipTags(d.id) },
  };
}

export function observation(c: ObservedCluster | null, ngs: ObservedNodegroup[] = []): Observation {
  return { cluster: c, nodegroups: ngs, observedAt: NOW.toISOString() };
}

/** The input the pipeline would build: the real planner and the real cost estimate. */
export function inputFor(d: Desired, o: Observation = emptyObservation(NOW), ops?: Operation[]): PolicyInput {
  return buildPolicyInput({
    desired: d,
    observation: o,
    plan: ops ?? plan(d, o, DEFAULTS),
    estimate: estimateSpecCost(d.spec, NOW),
    now: NOW,
  });
}

export function withSpec(d: Desired, over: Partial<CloudClusterSpec>, id = d.id): Desired {
  return { ...d, id, spec: { ...d.spec, ...over } };
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

const dev = example('dev-small.yaml');
const prod = example('prod-tagged.yaml');
const denied = example('denied-by-policy.yaml');

/** A spec the schema would reject, as it could reach admission from an older CRD or a stale record. */
function unchecked(d: Desired, over: Record<string, unknown>): PolicyInput {
  const base = inputFor(d);
  return { ...base, cluster: { ...base.cluster, ...over } };
}

const prodExisting = observation(observedCluster(prod), [observedNodegroup(prod, 'ng-m5', 'm5.xlarge')]);
const deleting: Desired = { ...dev, deletionRequested: true };
const deleteCluster: Operation[] = [
  { kind: 'DeleteCluster', clusterName: 'payments-dev', region: 'us-east-1' },
];

/** For every rule a compliant and a non-compliant case; the examples as the pipeline sees them. */
export const CASES: readonly PolicyCase[] = [
  { name: 'dev-small example is allowed', input: inputFor(dev), allow: true, rules: [] },
  { name: 'prod-tagged example is allowed', input: inputFor(prod), allow: true, rules: [] },
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
    input: unchecked(dev, { instanceType: 'p5.48xlarge' }),
    allow: false,
    rules: ['instance-type-allowed'],
    message: 'instance type p5.48xlarge is not allowed',
  },
  {
    name: 'blank required tag is denied',
    input: inputFor(withSpec(dev, { tags: { team: ' ', environment: 'dev' } })),
    allow: false,
    rules: ['required-tags'],
  },
  {
    name: '25 nodes in dev exceed the non-production limit',
    input: inputFor(withSpec(dev, { nodeCount: 25 })),
    allow: false,
    rules: ['node-count-limit'],
    message: 'nodeCount 25 exceeds the limit of 20 nodes for non-production clusters',
  },
  {
    name: '25 nodes in production are within the production limit',
    input: inputFor(withSpec(prod, { nodeCount: 25, maxSize: 25 })),
    allow: true,
    rules: [],
  },
  {
    name: 'cost above the threshold is denied',
    input: inputFor(withSpec(prod, { instanceType: 'r6i.xlarge', nodeCount: 30, maxSize: 30 })),
    allow: false,
    rules: ['cost-threshold'],
    message: 'estimated monthly cost $5591.80 exceeds the limit of $5000.00',
  },
  {
    name: 'cost override granted by settings raises the limit',
    input: inputFor(
      withSpec(prod, {
        instanceType: 'r6i.xlarge',
        nodeCount: 30,
        maxSize: 30,
        tags: { ...prod.spec.tags, 'cost-limit-usd': '6000' },
      }),
    ),
    allow: true,
    rules: [],
  },
  {
    name: 'cost override not granted to this cluster is ignored',
    input: inputFor(
      withSpec(
        prod,
        {
          instanceType: 'r6i.xlarge',
          nodeCount: 30,
          maxSize: 30,
          tags: { ...prod.spec.tags, 'cost-limit-usd': '6000' },
        },
        'platform/other',
      ),
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
];
