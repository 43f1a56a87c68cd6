/**
 * Each function's role holds exactly what its step needs: the action sets below are written out by
 * hand (not derived from infra/lib/capabilities.ts), so a grant that creeps in fails here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MANAGED_BY_TAG, OWNER_TAG } from '../../lambdas/core/ownership.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
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
const READ = ['dynamodb:GetItem', 'dynamodb:Scan'];
const EKS_READ = [
  'eks:DescribeCluster',
  'eks:ListNodegroups',
  'eks:DescribeNodegroup',
  'eks:ListUpdates',
  'eks:DescribeUpdate',
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
];
const START = ['states:StartExecution'];
// Lambda's failure destinations are granted with grantSendMessages (URL and attributes included).
const DLQ = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
const STREAM = [
  'dynamodb:ListStreams',
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
];

const EXPECTED: Record<FunctionKey, string[]> = {
  // A refused acquire reads the record to name the holder.
  lease: [...LOGS, ...READ, 'dynamodb:UpdateItem'],
  observe: [...LOGS, ...READ, 'dynamodb:UpdateItem', ...EKS_READ],
  plan: [...LOGS],
  policy: [...LOGS, 's3:GetObject'],
  apply: [...LOGS, ...READ, 'dynamodb:UpdateItem', ...EKS_WRITE, 'iam:PassRole'],
  writeStatus: [...LOGS, ...READ, 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  classifyError: [...LOGS],
  onChange: [...LOGS, ...STREAM, ...START, ...DLQ],
  sweep: [...LOGS, ...READ, ...EKS_READ, ...START, ...DLQ],
  driftEvent: [...LOGS, ...READ, ...EKS_READ, ...START, ...DLQ],
  reconcileNow: [...LOGS, ...READ, ...START],
};

/** Spec-writer attributes: no reconciler function may ever write them. */
const SPEC_ATTRIBUTES = ['spec', 'specHash', 'generation', 'version', 'deletionRequestedAt'];

let s: Synthesized;
const statements = {} as Record<FunctionKey, Statement[]>;

const actionsOf = (st: Statement) => (Array.isArray(st.Action) ? st.Action : [st.Action]);
const allActions = (key: FunctionKey) => [...new Set(statements[key].flatMap(actionsOf))].sort();
const withAction = (key: FunctionKey, action: string) =>
  statements[key].filter((st) => actionsOf(st).includes(action));
const updateAttributes = (key: FunctionKey) =>
  withAction(key, 'dynamodb:UpdateItem').flatMap(
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

  it('observe, sweep and drift-event can only read EKS; only apply mutates it', () => {
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      const eks = allActions(key).filter((a) => a.startsWith('eks:'));
      if (key === 'apply') expect(eks).toEqual([...EKS_WRITE].sort());
      else expect(eks.every((a) => EKS_READ.includes(a))).toBe(true);
    }
  });
});

describe('apply: EKS mutations limited by ownership tags', () => {
  const managed = `aws:ResourceTag/${MANAGED_BY_TAG}`;

  it('updates and deletes only resources tagged managed-by=cloudorch', () => {
    for (const action of ['eks:UpdateClusterVersion', 'eks:UpdateNodegroupConfig', 'eks:DeleteCluster']) {
      for (const st of withAction('apply', action)) {
        expect(st.Condition?.['StringEquals']?.[managed]).toBe('cloudorch');
      }
    }
  });

  it('creates only with the ownership tags in the request', () => {
    const [create, ...more] = withAction('apply', 'eks:CreateCluster');
    expect(more).toHaveLength(0);
    expect(create?.Condition?.['StringEquals']?.[`aws:RequestTag/${MANAGED_BY_TAG}`]).toBe('cloudorch');
    expect(create?.Condition?.['Null']?.[`aws:RequestTag/${OWNER_TAG}`]).toBe('false');
  });

  it('can never remove, replace or forge the ownership tags', () => {
    const untag = withAction('apply', 'eks:UntagResource');
    expect(untag).toHaveLength(1);
    expect(untag[0]?.Condition?.['ForAllValues:StringNotEquals']?.['aws:TagKeys']).toEqual([
      OWNER_TAG,
      MANAGED_BY_TAG,
    ]);
    const tag = withAction('apply', 'eks:TagResource');
    const onOwned = tag.find((st) => st.Condition?.['StringEquals']?.[managed]);
    expect(onOwned?.Condition?.['ForAllValues:StringNotEquals']?.['aws:TagKeys']).toEqual([
      OWNER_TAG,
      MANAGED_BY_TAG,
    ]);
    // Claiming (adopt) only where no owner exists yet, and only the ownership tags.
    const claim = tag.find((st) => st !== onOwned);
    expect(claim?.Condition?.['Null']?.[`aws:ResourceTag/${OWNER_TAG}`]).toBe('true');
    expect(claim?.Condition?.['ForAllValues:StringEquals']?.['aws:TagKeys']).toEqual([
      OWNER_TAG,
      MANAGED_BY_TAG,
    ]);
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
  it('no function may write spec-writer attributes', () => {
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      for (const a of SPEC_ATTRIBUTES) expect(updateAttributes(key)).not.toContain(a);
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

  it('only write-status deletes, and only a record whose deletion was requested', () => {
    const deleters = (Object.keys(FUNCTIONS) as FunctionKey[]).filter(
      (k) => withAction(k, 'dynamodb:DeleteItem').length,
    );
    expect(deleters).toEqual(['writeStatus']);
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
    expect(invoke[0]?.Resource).toEqual(
      steps.map((k) => ({ 'Fn::GetAtt': [logicalId(s, s.stack.cloudorch.functions[k]), 'Arn'] })),
    );
  });

  it('the bridge may use the table and read the policy bundle object, nothing else', () => {
    const bridgeRole = logicalId(s, s.stack.cloudorch.bridgeRole);
    const table = logicalId(s, s.stack.cloudorch.table);
    const bucket = logicalId(s, s.stack.cloudorch.policyBundle.bucket);
    const sts = statementsOfRole(s, bridgeRole);
    const dynamo = sts.filter((st) => actionsOf(st).every((a) => a.startsWith('dynamodb:')));
    const rest = sts.filter((st) => !dynamo.includes(st));
    expect(dynamo.length).toBeGreaterThan(0);
    for (const st of dynamo) {
      const resources = Array.isArray(st.Resource) ? st.Resource : [st.Resource];
      for (const r of resources) expect(JSON.stringify(r)).toContain(table);
    }
    expect(rest).toHaveLength(1);
    expect(actionsOf(rest[0]!)).toEqual(['s3:GetObject']);
    expect(JSON.stringify(rest[0]!.Resource)).toContain(bucket);
    expect(JSON.stringify(rest[0]!.Resource)).toContain(s.stack.cloudorch.policyBundle.objectKey);
  });
});
