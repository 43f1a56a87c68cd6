/**
 * Each function's role holds exactly what its step needs: the action sets below are written out by
 * hand (not derived from infra/lib/capabilities.ts), so a grant that creeps in fails here.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV, isMutatingEksCall } from '../../lambdas/config.js';
import { ADDON_VERSION_TAG, MANAGED_BY_TAG, OWNER_TAG, POOL_TAG } from '../../lambdas/core/ownership.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
import { claimId } from '../../lambdas/store/claims.js';
import { DynamoRolloutStore } from '../../lambdas/store/rollouts.js';
import { applyCalls, constructedCalls, observeCalls } from './eks-calls.js';
import {
  logicalId,
  type PolicyStatement,
  resource,
  type Synthesized,
  statementsOfRole,
  synthesize,
} from './support.js';

type Statement = PolicyStatement;

const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Scan'];
const EKS_READ = [
  'eks:DescribeCluster',
  'eks:ListNodegroups',
  'eks:DescribeNodegroup',
  'eks:ListUpdates',
  'eks:DescribeUpdate',
  'eks:ListAddons',
  'eks:DescribeAddon',
  'eks:DescribeAddonVersions',
  'eks:DescribePodIdentityAssociation',
  'eks:ListAccessEntries',
  'eks:DescribeAccessEntry',
  'eks:ListAssociatedAccessPolicies',
  'eks:ListInsights',
  'eks:DescribeInsight',
];
const EKS_WRITE = [
  'eks:CreateCluster',
  'eks:CreateNodegroup',
  'eks:UpdateClusterVersion',
  'eks:UpdateNodegroupVersion',
  'eks:UpdateNodegroupConfig',
  'eks:DeleteNodegroup',
  'eks:DeleteCluster',
  'eks:TagResource',
  'eks:UntagResource',
  'eks:CreateAddon',
  'eks:UpdateAddon',
  'eks:DeleteAddon',
  'eks:UpdateClusterConfig',
  'eks:CreateAccessEntry',
  'eks:UpdateAccessEntry',
  'eks:DeleteAccessEntry',
  'eks:AssociateAccessPolicy',
  'eks:DisassociateAccessPolicy',
];
const START = ['states:StartExecution'];
// Whoever finds a lease asks whether the execution it names still runs.
const DESCRIBE = ['states:DescribeExecution'];
// Lambda's failure destinations are granted with grantSendMessages (URL and attributes included).
const DLQ = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
const STREAM = [
  'dynamodb:ListStreams',
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
];

// Claims of EKS request slots: conditional updates of the coordination table's budget items.
const BUDGET = ['dynamodb:UpdateItem'];
// A spec writer's table access (`cloudorch apply`, the bridge): read, write specs, put and delete claims.
const SPEC_WRITE = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
// The rollout table: read and list, put whole records, take and give back cluster locks.
const ROLLOUT = [
  'dynamodb:GetItem',
  'dynamodb:Scan',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
];

const EXPECTED: Record<FunctionKey, string[]> = {
  // A refused acquire reads the record to name the holder.
  lease: [...LOGS, ...READ, 'dynamodb:UpdateItem', ...DESCRIBE],
  // Claims the target of a record written before claims existed.
  observe: [...LOGS, ...READ, 'dynamodb:UpdateItem', 'dynamodb:PutItem', ...EKS_READ, ...BUDGET],
  plan: [...LOGS],
  policy: [...LOGS, 's3:GetObject'],
  apply: [...LOGS, ...READ, 'dynamodb:UpdateItem', ...EKS_WRITE, 'iam:PassRole', ...BUDGET],
  writeStatus: [...LOGS, ...READ, 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  classifyError: [...LOGS],
  // Cancels an approval wait a new generation made stale; never answers one.
  onChange: [...LOGS, ...STREAM, ...START, 'states:SendTaskFailure', ...DLQ],
  // The dispatcher scans and invokes shard runs: no EKS, no executions, no budget.
  sweep: [...LOGS, ...READ, 'lambda:InvokeFunction', ...DLQ],
  // Shard leases are UpdateItems on the coordination table, as budget claims are.
  sweepShard: [...LOGS, ...READ, ...EKS_READ, ...START, ...DESCRIBE, ...DLQ, ...BUDGET],
  driftEvent: [...LOGS, ...READ, ...EKS_READ, ...START, ...DLQ, ...BUDGET],
  reconcileNow: [...LOGS, ...READ, ...START, ...DESCRIBE],
  // Reads the selected clusters' records; freezes the stages and locks the clusters.
  rolloutPlan: [...LOGS, ...READ, ...ROLLOUT],
  // Writes the change as the cluster's next generation, as `cloudorch apply` would.
  rolloutApply: [...LOGS, ...READ, ...SPEC_WRITE, ...ROLLOUT],
  // Reads the cluster's status and the alarms the rollout names.
  rolloutWatch: [...LOGS, ...READ, ...ROLLOUT, 'cloudwatch:DescribeAlarms'],
  // Bookkeeping on the rollout table only; tells the topic.
  rolloutReport: [...LOGS, ...ROLLOUT, 'sns:Publish'],
};

/** What the rollout table holds: rollout records and cluster locks (lambdas/store/rollouts.ts). */
const ROLLOUT_RECORD = 'team-a/kubernetes-1-33';
const LOCK = 'lock#team-a/dev';

/** Spec-writer attributes: no reconciler function may ever write them. */
const SPEC_ATTRIBUTES = ['spec', 'specHash', 'generation', 'version', 'deletionRequestedAt'];

/** A record id and the key of its target's claim, as the store writes them. */
const RECORD = 'team-a/dev';
const CLAIM = claimId({ region: 'eu-west-1', clusterName: 'dev' });

let s: Synthesized;
const statements = {} as Record<FunctionKey, Statement[]>;

const actionsOf = (st: Statement) => (Array.isArray(st.Action) ? st.Action : [st.Action]);
const allActions = (key: FunctionKey) => [...new Set(statements[key].flatMap(actionsOf))].sort();
const withAction = (key: FunctionKey, action: string) =>
  statements[key].filter((st) => actionsOf(st).includes(action));
/** Whether a statement is on the coordination table (the EKS budget), not the desired-state table. */
const onCoordination = (st: Statement) =>
  JSON.stringify(st.Resource).includes(logicalId(s, s.stack.cloudorch.coordinationTable.table as never));
/** Whether a statement is on the desired-state table (records and target claims). */
const onDesiredState = (st: Statement) =>
  JSON.stringify(st.Resource) ===
  JSON.stringify({ 'Fn::GetAtt': [logicalId(s, s.stack.cloudorch.table), 'Arn'] });
/** Whether a statement is on the rollout table (rollout records and cluster locks). */
const onRollouts = (st: Statement) =>
  JSON.stringify(st.Resource) ===
  JSON.stringify({ 'Fn::GetAtt': [logicalId(s, s.stack.cloudorch.rolloutTable), 'Arn'] });
/** What a function may write on records (the desired-state table). */
const updateAttributes = (key: FunctionKey) =>
  withAction(key, 'dynamodb:UpdateItem')
    .filter(onDesiredState)
    .flatMap(
      (st) => (st.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes'] as string[]) ?? [],
    );

beforeAll(async () => {
  s = await synthesize();
  for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
    statements[key] = statementsOfRole(s, logicalId(s, s.stack.cloudorch.functions[key].role as never));
  }
}, 120_000);

describe('function roles', () => {
  it.each(Object.keys(FUNCTIONS) as FunctionKey[])('%s has exactly the actions its step needs', (key) => {
    expect(allActions(key)).toEqual([...new Set(EXPECTED[key])].sort());
  });

  it('only allows, never uses wildcard actions, and attaches no managed policies', () => {
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      for (const st of statements[key]) {
        expect(st.Effect).toBe('Allow');
        for (const a of actionsOf(st)) expect(a).not.toMatch(/\*/);
      }
      const roleId = logicalId(s, s.stack.cloudorch.functions[key].role as never);
      expect(resource(s, roleId).Properties['ManagedPolicyArns']).toBeUndefined();
    }
  });

  it('lease, sweep shard runs and reconcile-now may only describe executions of the Reconcile state machine', () => {
    for (const key of ['lease', 'sweepShard', 'reconcileNow'] as const) {
      const [st, ...more] = withAction(key, 'states:DescribeExecution');
      expect(more).toHaveLength(0);
      expect(actionsOf(st!)).toEqual(['states:DescribeExecution']);
      expect(JSON.stringify(st!.Resource)).toMatch(/:execution:CloudOrch-Reconcile:\*/);
    }
  });

  it('observe, sweep shard runs and drift-event can only read EKS; only apply mutates it', () => {
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      const eks = allActions(key).filter((a) => a.startsWith('eks:'));
      if (key === 'apply') expect(eks).toEqual([...EKS_WRITE].sort());
      else expect(eks.every((a) => EKS_READ.includes(a))).toBe(true);
    }
  });
});

describe('sweep shards', () => {
  it('the dispatcher may invoke the shard function and no other', () => {
    const [st, ...more] = withAction('sweep', 'lambda:InvokeFunction');
    expect(more).toHaveLength(0);
    expect(st!.Resource).toEqual({
      'Fn::GetAtt': [logicalId(s, s.stack.cloudorch.functions.sweepShard as never), 'Arn'],
    });
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[])
      if (key !== 'sweep') expect(withAction(key, 'lambda:InvokeFunction')).toEqual([]);
  });

  it('shard runs write only shard# items of the coordination table, only their lease attributes', () => {
    const lease = (key: FunctionKey, id: string, attributes: string[]) =>
      allows(statements[key].filter(onCoordination), { action: 'dynamodb:UpdateItem', key: id, attributes });
    const attributes = ['id', 'holder', 'until', 'cursor', 'expiresAt'];
    expect(lease('sweepShard', 'shard#123456789012#eu-west-1', attributes)).toBe(true);
    expect(lease('sweepShard', 'budget#123456789012#eu-west-1', ['id', 'holder'])).toBe(false);
    expect(lease('sweepShard', 'shard#own#us-east-1', ['id', 'holder', 'status'])).toBe(false);
    for (const key of ['observe', 'apply', 'driftEvent', 'sweep'] as const)
      expect(lease(key, 'shard#own#us-east-1', attributes)).toBe(false);
    const coordination = {
      'Fn::GetAtt': [logicalId(s, s.stack.cloudorch.coordinationTable.table as never), 'Arn'],
    };
    const leases = statements.sweepShard.filter((st) => st.Sid === 'ShardLeases');
    expect(leases).toHaveLength(1);
    expect(leases[0]!.Resource).toEqual(coordination);
    expect(actionsOf(leases[0]!)).toEqual(['dynamodb:UpdateItem']);
    expect(leases[0]!.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': attributes },
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['shard#*'] },
    });
  });
});

describe('EKS reads', () => {
  it('only DescribeAddonVersions (it names no resource) is granted on every resource', () => {
    for (const key of ['observe', 'sweepShard', 'driftEvent'] as const) {
      const star = statements[key].filter((st) => JSON.stringify(st.Resource) === '"*"');
      expect(star.flatMap(actionsOf).filter((a) => a.startsWith('eks:'))).toEqual([
        'eks:DescribeAddonVersions',
      ]);
      const [read] = withAction(key, 'eks:DescribeAccessEntry');
      const resources = JSON.stringify(read?.Resource);
      for (const kind of [
        ':cluster/',
        ':nodegroup/',
        ':addon/',
        ':access-entry/',
        ':podidentityassociation/',
      ])
        expect(resources).toContain(kind);
    }
  });
});

describe('EKS: the calls the provider sends, and no other', () => {
  it('the recorded runs reach every command the provider constructs', async () => {
    const sent = [...new Set([...(await observeCalls()), ...(await applyCalls())])].sort();
    expect(sent).toEqual(constructedCalls());
  });

  // A function's deps grant `observe` for eks:read and `apply` for eks:write, nothing else (deps.ts).
  it.each(Object.keys(FUNCTIONS) as FunctionKey[])(
    '%s may make exactly the calls it can send',
    async (key) => {
      const caps: readonly string[] = FUNCTIONS[key].capabilities;
      const sends = [
        ...(caps.includes('eks:read') ? await observeCalls() : []),
        ...(caps.includes('eks:write') ? await applyCalls() : []),
      ].sort();
      expect(allActions(key).filter((a) => a.startsWith('eks:'))).toEqual(sends);
    },
  );

  it('the CloudTrail drift rule matches every call apply sends and none observe sends', async () => {
    for (const a of await applyCalls()) expect(isMutatingEksCall(a.replace(/^eks:/, '')), a).toBe(true);
    for (const a of await observeCalls()) expect(isMutatingEksCall(a.replace(/^eks:/, '')), a).toBe(false);
  });
});

describe('apply: EKS mutations limited by ownership tags', () => {
  const managed = `aws:ResourceTag/${MANAGED_BY_TAG}`;

  it('updates and deletes only resources tagged managed-by=cloudorch', () => {
    const actions = [
      'eks:UpdateClusterVersion',
      'eks:UpdateNodegroupConfig',
      'eks:UpdateClusterConfig',
      'eks:DeleteNodegroup',
      'eks:DeleteCluster',
    ];
    for (const action of actions) {
      const sts = withAction('apply', action);
      expect(sts.length, action).toBeGreaterThan(0);
      for (const st of sts) expect(st.Condition?.['StringEquals']?.[managed], action).toBe('cloudorch');
    }
  });

  it('changes add-ons and access entries on their own ARNs, without a tag condition (adopted ones carry none)', () => {
    const parts = [
      'eks:UpdateAddon',
      'eks:DeleteAddon',
      'eks:UpdateAccessEntry',
      'eks:DeleteAccessEntry',
      'eks:AssociateAccessPolicy',
      'eks:DisassociateAccessPolicy',
    ];
    const [st, ...more] = withAction('apply', 'eks:UpdateAddon');
    expect(more).toHaveLength(0);
    expect(actionsOf(st!).sort()).toEqual([...parts].sort());
    for (const action of parts) expect(withAction('apply', action)).toEqual([st]);
    expect(st?.Condition).toBeUndefined();
    const resources = JSON.stringify(st?.Resource);
    expect(resources).toMatch(/:addon\/\*\/\*\/\*"/);
    expect(resources).toMatch(/:access-entry\/\*\/\*\/\*\/\*\/\*"/);
    expect(resources).not.toContain(':cluster/');
    expect(resources).not.toContain(':nodegroup/');
  });

  it('tags add-ons and access entries under the same rule as clusters and node groups', () => {
    const onOwned = withAction('apply', 'eks:TagResource').find(
      (st) => st.Condition?.['StringEquals']?.[managed],
    );
    const resources = JSON.stringify(onOwned?.Resource);
    for (const kind of [':cluster/', ':nodegroup/', ':addon/', ':access-entry/'])
      expect(resources).toContain(kind);
  });

  it('without deleteForeignNodegroups, no role may delete a node group CloudOrch did not create', () => {
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      expect(statements[key].filter((st) => st.Sid === 'EksDeleteForeignNodegroups')).toEqual([]);
    }
  });

  it('creates only with the ownership tags in the request; the request tags are not limited by key', () => {
    for (const action of [
      'eks:CreateCluster',
      'eks:CreateNodegroup',
      'eks:CreateAddon',
      'eks:CreateAccessEntry',
    ]) {
      const [create, ...more] = withAction('apply', action);
      // Add-ons and access entries are created through the cluster: the cluster is the resource.
      expect(JSON.stringify(create?.Resource), action).toMatch(/:cluster\/\*"/);
      expect(more).toHaveLength(0);
      expect(create?.Condition?.['StringEquals']?.[`aws:RequestTag/${MANAGED_BY_TAG}`]).toBe('cloudorch');
      expect(create?.Condition?.['Null']?.[`aws:RequestTag/${OWNER_TAG}`]).toBe('false');
      // CreateNodegroup carries cloudorch.io/pool: the only way that tag is ever set.
      expect(create?.Condition).not.toHaveProperty('ForAllValues:StringNotEquals');
      expect(create?.Condition).not.toHaveProperty('ForAllValues:StringEquals');
    }
  });

  it('can never remove, replace or forge the ownership tags, nor set or remove the pool tag after create', () => {
    const untag = withAction('apply', 'eks:UntagResource');
    expect(untag).toHaveLength(1);
    expect(untag[0]?.Condition?.['ForAllValues:StringNotEquals']?.['aws:TagKeys']).toEqual([
      OWNER_TAG,
      MANAGED_BY_TAG,
      POOL_TAG,
    ]);
    const tag = withAction('apply', 'eks:TagResource');
    const onOwned = tag.find((st) => st.Condition?.['StringEquals']?.[managed]);
    expect(onOwned?.Condition?.['ForAllValues:StringNotEquals']?.['aws:TagKeys']).toEqual([
      OWNER_TAG,
      MANAGED_BY_TAG,
      POOL_TAG,
    ]);
    // An adopted add-on may be given the version keyword tag, and nothing else.
    const addonVersion = tag.filter((st) => st.Sid === 'EksTagAddonVersion');
    expect(addonVersion).toHaveLength(1);
    expect(addonVersion[0]?.Condition?.['ForAllValues:StringEquals']?.['aws:TagKeys']).toEqual([
      ADDON_VERSION_TAG,
    ]);
    expect(JSON.stringify(addonVersion[0]?.Resource)).toContain(':addon/');
    // Claiming (adopt) only the ownership tags, where no owner exists yet or the cluster was released.
    const claims = tag.filter((st) => st !== onOwned && st !== addonVersion[0]);
    expect(claims).toHaveLength(2);
    for (const claim of claims) {
      expect(actionsOf(claim)).toEqual(['eks:TagResource']);
      expect(claim.Condition?.['ForAllValues:StringEquals']?.['aws:TagKeys']).toEqual([
        OWNER_TAG,
        MANAGED_BY_TAG,
      ]);
    }
  });

  // Written out in full: these are the only ways an owner tag can be set on an existing cluster.
  const CLAIM_CONDITIONS = {
    unowned: {
      Null: { 'aws:ResourceTag/cloudorch.io/owner': 'true', 'aws:RequestTag/cloudorch.io/owner': 'false' },
      StringEquals: { 'aws:RequestTag/cloudorch.io/managed-by': 'cloudorch' },
      'ForAllValues:StringEquals': { 'aws:TagKeys': ['cloudorch.io/owner', 'cloudorch.io/managed-by'] },
    },
    released: {
      Null: {
        'aws:ResourceTag/cloudorch.io/released': 'false',
        'aws:RequestTag/cloudorch.io/owner': 'false',
      },
      StringEquals: { 'aws:RequestTag/cloudorch.io/managed-by': 'cloudorch' },
      'ForAllValues:StringEquals': { 'aws:TagKeys': ['cloudorch.io/owner', 'cloudorch.io/managed-by'] },
    },
  };

  it('claims an unowned cluster only by adding both ownership tags', () => {
    const claim = withAction('apply', 'eks:TagResource').find((st) => st.Sid === 'EksClaimUnowned');
    expect(claim?.Condition).toEqual(CLAIM_CONDITIONS.unowned);
    expect(JSON.stringify(claim?.Resource)).toMatch(/:cluster\/\*"/);
  });

  it('replaces the owner only of a cluster marked released, and only with both ownership tags', () => {
    const claim = withAction('apply', 'eks:TagResource').find((st) => st.Sid === 'EksClaimReleased');
    expect(claim?.Condition).toEqual(CLAIM_CONDITIONS.released);
    // Clusters only: node groups of a released cluster are never re-owned by tagging.
    expect(JSON.stringify(claim?.Resource)).toMatch(/:cluster\/\*"/);
    expect(JSON.stringify(claim?.Resource)).not.toContain('nodegroup');
  });

  it('may set the released marker on an owned cluster (an ordinary tag)', () => {
    const onOwned = withAction('apply', 'eks:TagResource').find(
      (st) => st.Condition?.['StringEquals']?.[managed],
    );
    const notOwnership = onOwned?.Condition?.['ForAllValues:StringNotEquals']?.['aws:TagKeys'] as string[];
    expect(notOwnership).not.toContain('cloudorch.io/released');
  });

  it('passes only the cluster and node roles, only to EKS', () => {
    const [pass, ...more] = withAction('apply', 'iam:PassRole');
    expect(more).toHaveLength(0);
    expect(pass?.Condition?.['StringEquals']?.['iam:PassedToService']).toBe('eks.amazonaws.com');
    const c = s.stack.cloudorch;
    const ids = [c.clusterRole, c.nodeRole].map((r) => logicalId(s, r as never));
    expect(pass?.Resource).toEqual(ids.map((id) => ({ 'Fn::GetAtt': [id, 'Arn'] })));
  });
});

describe('DynamoDB writes limited by attribute', () => {
  it("no function but the rollout's ApplyChange (a spec writer) may write spec-writer attributes", () => {
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      if (key === 'rolloutApply') continue;
      for (const a of SPEC_ATTRIBUTES) expect(updateAttributes(key), key).not.toContain(a);
    }
  });

  it('every UpdateItem and DeleteItem grant carries an attribute condition', () => {
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      for (const st of [
        ...withAction(key, 'dynamodb:UpdateItem'),
        ...withAction(key, 'dynamodb:DeleteItem'),
      ]) {
        expect(st.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes']).toContain('id');
      }
    }
  });

  it('only write-status writes status, history, tracked updates and apply counts', () => {
    const writers = (attr: string) =>
      (Object.keys(FUNCTIONS) as FunctionKey[]).filter((k) => updateAttributes(k).includes(attr)).sort();
    expect(writers('history')).toEqual(['writeStatus']);
    expect(writers('trackedUpdates')).toEqual(['writeStatus']);
    expect(writers('status')).toEqual(['writeStatus']);
    expect(writers('applied')).toEqual(['writeStatus']);
    expect(writers('intent')).toEqual(['apply', 'writeStatus']);
    expect(updateAttributes('lease').sort()).toEqual(['id', 'lease']);
    expect(updateAttributes('observe').sort()).toEqual(['id', 'lease']);
  });

  it('only write-status deletes records, and only one whose deletion was requested', () => {
    const deletes = (k: FunctionKey, key: string, attributes: string[]) =>
      allows(statements[k].filter(onDesiredState), { action: 'dynamodb:DeleteItem', key, attributes });
    const keys = Object.keys(FUNCTIONS) as FunctionKey[];
    expect(keys.filter((k) => deletes(k, RECORD, ['id', 'lease', 'deletionRequestedAt']))).toEqual([
      'writeStatus',
    ]);
    expect(keys.filter((k) => deletes(k, RECORD, ['id', 'status']))).toEqual([]);
    // A spec writer gives up a target its record moved away from (its claim), as the bridge does.
    expect(keys.filter((k) => deletes(k, CLAIM, ['id', 'holder']))).toEqual(['writeStatus', 'rolloutApply']);
  });

  it('write-status may release a record and its target claim, with the attributes their conditions name', () => {
    const may = (key: string, attributes: string[]) =>
      allows(statements.writeStatus, { action: 'dynamodb:DeleteItem', key, attributes });
    // The record: asked for deletion, lease held by the releasing execution.
    expect(may(RECORD, ['id', 'lease', 'deletionRequestedAt'])).toBe(true);
    // Its claim: only while this record holds it.
    expect(may(CLAIM, ['id', 'holder'])).toBe(true);
    expect(may(RECORD, ['id', 'status'])).toBe(false);
  });

  it("only observe (target claims only) and the rollout's ApplyChange (a spec writer) put items", () => {
    const putters = (Object.keys(FUNCTIONS) as FunctionKey[]).filter(
      (k) => withAction(k, 'dynamodb:PutItem').filter(onDesiredState).length,
    );
    expect(putters).toEqual(['observe', 'rolloutApply']);
    const put = (key: string, attributes: string[]) =>
      allows(statements.observe, { action: 'dynamodb:PutItem', key, attributes });
    expect(put(CLAIM, ['id', 'holder', 'claimedAt'])).toBe(true);
    expect(put(RECORD, ['id', 'holder', 'claimedAt'])).toBe(false);
    expect(put(CLAIM, ['id', 'holder', 'claimedAt', 'status'])).toBe(false);
  });

  it('only write-status records consecutive failures', () => {
    const writers = (Object.keys(FUNCTIONS) as FunctionKey[]).filter((k) =>
      updateAttributes(k).includes('failures'),
    );
    expect(writers).toEqual(['writeStatus']);
  });

  it('observe, apply, sweep shard runs and drift-event may claim EKS budget slots, and nothing else there', () => {
    const claimers = (Object.keys(FUNCTIONS) as FunctionKey[]).filter((k) =>
      statements[k].some(onCoordination),
    );
    expect(claimers.sort()).toEqual(['apply', 'driftEvent', 'observe', 'sweepShard']);
    for (const key of claimers) {
      // A shard run's lease statement is checked apart (sweep shards, above).
      const there = statements[key].filter((st) => onCoordination(st) && st.Sid !== 'ShardLeases');
      expect(there.flatMap(actionsOf)).toEqual(['dynamodb:UpdateItem']);
      const claim = (id: string, attributes: string[]) =>
        allows(there, { action: 'dynamodb:UpdateItem', key: id, attributes });
      expect(claim('budget#123456789012#eu-west-1', ['id', 'nextMs', 'expiresAt'])).toBe(true);
      expect(claim('budget#own#us-east-1', ['id', 'nextMs'])).toBe(true);
      expect(claim('shard#123456789012#eu-west-1', ['id', 'nextMs'])).toBe(false);
      expect(claim('budget#own#us-east-1', ['id', 'nextMs', 'status'])).toBe(false);
      // The table the function's budget claims in is the one it is granted.
      const env = resource(s, logicalId(s, s.stack.cloudorch.functions[key] as never)).Properties[
        'Environment'
      ] as { Variables: Record<string, unknown> };
      expect(env.Variables[ENV.coordinationTable]).toEqual({
        Ref: logicalId(s, s.stack.cloudorch.coordinationTable.table as never),
      });
    }
  });

  it('drift-event can read target claims', () => {
    const read = { action: 'dynamodb:GetItem', key: CLAIM, attributes: [] };
    expect(allows(statements.driftEvent, read)).toBe(true);
  });
});

describe('the bridge: spec writes, target claims and starting rollouts only', () => {
  let bridge: Statement[];
  beforeAll(() => {
    bridge = statementsOfRole(s, logicalId(s, s.stack.cloudorch.bridgeRole));
  });
  // On the desired-state table: the rollout table's statements (checked below) are not about records.
  const can = (action: string, key: string, attributes: string[]) =>
    allows(
      bridge.filter(
        (st) => !JSON.stringify(st.Resource).includes(logicalId(s, s.stack.cloudorch.rolloutTable)),
      ),
      { action, key, attributes },
    );

  it('has exactly these actions: no Scan, no batch writes, nothing outside the table and bundle', () => {
    const actions = [...new Set(bridge.flatMap(actionsOf))].sort();
    expect(actions).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        's3:GetObject',
        'states:StartExecution',
      ].sort(),
    );
    const table = logicalId(s, s.stack.cloudorch.table);
    const rollouts = logicalId(s, s.stack.cloudorch.rolloutTable);
    for (const st of bridge.filter((x) => actionsOf(x).some((a) => a.startsWith('dynamodb:')))) {
      const onRollouts = JSON.stringify(st.Resource).includes(rollouts);
      expect(st.Resource).toEqual({ 'Fn::GetAtt': [onRollouts ? rollouts : table, 'Arn'] });
      // On the rollout table: read one rollout and put its record, never a lock, never an update.
      if (onRollouts)
        expect(actionsOf(st).every((a) => a === 'dynamodb:GetItem' || a === 'dynamodb:PutItem')).toBe(true);
    }
    const [start, ...moreStarts] = bridge.filter((x) => actionsOf(x).includes('states:StartExecution'));
    expect(moreStarts).toHaveLength(0);
    expect(JSON.stringify(start?.Resource)).toContain(logicalId(s, s.stack.cloudorch.rolloutStateMachine));
    const [bundle, ...more] = bridge.filter((x) => actionsOf(x).includes('s3:GetObject'));
    expect(more).toHaveLength(0);
    expect(JSON.stringify(bundle?.Resource)).toContain(logicalId(s, s.stack.cloudorch.policyBundle.bucket));
    expect(JSON.stringify(bundle?.Resource)).toContain('/policy/bundle.tar.gz');
  });

  it('writes records the way applySpec and requestDeletion do', () => {
    // create: put with attribute_not_exists(id)
    expect(
      can('dynamodb:PutItem', RECORD, ['id', 'spec', 'specHash', 'generation', 'version', 'createdAt']),
    ).toBe(true);
    // spec change: condition on version and deletionRequestedAt
    expect(
      can('dynamodb:UpdateItem', RECORD, [
        'id',
        'spec',
        'specHash',
        'generation',
        'version',
        'deletionRequestedAt',
      ]),
    ).toBe(true);
    // deletion request
    expect(can('dynamodb:UpdateItem', RECORD, ['id', 'deletionRequestedAt', 'version'])).toBe(true);
    expect(can('dynamodb:GetItem', RECORD, [])).toBe(true);
  });

  it('puts rollout records but never a cluster lock, and never updates or deletes on the rollout table', () => {
    const onRollouts = bridge.filter((st) =>
      JSON.stringify(st.Resource).includes(logicalId(s, s.stack.cloudorch.rolloutTable)),
    );
    const rolloutCan = (action: string, key: string) =>
      allows(onRollouts, { action, key, attributes: ['id', 'spec'] });
    expect(rolloutCan('dynamodb:GetItem', 'platform/r')).toBe(true);
    expect(rolloutCan('dynamodb:PutItem', 'platform/r')).toBe(true);
    expect(rolloutCan('dynamodb:PutItem', 'lock#team/a')).toBe(false);
    expect(rolloutCan('dynamodb:UpdateItem', 'platform/r')).toBe(false);
    expect(rolloutCan('dynamodb:DeleteItem', 'lock#team/a')).toBe(false);
  });

  it('can never write status, lease, history or intent, nor delete a record', () => {
    for (const attr of [
      'status',
      'lease',
      'history',
      'historyAppended',
      'intent',
      'trackedUpdates',
      'applied',
    ]) {
      expect(can('dynamodb:UpdateItem', RECORD, ['id', attr]), attr).toBe(false);
      expect(can('dynamodb:PutItem', RECORD, ['id', 'spec', attr]), attr).toBe(false);
    }
    expect(can('dynamodb:DeleteItem', RECORD, ['id'])).toBe(false);
    expect(can('dynamodb:DeleteItem', RECORD, ['id', 'holder'])).toBe(false);
    expect(can('dynamodb:Scan', RECORD, [])).toBe(false);
    expect(can('dynamodb:BatchWriteItem', RECORD, ['id', 'spec'])).toBe(false);
  });

  it('puts and deletes target claims, with nothing but the claim attributes', () => {
    expect(can('dynamodb:PutItem', CLAIM, ['id', 'holder', 'claimedAt'])).toBe(true);
    // The store writes claims with conditional puts only.
    expect(can('dynamodb:UpdateItem', CLAIM, ['id', 'holder', 'claimedAt'])).toBe(false);
    expect(can('dynamodb:DeleteItem', CLAIM, ['id', 'holder'])).toBe(true);
    // A claim key never carries record attributes, and a record never carries a holder.
    expect(can('dynamodb:PutItem', CLAIM, ['id', 'spec'])).toBe(false);
    expect(can('dynamodb:UpdateItem', RECORD, ['id', 'holder'])).toBe(false);
  });

  it('is assumable by Pod Identity only for its namespace and service account', () => {
    const role = resource(s, logicalId(s, s.stack.cloudorch.bridgeRole)).Properties as {
      AssumeRolePolicyDocument: { Statement: Statement[] };
    };
    const pods = role.AssumeRolePolicyDocument.Statement.filter((st) =>
      JSON.stringify(st).includes('pods.eks.amazonaws.com'),
    );
    expect(pods).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'pods.eks.amazonaws.com' },
        Action: ['sts:AssumeRole', 'sts:TagSession'],
        Condition: {
          StringEquals: {
            'aws:RequestTag/kubernetes-namespace': 'cloudorch-system',
            'aws:RequestTag/kubernetes-service-account': 'cloudorch-bridge',
          },
        },
      },
    ]);
  });
});

describe('rollouts', () => {
  const keys = Object.keys(FUNCTIONS) as FunctionKey[];
  const ROLLOUT_FUNCTIONS = ['rolloutPlan', 'rolloutApply', 'rolloutWatch', 'rolloutReport'] as const;

  it('only the four rollout functions reach the rollout table, each with exactly these actions', () => {
    expect(keys.filter((k) => statements[k].some(onRollouts))).toEqual([...ROLLOUT_FUNCTIONS]);
    for (const key of ROLLOUT_FUNCTIONS) {
      const there = [...new Set(statements[key].filter(onRollouts).flatMap(actionsOf))].sort();
      expect(there, key).toEqual([...ROLLOUT].sort());
    }
  });

  it('puts whole rollout records but never a lock; updates and deletes locks but never a record', () => {
    for (const key of ROLLOUT_FUNCTIONS) {
      const may = (action: string, id: string, attributes: string[]) =>
        allows(statements[key].filter(onRollouts), { action, key: id, attributes });
      // A record is written whole, under a version condition (status, approval token and all).
      expect(may('dynamodb:PutItem', ROLLOUT_RECORD, ['id', 'spec', 'version', 'status', 'approval'])).toBe(
        true,
      );
      expect(may('dynamodb:PutItem', LOCK, ['id', 'holder', 'lockedAt'])).toBe(false);
      // Taking a lock (holder unset or ours) and giving it back (holder ours).
      expect(may('dynamodb:UpdateItem', LOCK, ['id', 'holder', 'lockedAt'])).toBe(true);
      expect(may('dynamodb:DeleteItem', LOCK, ['id', 'holder'])).toBe(true);
      expect(may('dynamodb:UpdateItem', LOCK, ['id', 'holder', 'status'])).toBe(false);
      expect(may('dynamodb:UpdateItem', ROLLOUT_RECORD, ['id', 'holder'])).toBe(false);
      expect(may('dynamodb:DeleteItem', ROLLOUT_RECORD, ['id', 'holder'])).toBe(false);
      expect(may('dynamodb:GetItem', LOCK, [])).toBe(true);
      expect(may('dynamodb:Scan', ROLLOUT_RECORD, [])).toBe(true);
    }
  });

  it("the rollout's ApplyChange writes the desired-state table exactly as the bridge (a spec writer) may", () => {
    const bridge = statementsOfRole(s, logicalId(s, s.stack.cloudorch.bridgeRole)).filter(onDesiredState);
    const apply = statements.rolloutApply.filter(onDesiredState);
    const attributeSets = [
      ['id', 'spec', 'specHash', 'generation', 'version', 'createdAt'],
      ['id', 'spec', 'specHash', 'generation', 'version', 'deletionRequestedAt'],
      ['id', 'holder', 'claimedAt'],
      ['id', 'holder'],
      ['id', 'status'],
      ['id', 'lease'],
      ['id', 'spec', 'history'],
    ];
    for (const action of [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
    ])
      for (const key of [RECORD, CLAIM])
        for (const attributes of attributeSets) {
          const req = { action, key, attributes };
          expect(allows(apply, req), JSON.stringify(req)).toBe(allows(bridge, req));
        }
    // And so it can never write status, lease or history, nor delete a record.
    expect(allows(apply, { action: 'dynamodb:UpdateItem', key: RECORD, attributes: ['id', 'status'] })).toBe(
      false,
    );
    expect(allows(apply, { action: 'dynamodb:DeleteItem', key: RECORD, attributes: ['id'] })).toBe(false);
  });

  it('only the report function publishes, and only to the rollout topic', () => {
    expect(keys.filter((k) => withAction(k, 'sns:Publish').length)).toEqual(['rolloutReport']);
    const [st, ...more] = withAction('rolloutReport', 'sns:Publish');
    expect(more).toHaveLength(0);
    expect(actionsOf(st!)).toEqual(['sns:Publish']);
    expect(st!.Resource).toEqual({ Ref: logicalId(s, s.stack.cloudorch.rolloutTopic) });
  });

  it('only the watch function reads alarms: DescribeAlarms on * (composite alarms need it), nothing else', () => {
    expect(keys.filter((k) => allActions(k).some((a) => a.startsWith('cloudwatch:')))).toEqual([
      'rolloutWatch',
    ]);
    const [st, ...more] = withAction('rolloutWatch', 'cloudwatch:DescribeAlarms');
    expect(more).toHaveLength(0);
    expect(actionsOf(st!)).toEqual(['cloudwatch:DescribeAlarms']);
    expect(st!.Resource).toBe('*');
    // The one wildcard resource of the rollout functions (their nag acknowledgement covers only it).
    for (const key of ['rolloutPlan', 'rolloutApply', 'rolloutWatch', 'rolloutReport'] as const) {
      const star = statements[key].filter((x) => JSON.stringify(x.Resource) === '"*"');
      expect(star.flatMap(actionsOf), key).toEqual(
        key === 'rolloutWatch' ? ['cloudwatch:DescribeAlarms'] : [],
      );
    }
  });

  it('the rollout functions start, describe and invoke nothing, and never touch EKS', () => {
    for (const key of ROLLOUT_FUNCTIONS)
      for (const a of allActions(key)) expect(a, key).not.toMatch(/^(states|lambda|eks|iam|sts):/);
  });
});

describe('other roles', () => {
  it('the state machine may invoke exactly the seven step functions, unqualified', () => {
    const smRole = logicalId(s, s.stack.cloudorch.stateMachine.role as never);
    const invoke = statementsOfRole(s, smRole).filter((st) =>
      actionsOf(st).includes('lambda:InvokeFunction'),
    );
    expect(invoke).toHaveLength(1);
    const steps = ['lease', 'observe', 'plan', 'policy', 'apply', 'writeStatus', 'classifyError'] as const;
    // Order carries no meaning (the minimizePolicies feature flag sorts resources).
    const byJson = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
    expect(byJson(invoke[0]?.Resource as unknown[])).toEqual(
      byJson(steps.map((k) => ({ 'Fn::GetAtt': [logicalId(s, s.stack.cloudorch.functions[k]), 'Arn'] }))),
    );
  });
});

/** One DynamoDB request the rollout store sent, as IAM sees it. */
interface SentRequest extends ItemRequest {
  readonly command: string;
}

/**
 * The rollout store over an in-memory table that records each low-level request: the requests
 * `lambdas/store/rollouts.ts` really sends (keys, attributes named), not what this test assumes.
 */
function recordingRolloutStore(): { store: DynamoRolloutStore; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const items = new Map<string, Record<string, unknown>>();
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
  });
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      // The document client's form (plain values): its marshalling runs after this step.
      const input = args.input as {
        Key?: { id?: string };
        Item?: Record<string, unknown> & { id?: string };
        ExpressionAttributeNames?: Record<string, string>;
      };
      const command = String(context.commandName).replace(/Command$/, '');
      const key = input.Key?.id ?? input.Item?.id ?? '';
      const named = Object.values(input.ExpressionAttributeNames ?? {});
      const attributes = [...new Set(['id', ...Object.keys(input.Item ?? {}), ...named])];
      if (command !== 'GetItem' && command !== 'Scan')
        sent.push({ command, action: `dynamodb:${command}`, key, attributes });
      if (command === 'PutItem' && input.Item) items.set(key, input.Item);
      if (command === 'DeleteItem') items.delete(key);
      const output =
        command === 'GetItem'
          ? { Item: items.get(key) }
          : command === 'Scan'
            ? { Items: [...items.values()] }
            : {};
      return { output: { ...output, $metadata: {} }, response: {} } as never;
    },
    { step: 'serialize', priority: 'high', name: 'recordRolloutRequests' },
  );
  return { store: new DynamoRolloutStore(client, 'rollouts'), sent };
}

describe('the rollout store against the rollout grants', () => {
  it('every write the store sends (record puts, lock takes and gives back) is allowed to every rollout function', async () => {
    const { store, sent } = recordingRolloutStore();
    const now = new Date('2026-01-01T00:00:00Z');
    await store.put(ROLLOUT_RECORD, { change: { version: '1.33' } }, now);
    await store.update(ROLLOUT_RECORD, () => ({ attempt: 1, abortRequestedAt: now.toISOString() }), now);
    await store.lock(ROLLOUT_RECORD, ['team-a/dev', 'team-b/prod'], now);
    await store.unlock(ROLLOUT_RECORD, ['team-a/dev']);
    await store.list();
    expect(sent.map((r) => `${r.command} ${r.key}`)).toEqual([
      `PutItem ${ROLLOUT_RECORD}`,
      `PutItem ${ROLLOUT_RECORD}`,
      'UpdateItem lock#team-a/dev',
      'UpdateItem lock#team-b/prod',
      'DeleteItem lock#team-a/dev',
    ]);
    for (const key of ['rolloutPlan', 'rolloutApply', 'rolloutWatch', 'rolloutReport'] as const)
      for (const req of sent)
        expect(allows(statements[key].filter(onRollouts), req), `${key}: ${JSON.stringify(req)}`).toBe(true);
  });
});

describe('the Rollout state machine role', () => {
  const invokes = (sm: { role: unknown }) =>
    statementsOfRole(s, logicalId(s, sm.role as never)).filter((st) =>
      actionsOf(st).includes('lambda:InvokeFunction'),
    );
  const byJson = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
  const arnsOf = (keys: readonly FunctionKey[]) =>
    byJson(keys.map((k) => ({ 'Fn::GetAtt': [logicalId(s, s.stack.cloudorch.functions[k]), 'Arn'] })));

  it('may invoke exactly the four rollout functions, unqualified, and nothing of Reconcile', () => {
    const invoke = invokes(s.stack.cloudorch.rolloutStateMachine);
    expect(invoke).toHaveLength(1);
    expect(actionsOf(invoke[0]!)).toEqual(['lambda:InvokeFunction']);
    expect(byJson(invoke[0]?.Resource as unknown[])).toEqual(
      arnsOf(['rolloutPlan', 'rolloutApply', 'rolloutWatch', 'rolloutReport']),
    );
  });

  it('has no action beyond invoking them, its logs and X-Ray', () => {
    const role = logicalId(s, s.stack.cloudorch.rolloutStateMachine.role as never);
    const actions = [...new Set(statementsOfRole(s, role).flatMap(actionsOf))];
    for (const a of actions) expect(a).toMatch(/^(lambda:InvokeFunction|logs:|xray:)/);
  });
});

/** A DynamoDB item request as IAM sees it: `dynamodb:LeadingKeys` and `dynamodb:Attributes`. */
interface ItemRequest {
  readonly action: string;
  readonly key: string;
  readonly attributes: readonly string[];
}

/**
 * Whether these Allow statements permit the request, evaluating exactly the condition operators the
 * stack uses on table statements (an unknown operator fails the test rather than being ignored).
 */
function allows(sts: readonly Statement[], req: ItemRequest): boolean {
  const like = (pattern: string, v: string) =>
    new RegExp(
      `^${pattern
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    ).test(v);
  const values = (k: string): readonly string[] =>
    k === 'dynamodb:LeadingKeys' ? [req.key] : k === 'dynamodb:Attributes' ? req.attributes : [];
  const holds = (op: string, block: Record<string, unknown>) =>
    Object.entries(block).every(([k, v]) => {
      const allowed = (Array.isArray(v) ? v : [v]) as string[];
      const actual = values(k);
      switch (op) {
        case 'ForAllValues:StringEquals':
          return actual.every((a) => allowed.includes(a));
        case 'ForAllValues:StringLike':
          return actual.every((a) => allowed.some((p) => like(p, a)));
        case 'ForAllValues:StringNotLike':
          return actual.every((a) => !allowed.some((p) => like(p, a)));
        default:
          throw new Error(`condition operator ${op} is not evaluated by this test`);
      }
    });
  return sts.some(
    (st) =>
      st.Effect === 'Allow' &&
      actionsOf(st).includes(req.action) &&
      Object.entries(st.Condition ?? {}).every(([op, block]) => holds(op, block)),
  );
}
