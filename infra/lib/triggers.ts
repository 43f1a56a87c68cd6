/**
 * What starts reconciles: the scheduled sweep, the table's stream, and CloudTrail records of EKS
 * calls. Every asynchronous path ends in one encrypted dead-letter queue, so a lost trigger is visible.
 */
import { Aws, Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV, MUTATING_EKS_PREFIXES } from '../../lambdas/config.js';
import { resourceFinding } from './nag.js';

/**
 * Stream filter. Lambda filters match one image at a time and cannot compare the old image with the
 * new one, so "generation or deletionRequestedAt changed" is not expressible: the filter admits INSERT
 * and MODIFY records of cluster records (a numeric generation in the new image) and drops REMOVE
 * records (released records) and anything else. on-change makes the final decision and ignores
 * status-only writes.
 */
export const STREAM_FILTER = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: { NewImage: { generation: { N: [{ exists: true }] } } },
};

/**
 * Mutating EKS calls as CloudTrail records them. Target accounts forward events matching the same
 * pattern to this stack's bus (target-account-stack.ts), where this rule picks them up.
 */
export const EKS_API_CALLS_PATTERN: events.EventPattern = {
  source: ['aws.eks'],
  detailType: ['AWS API Call via CloudTrail'],
  detail: {
    eventSource: ['eks.amazonaws.com'],
    eventName: MUTATING_EKS_PREFIXES.map((p) => ({ prefix: p })),
  },
};

/**
 * How long a sweep tick may wait to run: one period, within what Lambda's asynchronous invocation
 * (60 s to 6 h) and Scheduler (60 s to 24 h) accept.
 */
export function sweepEventAge(sweepRate: Duration): Duration {
  const seconds = Math.min(Math.max(sweepRate.toSeconds(), 60), 6 * 60 * 60);
  return Duration.seconds(seconds);
}

export interface TriggersProps {
  readonly table: dynamodb.TableV2;
  /** The sweep dispatcher, and the function it invokes, one run per few (account, region) shards. */
  readonly sweep: lambda.Function;
  readonly sweepShard: lambda.Function;
  /** Clusters of one shard a shard run checks at once. */
  readonly sweepConcurrency: number;
  /** Time between two full observations of a cluster (the sweep's other looks are checks). */
  readonly fullObservePeriod: Duration;
  readonly onChange: lambda.IFunction;
  readonly driftEvent: lambda.IFunction;
  /** Sweep period. */
  readonly sweepRate: Duration;
  /** Parallel scan segments, one schedule (one Lambda) each. */
  readonly sweepSegments: number;
}

export class Triggers extends Construct {
  /** Where failed asynchronous invocations and unprocessable stream batches end up. */
  readonly deadLetterQueue: sqs.Queue;
  readonly sweepSchedules: scheduler.Schedule[] = [];
  readonly driftRule: events.Rule;
  readonly streamSource: sources.DynamoEventSource;

  constructor(scope: Construct, id: string, props: TriggersProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter destination of the triggers; nothing consumes it automatically.',
    });
    const dlq = this.deadLetterQueue;

    this.scheduleSweep(props);

    // aws-cdk-lib's own types do not line a construct up with its interface under
    // exactOptionalPropertyTypes; the table is that interface at run time.
    this.streamSource = new sources.DynamoEventSource(props.table as unknown as dynamodb.ITable, {
      startingPosition: lambda.StartingPosition.LATEST,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      bisectBatchOnError: true,
      retryAttempts: 5,
      maxRecordAge: Duration.hours(1),
      onFailure: new sources.SqsDlq(dlq),
      filters: [lambda.FilterCriteria.filter(STREAM_FILTER)],
    });
    props.onChange.addEventSource(this.streamSource);

    this.driftRule = this.createDriftRule(props.driftEvent);
  }

  /** One schedule per segment; failed ticks go to the dead-letter queue, never pile up. */
  private scheduleSweep(props: TriggersProps): void {
    const dlq = this.deadLetterQueue;
    // Sweep: a missed tick is retried by the next one, so Lambda does not retry a failed sweep. The
    // function runs one instance at a time (reserved concurrency 1): a tick that arrives while another
    // run (or segment) is still going waits in Lambda's queue for at most one period, then goes to the
    // dead-letter queue instead of piling up behind it.
    props.sweep.configureAsyncInvoke({
      retryAttempts: 0,
      maxEventAge: sweepEventAge(props.sweepRate),
      onFailure: new destinations.SqsDestination(dlq),
    });
    const period = String(props.sweepRate.toSeconds());
    props.sweep.addEnvironment(ENV.sweepPeriod, period);
    props.sweep.addEnvironment(ENV.sweepShardFunction, props.sweepShard.functionName);
    // Lambda's endpoint in this region and partition, where the dispatcher signs its Invoke to.
    props.sweep.addEnvironment(ENV.lambdaEndpoint, `https://lambda.${Aws.REGION}.${Aws.URL_SUFFIX}`);
    props.sweepShard.addEnvironment(ENV.sweepPeriod, period);
    props.sweepShard.addEnvironment(ENV.sweepConcurrency, String(props.sweepConcurrency));
    props.sweepShard.addEnvironment(ENV.fullObservePeriod, String(props.fullObservePeriod.toSeconds()));
    // A shard run is handed over again by the next period's dispatcher: no retry, no older than one.
    props.sweepShard.configureAsyncInvoke({
      retryAttempts: 0,
      maxEventAge: sweepEventAge(props.sweepRate),
      onFailure: new destinations.SqsDestination(dlq),
    });
    // Own role so the acknowledgement below sits next to it (the default is a stack-wide singleton).
    const schedulerRole = new iam.Role(this, 'SweepScheduleRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    Validations.of(schedulerRole).acknowledge({
      id: resourceFinding(this, 'AwsSolutions-IAM5', `${props.sweep.functionArn}:*`),
      reason: 'The Scheduler target grants invoke on the sweep function and its versions; no other function.',
    });
    for (let segment = 0; segment < props.sweepSegments; segment++) {
      this.sweepSchedules.push(
        new scheduler.Schedule(this, `Sweep${segment}`, {
          description: `CloudOrch sweep, segment ${segment + 1} of ${props.sweepSegments}`,
          schedule: scheduler.ScheduleExpression.rate(props.sweepRate),
          target: new schedulerTargets.LambdaInvoke(props.sweep, {
            input: scheduler.ScheduleTargetInput.fromObject({
              segment,
              totalSegments: props.sweepSegments,
            }),
            role: schedulerRole,
            deadLetterQueue: dlq,
            // Retries only a failed Invoke call (the invocation itself is asynchronous), within one period.
            retryAttempts: 2,
            maxEventAge: sweepEventAge(props.sweepRate),
          }),
        }),
      );
    }
  }

  /** Mutating EKS calls recorded by CloudTrail start drift-event at once. */
  private createDriftRule(driftEvent: lambda.IFunction): events.Rule {
    driftEvent.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      onFailure: new destinations.SqsDestination(this.deadLetterQueue),
    });
    // CloudTrail delivers management events to the default bus of the region they happen in.
    return new events.Rule(this, 'EksApiCalls', {
      description: 'Mutating EKS API calls recorded by CloudTrail: reconcile the cluster at once',
      eventPattern: EKS_API_CALLS_PATTERN,
      targets: [
        new eventsTargets.LambdaFunction(driftEvent, {
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: 4,
          maxEventAge: Duration.hours(2),
        }),
      ],
    });
  }
}
