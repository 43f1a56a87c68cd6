/**
 * An independent model of EKS for the planner's property test. It applies one operation the way
 * EKS would once the call completes, and throws when the call breaks an EKS rule (so the test
 * proves the planner never asks EKS for something it refuses). Written from the EKS rules, not
 * from the planner's own projection.
 */
import { Health } from '../../../lambdas/core/health.js';
import type { Observation, ObservedNodegroup } from '../../../lambdas/core/observation.js';
import type { MutatingOperation } from '../../../lambdas/core/plan/types.js';

export class EksRuleViolation extends Error {
  override readonly name = 'EksRuleViolation';
}

const minor = (v: string) => Number(v.split('.')[1]);
const major = (v: string) => Number(v.split('.')[0]);
const cmp = (a: string, b: string) => (major(a) - major(b)) * 1000 + (minor(a) - minor(b));

function fail(msg: string): never {
  throw new EksRuleViolation(msg);
}

export function applyToModel(o: Observation, op: MutatingOperation): Observation {
  const c = o.cluster;
  if (op.kind === 'CreateCluster') {
    if (c) fail(`ResourceInUseException: Cluster already exists with name: ${op.clusterName}`);
    if (!op.roleArn || op.subnetIds.length < 2)
      fail('InvalidParameterException: roleArn and two subnets are required');
    if (Object.keys(op.tags).length > 50) fail('BadRequestException: too many tags');
    return {
      ...o,
      cluster: {
        name: op.clusterName,
        arn: `arn:aws:eks:${op.region}:123456789012:cluster/${op.clusterName}`,
        region: op.region,
        version: op.version,
        status: 'ACTIVE',
        health: Health.Healthy,
        roleArn: op.roleArn,
        subnetIds: op.subnetIds,
        securityGroupIds: op.securityGroupIds,
        tags: op.tags,
      },
      nodegroups: [],
    };
  }
  if (!c) fail(`ResourceNotFoundException: No cluster found for name: ${op.clusterName}.`);
  if (c.health !== Health.Healthy)
    fail(`InvalidRequestException: Cluster '${c.name}' is not in ACTIVE status`);
  const ng = (name: string): ObservedNodegroup =>
    o.nodegroups.find((n) => n.name === name) ??
    fail(`ResourceNotFoundException: No node group found for name: ${name}.`);
  const replaceNg = (name: string, f: (n: ObservedNodegroup) => ObservedNodegroup): Observation => ({
    ...o,
    nodegroups: o.nodegroups.map((n) => (n.name === name ? f(n) : n)),
  });
  switch (op.kind) {
    case 'CreateNodegroup': {
      if (o.nodegroups.some((n) => n.name === op.nodegroupName))
        fail(`ResourceInUseException: NodeGroup already exists with name ${op.nodegroupName}`);
      if (op.version !== c.version)
        fail('InvalidParameterException: node group version must equal the cluster version');
      if (o.nodegroups.length >= 30) fail('ResourceLimitExceededException: 30 node groups per cluster');
      const s = op.scaling;
      if (!(s.minSize <= s.desiredSize && s.desiredSize <= s.maxSize && s.maxSize >= 1))
        fail(`InvalidParameterException: bad scaling ${JSON.stringify(s)}`);
      const created: ObservedNodegroup = {
        name: op.nodegroupName,
        arn: `${c.arn.replace(':cluster/', ':nodegroup/')}/${op.nodegroupName}/x`,
        version: op.version,
        status: 'ACTIVE',
        health: Health.Healthy,
        instanceTypes: [op.instanceType],
        capacityType: op.capacityType,
        scaling: op.scaling,
        nodeRole: op.nodeRoleArn ?? '',
        subnets: op.subnetIds,
        tags: op.tags,
      };
      return { ...o, nodegroups: [...o.nodegroups, created] };
    }
    case 'UpdateClusterVersion': {
      if (op.fromVersion !== c.version) fail('planner used a stale version');
      if (cmp(op.toVersion, c.version) !== 1)
        fail(
          `InvalidParameterException: Unsupported Kubernetes minor version update from ${c.version} to ${op.toVersion}`,
        );
      // CloudOrch's rule (safe under both EKS skew rules): node groups match the control plane first.
      for (const n of o.nodegroups)
        if (n.version !== c.version)
          fail(
            `InvalidParameterException: Nodegroups ${n.name} must be updated to match cluster version ${c.version} before updating cluster version`,
          );
      return { ...o, cluster: { ...c, version: op.toVersion } };
    }
    case 'UpdateNodegroupVersion': {
      const n = ng(op.nodegroupName);
      if (cmp(op.toVersion, c.version) > 0)
        fail('InvalidParameterException: node group cannot be ahead of the control plane');
      if (cmp(op.toVersion, n.version) <= 0)
        fail('InvalidParameterException: no-op or downgrade of a node group');
      return replaceNg(n.name, (x) => ({ ...x, version: op.toVersion }));
    }
    case 'UpdateNodegroupScaling': {
      const n = ng(op.nodegroupName);
      const s = { ...n.scaling, ...op.scaling };
      if (JSON.stringify(s) === JSON.stringify(n.scaling)) fail('InvalidParameterException: no-op update');
      if (!(s.minSize <= s.desiredSize && s.desiredSize <= s.maxSize && s.maxSize >= 1))
        fail(
          `InvalidParameterException: Minimum capacity ${s.minSize} can't be greater than desired size ${s.desiredSize}`,
        );
      return replaceNg(n.name, (x) => ({ ...x, scaling: s }));
    }
    case 'TagResource':
    case 'UntagResource': {
      const retag = (t: Readonly<Record<string, string>>) => {
        const next =
          op.kind === 'TagResource'
            ? { ...t, ...op.tags }
            : Object.fromEntries(Object.entries(t).filter(([k]) => !op.tagKeys.includes(k)));
        if (Object.keys(next).length > 50) fail('BadRequestException: too many tags');
        return next;
      };
      if (op.resourceArn === c.arn) return { ...o, cluster: { ...c, tags: retag(c.tags) } };
      const n =
        o.nodegroups.find((x) => x.arn === op.resourceArn) ?? fail('NotFoundException: resource not found');
      return replaceNg(n.name, (x) => ({ ...x, tags: retag(x.tags) }));
    }
    case 'DeleteNodegroup': {
      ng(op.nodegroupName);
      return { ...o, nodegroups: o.nodegroups.filter((n) => n.name !== op.nodegroupName) };
    }
    case 'DeleteCluster': {
      if (o.nodegroups.length > 0) fail('ResourceInUseException: Cluster has nodegroups attached');
      return { ...o, cluster: null, nodegroups: [] };
    }
  }
}

/** EKS finishes whatever was in flight. */
export function settle(o: Observation): Observation {
  const done = <T extends { status: string; health: Health; update?: unknown }>(r: T): T => {
    const { update: _u, ...rest } = r;
    return { ...rest, status: 'ACTIVE', health: Health.Healthy } as T;
  };
  return {
    ...o,
    cluster: o.cluster ? done(o.cluster) : null,
    nodegroups: o.nodegroups.filter((n) => n.health !== Health.Deleting).map(done),
  };
}
