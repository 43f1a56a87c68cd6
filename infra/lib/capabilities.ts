/**
 * Turns the function catalog's capabilities into IAM statements. The catalog
 * (lambdas/functions/catalog.ts) says who may do what; this file says what that means in IAM, and
 * test/infra/iam.test.ts checks each role against an independent expectation.
 *
 * The EKS statements (and what IAM can and cannot express about EKS) are in eks-statements.ts.
 *
 * What IAM can and cannot express here:
 * - DynamoDB writes are limited to the attributes each step owns with `dynamodb:Attributes`.
 *   Attributes named only in a condition expression (the lease holder check) must be listed as well,
 *   so IAM cannot tell "reads lease in a condition" from "writes lease"; the store's conditions do.
 *   ReturnValues ALL_OLD is not restricted: the store needs the old image for the change feed.
 * - Target claims share the table (key prefix `claim#`). Spec writers may put and delete claims and
 *   write only the spec attributes of records; `dynamodb:LeadingKeys` keeps the two apart. Observe may
 *   put claims (records older than claims), write-status deletes a released record's claim. IAM
 *   cannot require a condition expression, so "only the holder replaces or deletes its claim" is the
 *   store's rule.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { BUDGET_KEY_PREFIX } from '../../lambdas/core/rate-slots.js';
import { SHARD_KEY_PREFIX } from '../../lambdas/core/shard.js';
import type { Capability, FUNCTIONS, FunctionKey } from '../../lambdas/functions/catalog.js';
import { eksRead, eksWrite } from './eks-statements.js';
import { describeAlarms, publishRolloutNotice, rolloutWrite } from './rollout-statements.js';

export { BUDGET_KEY_PREFIX, SHARD_KEY_PREFIX };

import { reconcileStateMachineName } from './state-machine.js';

// The stack acknowledges the EKS wildcards together with the other capability findings.
export { EKS_WILDCARD_REASON, eksWildcardFindings } from './eks-statements.js';

/** The table's partition key: fine-grained DynamoDB conditions must always allow it. */
export const KEY_ATTRIBUTE = 'id';

/**
 * Target claims live in the same table: key `claim#<account>#<region>#<clusterName>` (account
 * `default` for the stack's own), `holder` the record id, `claimedAt`. Record ids never contain `#`.
 */
export const CLAIM_KEY_PREFIX = 'claim#';
export const CLAIM_ATTRIBUTES = [KEY_ATTRIBUTE, 'holder', 'claimedAt'] as const;

/**
 * What a spec writer (the bridge, `cloudorch apply`, a rollout's apply step) may put on a record,
 * attributes named in its conditions included (`version`, `deletionRequestedAt`, `id`): never status,
 * lease or history. `rollout` names the rollout that wrote a generation; every other spec write
 * removes it.
 */
export const SPEC_WRITER_ATTRIBUTES = [
  KEY_ATTRIBUTE,
  'spec',
  'specHash',
  'generation',
  'version',
  'createdAt',
  'deletionRequestedAt',
  'rollout',
] as const;

/** Functions holding `table:reconcile`. */
export type ReconcilerKey = {
  [K in FunctionKey]: 'table:reconcile' extends (typeof FUNCTIONS)[K]['capabilities'][number] ? K : never;
}[FunctionKey];

/**
 * Which top-level attributes each reconciler step may write (UpdateItem), whether it may delete a
 * released record (and its target claim), and whether it may put target claims. Spec attributes
 * (spec, specHash, generation, version, deletionRequestedAt) are in none of them: a reconciler can
 * never change what the user asked for.
 */
export const RECONCILE_WRITES: Record<
  ReconcilerKey,
  { attributes: readonly string[]; delete: boolean; claim: boolean }
> = {
  // acquire and release; `lease` is also the condition.
  lease: { attributes: ['lease'], delete: false, claim: false },
  // renews the lease before observing; claims the target of a record written before claims existed.
  observe: { attributes: ['lease'], delete: false, claim: true },
  // records the intent before the EKS call (an intent-only write; `lease` is the condition).
  apply: { attributes: ['lease', 'intent'], delete: false, claim: false },
  writeStatus: {
    // `approval` (a pending wait's token), `approved` and `denied`: the approval wait's own writes.
    attributes: [
      'lease',
      'approval',
      'approved',
      'denied',
      'status',
      'history',
      'historyAppended',
      'intent',
      'trackedUpdates',
      'applied',
      'failures',
    ],
    delete: true,
    claim: false,
  },
};

/**
 * The release deletes read these in their conditions: the record's (it asked for deletion and the
 * lease is ours) and its target claim's (`holder` is this record).
 */
const DELETE_CONDITION_ATTRIBUTES = ['lease', 'deletionRequestedAt', 'holder'];

export interface CapabilityTargets {
  readonly table: dynamodb.TableV2;
  /** The coordination table (the EKS budget items and the sweep shard leases). */
  readonly coordinationTable: dynamodb.TableV2;
  readonly stateMachine: sfn.IStateMachine;
  /** ARN of the policy bundle object. */
  readonly policyBundleObjectArn: string;
  readonly clusterRole: iam.IRole;
  readonly nodeRole: iam.IRole;
  /** Whether apply may delete node groups CloudOrch did not create (no ownership tag to require). */
  readonly deleteForeignNodegroups: boolean;
  /** The function the sweep dispatcher invokes (capability `lambda:invoke-shard`). */
  readonly sweepShardFunction: lambda.IFunction;
  /** Rollout records and cluster locks (capability `rollout:write`). */
  readonly rolloutTable: dynamodb.TableV2;
  /** Where rollouts tell people they wait, halted or completed (capability `notify:publish`). */
  readonly rolloutTopic: sns.ITopic;
}

/** Sweep shard lease items in the coordination table: `shard#<account>#<region>`. */
/** What a shard run's take and release write or read in their conditions, besides the key. */
export const SHARD_ATTRIBUTES = [KEY_ATTRIBUTE, 'holder', 'until', 'cursor', 'expiresAt'] as const;

function tableReconcile(fn: ReconcilerKey, tableArn: string): iam.PolicyStatement[] {
  const w = RECONCILE_WRITES[fn];
  const out = [
    new iam.PolicyStatement({
      sid: 'TableWriteOwnAttributes',
      actions: ['dynamodb:UpdateItem'],
      resources: [tableArn],
      conditions: {
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [KEY_ATTRIBUTE, ...w.attributes] },
      },
    }),
  ];
  if (w.claim) out.push(claimStatement('TablePutClaim', ['dynamodb:PutItem'], tableArn));
  if (w.delete) {
    out.push(
      new iam.PolicyStatement({
        sid: 'TableDeleteReleased',
        actions: ['dynamodb:DeleteItem'],
        resources: [tableArn],
        conditions: {
          'ForAllValues:StringEquals': {
            'dynamodb:Attributes': [KEY_ATTRIBUTE, ...DELETE_CONDITION_ATTRIBUTES],
          },
        },
      }),
    );
  }
  return out;
}

/** Target claim items only (key prefix), with nothing but the claim attributes. */
function claimStatement(sid: string, actions: string[], tableArn: string): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    actions,
    resources: [tableArn],
    conditions: {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...CLAIM_ATTRIBUTES] },
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${CLAIM_KEY_PREFIX}*`] },
    },
  });
}

/**
 * What a spec writer needs on the table: read any item; create and change records through the spec
 * attributes only; put and delete target claims (the store writes claims with conditional PutItem and
 * DeleteItem only). `dynamodb:LeadingKeys` keeps the two apart, so a spec writer can delete a claim but
 * never a record (deletion is a request the reconciler carries out).
 */
export function specWriterStatements(tableArn: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'SpecWriterRead',
      actions: ['dynamodb:GetItem'],
      resources: [tableArn],
    }),
    new iam.PolicyStatement({
      sid: 'SpecWriterRecords',
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resources: [tableArn],
      conditions: {
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...SPEC_WRITER_ATTRIBUTES] },
        'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': [`${CLAIM_KEY_PREFIX}*`] },
      },
    }),
    claimStatement('SpecWriterClaims', ['dynamodb:PutItem', 'dynamodb:DeleteItem'], tableArn),
  ];
}

/** The statements one capability of one function stands for. */
export function statementsFor(
  fn: FunctionKey,
  capability: Capability,
  t: CapabilityTargets,
): iam.PolicyStatement[] {
  const scope = Stack.of(t.table);
  switch (capability) {
    case 'table:read':
      return [
        new iam.PolicyStatement({
          sid: 'TableRead',
          actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Scan'],
          resources: [t.table.tableArn],
        }),
      ];
    case 'table:reconcile':
      if (!(fn in RECONCILE_WRITES))
        throw new Error(`${fn} has table:reconcile but no RECONCILE_WRITES entry`);
      return tableReconcile(fn as ReconcilerKey, t.table.tableArn);
    case 'table:stream':
      // Granted by the event source mapping (stream ARN only); nothing on the table itself.
      return [];
    case 'eks:read':
      return eksRead(scope);
    case 'eks:write':
      return eksWrite(scope, t.deleteForeignNodegroups);
    case 'iam:pass-eks-roles':
      return [passEksRoles(t.clusterRole, t.nodeRole)];
    case 'policy:read':
      return [
        new iam.PolicyStatement({
          sid: 'PolicyBundleRead',
          actions: ['s3:GetObject'],
          resources: [t.policyBundleObjectArn],
        }),
      ];
    case 'sfn:start':
    case 'sfn:callback':
      return [reconcileMachineStatement(capability, t.stateMachine.stateMachineArn)];
    case 'budget:claim':
      return [budgetClaim(t.coordinationTable.tableArn)];
    case 'sfn:describe':
      return [
        new iam.PolicyStatement({
          sid: 'DescribeReconcileExecutions',
          actions: ['states:DescribeExecution'],
          resources: [reconcileExecutionsArn(scope)],
        }),
      ];
    case 'lambda:invoke-shard':
      return [invokeShard(t.sweepShardFunction)];
    case 'shard:lease':
      return [shardLeases(t.coordinationTable.tableArn)];
    case 'table:spec':
      // A rollout writes its change exactly as `cloudorch apply` would, and may do nothing more.
      return specWriterStatements(t.table.tableArn);
    case 'rollout:write':
      return rolloutWrite(t.rolloutTable.tableArn);
    case 'notify:publish':
      return [publishRolloutNotice(t.rolloutTopic.topicArn)];
    case 'alarms:read':
      return [describeAlarms()];
  }
}

/**
 * Start a Reconcile execution; or cancel an approval wait a new generation made stale (on-change),
 * never answer one (that is a person's, with `cloudorch approve` or `deny`).
 */
function reconcileMachineStatement(c: 'sfn:start' | 'sfn:callback', machineArn: string): iam.PolicyStatement {
  return c === 'sfn:start'
    ? new iam.PolicyStatement({
        sid: 'StartReconcile',
        actions: ['states:StartExecution'],
        resources: [machineArn],
      })
    : new iam.PolicyStatement({
        sid: 'CancelApprovalWait',
        actions: ['states:SendTaskFailure'],
        resources: [machineArn],
      });
}

/** The dispatcher invokes the sweep shard function, and no other. */
function invokeShard(fn: lambda.IFunction): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'InvokeSweepShard',
    actions: ['lambda:InvokeFunction'],
    resources: [fn.functionArn],
  });
}

/** Take and release are one conditional UpdateItem each, of shard items only, of their own attributes. */
function shardLeases(coordinationTableArn: string): iam.PolicyStatement {
  return coordinationUpdate('ShardLeases', SHARD_KEY_PREFIX, SHARD_ATTRIBUTES, coordinationTableArn);
}

/** UpdateItem on the coordination table's items of one key prefix, of the listed attributes only. */
function coordinationUpdate(
  sid: string,
  prefix: string,
  attributes: readonly string[],
  coordinationTableArn: string,
): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    actions: ['dynamodb:UpdateItem'],
    resources: [coordinationTableArn],
    conditions: {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...attributes] },
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${prefix}*`] },
    },
  });
}

/** Budget items of the coordination table (key `budget#<account>#<region>`). */
/** What a claim writes (`expiresAt`: the TTL) besides the key. */
export const BUDGET_ATTRIBUTES = [KEY_ATTRIBUTE, 'nextMs', 'expiresAt'] as const;

/** A budget claim: conditional UpdateItem of budget items only, of their own attributes only. */
function budgetClaim(coordinationTableArn: string): iam.PolicyStatement {
  return coordinationUpdate('ClaimEksBudget', BUDGET_KEY_PREFIX, BUDGET_ATTRIBUTES, coordinationTableArn);
}

/** The default cluster and node roles, passed to EKS only (also the target accounts' write role). */
export function passEksRoles(clusterRole: iam.IRole, nodeRole: iam.IRole): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'PassEksRolesToEks',
    actions: ['iam:PassRole'],
    resources: [clusterRole.roleArn, nodeRole.roleArn],
    conditions: { StringEquals: { 'iam:PassedToService': 'eks.amazonaws.com' } },
  });
}

/** Every execution of the Reconcile state machine (execution names are made at run time). */
export function reconcileExecutionsArn(stack: Stack): string {
  return stack.formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${reconcileStateMachineName(stack)}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

export const EXECUTIONS_WILDCARD_REASON =
  'A lease names the execution holding it; whoever finds a lease asks whether that execution still ' +
  'runs. Execution names are made at run time, so the statement names every execution of the one ' +
  'Reconcile state machine, read-only.';
