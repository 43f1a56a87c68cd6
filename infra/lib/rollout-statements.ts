/**
 * The IAM statements of the Rollout machine's capabilities (catalog: `rollout:write`,
 * `notify:publish`, `alarms:read`; `table:spec` is the spec writer's, see capabilities.ts).
 *
 * The rollout table holds two kinds of item (lambdas/store/rollouts.ts): rollout records
 * (`<namespace>/<name>`), always written whole by a version-conditioned PutItem, and cluster locks
 * (`lock#<cluster id>`), taken by a conditional UpdateItem of `holder` and `lockedAt` and given back
 * by a DeleteItem conditioned on `holder`. `dynamodb:LeadingKeys` keeps the two apart: a rollout
 * function can put records but never put a lock (which would skip the "not held" condition), and
 * can update or delete locks but never a record (only a whole versioned put changes one).
 */
import * as iam from 'aws-cdk-lib/aws-iam';

/** Lock items of the rollout table: `lock#<cluster id>` (the store's LOCK_PREFIX). */
export const ROLLOUT_LOCK_PREFIX = 'lock#';

/** What taking and giving back a lock writes or names in its condition (the key included). */
export const ROLLOUT_LOCK_ATTRIBUTES = ['id', 'holder', 'lockedAt'] as const;

/**
 * `rollout:write`: read any item (a record, who holds a lock) and list them; put whole records;
 * take and give back locks.
 */
export function rolloutWrite(rolloutTableArn: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'RolloutRead',
      actions: ['dynamodb:GetItem', 'dynamodb:Scan'],
      resources: [rolloutTableArn],
    }),
    new iam.PolicyStatement({
      sid: 'RolloutRecords',
      actions: ['dynamodb:PutItem'],
      resources: [rolloutTableArn],
      conditions: {
        'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': [`${ROLLOUT_LOCK_PREFIX}*`] },
      },
    }),
    new iam.PolicyStatement({
      sid: 'RolloutLocks',
      actions: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      resources: [rolloutTableArn],
      conditions: {
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...ROLLOUT_LOCK_ATTRIBUTES] },
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${ROLLOUT_LOCK_PREFIX}*`] },
      },
    }),
  ];
}

/** `notify:publish`: the rollout topic, and no other. */
export function publishRolloutNotice(topicArn: string): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'PublishRolloutNotice',
    actions: ['sns:Publish'],
    resources: [topicArn],
  });
}

/**
 * `alarms:read`: DescribeAlarms on `*`. The alarms a rollout watches are the user's own, named in its
 * failure policy, and CloudWatch returns composite alarms only to a DescribeAlarms scoped to `*`
 * (its API reference says so): an alarm ARN pattern would make every composite alarm look missing.
 */
export function describeAlarms(): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'DescribeRolloutAlarms',
    actions: ['cloudwatch:DescribeAlarms'],
    resources: ['*'],
  });
}

export const ALARMS_WILDCARD_REASON =
  "A rollout's failure policy names the CloudWatch alarms to watch (the user's own, known only at " +
  'run time, metric or composite), and DescribeAlarms returns composite alarms only when granted on ' +
  '"*" (CloudWatch API reference). Read-only: alarm states and configuration.';
