/** Template assertions for every resource and setting of the stack, and the cdk-nag outcome. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import aslValidator from 'asl-validator';
import { Duration, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT } from '../../infra/lib/app.js';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import {
  deployedRolloutDefinition,
  PARTITION_PLACEHOLDER,
  rolloutStateMachineName,
} from '../../infra/lib/rollout-state-machine.js';
import { STREAM_FILTER, sweepEventAge } from '../../infra/lib/triggers.js';
import { ENV } from '../../lambdas/config.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
import { METRIC } from '../../lambdas/handlers/telemetry.js';
import {
  DEFAULT_DEFINITION_OPTIONS,
  definitionString,
  STEP_FUNCTIONS,
  type StepFunctionKey,
  substitute,
} from '../../lambdas/statemachine/definition.js';
import {
  DEFAULT_ROLLOUT_OPTIONS,
  ROLLOUT_FUNCTIONS,
  type RolloutFunctionKey,
  rolloutDefinitionString,
  substituteRollout,
} from '../../lambdas/statemachine/rollout-definition.js';
import { logicalId, resource, type Synthesized, synthesize, TEST_CONTEXT } from './support.js';

/** Read here, not through the stack's own reader, so a wrong reader fails the test. */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

let s: Synthesized;
const fnId = (k: FunctionKey) => logicalId(s, s.stack.cloudorch.functions[k]);
const arnOf = (k: FunctionKey) => ({ 'Fn::GetAtt': [fnId(k), 'Arn'] });

beforeAll(async () => {
  s = await synthesize();
}, 120_000);

describe('desired-state table', () => {
  it('is on-demand, encrypted, recoverable, protected, retained and streams both images', () => {
    s.template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
  });
});

describe('coordination table', () => {
  it('is on-demand, encrypted, expires items by TTL, has no stream and goes with the stack', () => {
    const props = resource(s, logicalId(s, s.stack.cloudorch.coordinationTable.table)).Properties;
    expect(props).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    expect(props['StreamSpecification']).toBeUndefined();
    s.template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      }),
    });
  });
});

describe('functions', () => {
  it.each(Object.keys(FUNCTIONS) as FunctionKey[])(
    '%s: Node 24, arm64, catalog sizing, Powertools env',
    (k) => {
      const spec = FUNCTIONS[k];
      const props = resource(s, fnId(k)).Properties;
      expect(props).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: spec.memoryMb,
        Timeout: spec.timeoutSeconds,
        Description: spec.description,
        Environment: {
          Variables: expect.objectContaining({
            POWERTOOLS_SERVICE_NAME: 'cloudorch',
            POWERTOOLS_METRICS_NAMESPACE: 'CloudOrch',
            POWERTOOLS_LOG_LEVEL: 'INFO',
            NODE_OPTIONS: '--enable-source-maps',
            CLOUDORCH_TABLE_NAME: { Ref: logicalId(s, s.stack.cloudorch.table) },
            CLOUDORCH_DEFAULT_SUBNET_IDS: 'subnet-0aaa,subnet-0bbb',
            CLOUDORCH_DEFAULT_SECURITY_GROUP_IDS: 'sg-0ccc',
          }),
        },
      });
    },
  );

  it('triggers know the state machine; only the policy step knows the bundle', () => {
    const env = (k: FunctionKey) =>
      (resource(s, fnId(k)).Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
    const sm = { Ref: logicalId(s, s.stack.cloudorch.stateMachine) };
    for (const k of ['onChange', 'sweepShard', 'driftEvent', 'reconcileNow'] as const) {
      expect(env(k)['CLOUDORCH_STATE_MACHINE_ARN']).toEqual(sm);
    }
    // The dispatcher starts nothing: it hands shards to the shard function, which it names.
    expect(env('sweep')['CLOUDORCH_STATE_MACHINE_ARN']).toBeUndefined();
    expect(env('sweep')['CLOUDORCH_SWEEP_SHARD_FUNCTION']).toEqual({ Ref: fnId('sweepShard') });
    // The dispatcher signs its Invoke to Lambda's endpoint in the stack's region and partition.
    expect(env('sweep')['CLOUDORCH_LAMBDA_ENDPOINT']).toEqual({
      'Fn::Join': ['', ['https://lambda.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
    });
    expect(env('sweepShard')).toMatchObject({
      CLOUDORCH_SWEEP_PERIOD_SECONDS: '600',
      CLOUDORCH_SWEEP_CONCURRENCY: '8',
      // The full-observation period (default one hour): the shard run's tiers read it.
      CLOUDORCH_FULL_OBSERVE_PERIOD_SECONDS: '3600',
    });
    expect(env('sweepShard')['CLOUDORCH_COORDINATION_TABLE']).toEqual({
      Ref: logicalId(s, s.stack.cloudorch.coordinationTable.table),
    });
    expect(env('apply')['CLOUDORCH_STATE_MACHINE_ARN']).toBeUndefined();
    expect(JSON.stringify(env('policy')['CLOUDORCH_POLICY_BUNDLE_S3'])).toContain('/policy/bundle.tar.gz');
    expect(env('plan')['CLOUDORCH_POLICY_BUNDLE_S3']).toBeUndefined();
    // The policy function's signed GET goes to the bundle bucket's regional domain name.
    expect(env('policy')['CLOUDORCH_POLICY_BUNDLE_ENDPOINT']).toEqual({
      'Fn::Join': [
        '',
        [
          'https://',
          { 'Fn::GetAtt': [logicalId(s, s.stack.cloudorch.policyBundle.bucket), 'RegionalDomainName'] },
        ],
      ],
    });
    expect(env('plan')['CLOUDORCH_POLICY_BUNDLE_ENDPOINT']).toBeUndefined();
    expect(env('sweep')).toMatchObject({ CLOUDORCH_SWEEP_PERIOD_SECONDS: '600' });
    // Shards of the own account are named by its id in the dispatcher too, as in the budget's metrics.
    expect(env('sweep')['CLOUDORCH_ACCOUNT_ID']).toEqual(env('sweepShard')['CLOUDORCH_ACCOUNT_ID']);
    expect(env('sweep')['CLOUDORCH_ACCOUNT_ID']).toBeDefined();
    // The rollout functions name the rollout table; only the report function names the topic.
    const rolloutTable = { Ref: logicalId(s, s.stack.cloudorch.rolloutTable) };
    for (const k of Object.keys(FUNCTIONS) as FunctionKey[]) {
      const caps: readonly string[] = FUNCTIONS[k].capabilities;
      expect(env(k)[ENV.rolloutTable], k).toEqual(caps.includes('rollout:write') ? rolloutTable : undefined);
      expect(env(k)[ENV.rolloutTopic], k).toEqual(
        k === 'rolloutReport' ? { Ref: logicalId(s, s.stack.cloudorch.rolloutTopic) } : undefined,
      );
    }
    for (const k of ['rolloutPlan', 'rolloutApply', 'rolloutWatch', 'rolloutReport'] as const)
      expect(env(k)['CLOUDORCH_STATE_MACHINE_ARN'], k).toBeUndefined();
    expect(env('driftEvent')['CLOUDORCH_OWN_ROLE_ARNS']).toEqual({
      'Fn::GetAtt': [logicalId(s, s.stack.cloudorch.functions.apply.role as never), 'Arn'],
    });
  });
});

describe('state machine', () => {
  // Two machines in the stack: this is the Reconcile one.
  const props = () => resource(s, logicalId(s, s.stack.cloudorch.stateMachine)).Properties;

  /** What CloudFormation makes of the deployed string in the `aws` partition. */
  const reconcileInAws = () =>
    (props()['DefinitionString'] as string).replaceAll(`\${${PARTITION_PLACEHOLDER}}`, 'aws');

  it('deploys the exact definition the local runner executes, the partition of its approval callback left to CloudFormation', () => {
    expect(reconcileInAws()).toBe(definitionString(DEFAULT_DEFINITION_OPTIONS));
    expect(props()['DefinitionString']).not.toContain('arn:aws:');
    expect(props()['DefinitionString']).toContain(
      `arn:\${${PARTITION_PLACEHOLDER}}:states:::lambda:invoke.waitForTaskToken`,
    );
  });

  it('substitutes every placeholder with its own step function, and the partition', () => {
    const subs = props()['DefinitionSubstitutions'];
    const expected = Object.fromEntries(
      (Object.keys(STEP_FUNCTIONS) as StepFunctionKey[]).map((k) => [STEP_FUNCTIONS[k], arnOf(k)]),
    );
    expect(subs).toEqual({ ...expected, [PARTITION_PLACEHOLDER]: { Ref: 'AWS::Partition' } });
  });

  it('passes asl-validator once substituted', () => {
    const arns = Object.fromEntries(
      (Object.keys(STEP_FUNCTIONS) as StepFunctionKey[]).map((k) => [
        k,
        `arn:aws:lambda:eu-west-1:111111111111:function:cloudorch-${k}`,
      ]),
    ) as Record<StepFunctionKey, string>;
    const result = aslValidator(JSON.parse(substitute(reconcileInAws(), arns)));
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });

  it('logs every event and traces with X-Ray', () => {
    expect(props()).toMatchObject({
      StateMachineType: 'STANDARD',
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
      TracingConfiguration: { Enabled: true },
    });
  });
});

describe('rollout state machine', () => {
  const props = () => resource(s, logicalId(s, s.stack.cloudorch.rolloutStateMachine)).Properties;
  const keys = Object.keys(ROLLOUT_FUNCTIONS) as RolloutFunctionKey[];
  const arns = Object.fromEntries(
    keys.map((k) => [k, `arn:aws:lambda:eu-west-1:111111111111:function:cloudorch-${k}`]),
  ) as Record<RolloutFunctionKey, string>;
  /** What CloudFormation makes of the deployed string in the `aws` partition. */
  const inAws = () =>
    substituteRollout(
      (props()['DefinitionString'] as string).replaceAll(`\${${PARTITION_PLACEHOLDER}}`, 'aws'),
      arns,
    );

  it('deploys the rollout definition, with only the partition of its integrations left to CloudFormation', () => {
    expect(props()['DefinitionString']).toBe(deployedRolloutDefinition(DEFAULT_ROLLOUT_OPTIONS));
    // In the `aws` partition it is exactly what the local runner executes.
    expect(inAws()).toBe(substituteRollout(rolloutDefinitionString(DEFAULT_ROLLOUT_OPTIONS), arns));
    // The approval callbacks are the integrations it names.
    expect(props()['DefinitionString']).toContain(
      `arn:\${${PARTITION_PLACEHOLDER}}:states:::lambda:invoke.waitForTaskToken`,
    );
  });

  it('substitutes each placeholder with its own rollout function, and the partition', () => {
    expect(props()['DefinitionSubstitutions']).toEqual({
      ...Object.fromEntries(keys.map((k) => [ROLLOUT_FUNCTIONS[k], arnOf(k)])),
      [PARTITION_PLACEHOLDER]: { Ref: 'AWS::Partition' },
    });
  });

  it('passes asl-validator once substituted', () => {
    const result = aslValidator(JSON.parse(inAws()));
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });

  it('is a standard machine of its own name, logging every event without data, traced', () => {
    expect(props()).toMatchObject({
      StateMachineName: rolloutStateMachineName(s.stack),
      StateMachineType: 'STANDARD',
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
      TracingConfiguration: { Enabled: true },
    });
    expect(rolloutStateMachineName(s.stack)).toBe('CloudOrch-Rollout');
    s.template.resourceCountIs('AWS::StepFunctions::StateMachine', 2);
  });
});

describe('rollout table and topic', () => {
  it('the table is on-demand, encrypted, recoverable, protected and retained, without stream or TTL', () => {
    const r = resource(s, logicalId(s, s.stack.cloudorch.rolloutTable));
    expect(r).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
        Replicas: [
          expect.objectContaining({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      },
    });
    expect(r.Properties['StreamSpecification']).toBeUndefined();
    expect(r.Properties['TimeToLiveSpecification']).toBeUndefined();
  });

  it('the topic is encrypted with the AWS-managed SNS key and refuses requests without TLS', () => {
    const topic = logicalId(s, s.stack.cloudorch.rolloutTopic);
    expect(JSON.stringify(resource(s, topic).Properties['KmsMasterKeyId'])).toContain(':alias/aws/sns');
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topic }],
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ],
      },
    });
  });
});

describe('triggers', () => {
  it('sweeps on a schedule, one target per segment, with a dead-letter queue', () => {
    const schedules = s.template.findResources('AWS::Scheduler::Schedule');
    expect(Object.keys(schedules)).toHaveLength(2);
    const inputs = Object.values(schedules).map((r) => {
      const p = r['Properties'];
      expect(p.ScheduleExpression).toBe('rate(10 minutes)');
      expect(p.Target.Arn).toEqual(arnOf('sweep'));
      expect(p.Target.DeadLetterConfig.Arn).toBeDefined();
      return JSON.parse(p.Target.Input);
    });
    expect(inputs).toEqual([
      { segment: 0, totalSegments: 2 },
      { segment: 1, totalSegments: 2 },
    ]);
  });

  it('filters the stream to inserts and modifications of cluster records, failures to the DLQ', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId('onChange') },
      StartingPosition: 'LATEST',
      BisectBatchOnFunctionError: true,
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(STREAM_FILTER) }] },
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
    expect(STREAM_FILTER.eventName).not.toContain('REMOVE');
  });

  it('reacts to mutating EKS calls recorded by CloudTrail', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.eks'],
        'detail-type': ['AWS API Call via CloudTrail'],
        detail: { eventSource: ['eks.amazonaws.com'], eventName: Match.arrayWith([{ prefix: 'Update' }]) },
      },
      Targets: [Match.objectLike({ Arn: arnOf('driftEvent'), DeadLetterConfig: Match.anyValue() })],
    });
  });

  it('never runs two sweep dispatchers at once (reserved concurrency 1) and bounds the shard runs', () => {
    const reserved = Object.fromEntries(
      (Object.keys(FUNCTIONS) as FunctionKey[]).map((k) => [
        k,
        resource(s, fnId(k)).Properties['ReservedConcurrentExecutions'],
      ]),
    );
    expect(reserved).toEqual({
      ...Object.fromEntries(Object.keys(FUNCTIONS).map((k) => [k, undefined])),
      sweep: 1,
      sweepShard: 20,
    });
  });

  it('drops a sweep tick that cannot run within one period instead of queueing it for hours', () => {
    // The test stack sweeps every 10 minutes.
    const period = 600;
    for (const k of ['sweep', 'sweepShard'] as const)
      s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: fnId(k) },
        Qualifier: '$LATEST',
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: period,
      });
    for (const r of Object.values(s.template.findResources('AWS::Scheduler::Schedule'))) {
      const retry = r['Properties'].Target.RetryPolicy;
      expect(retry.MaximumEventAgeInSeconds).toBe(period);
      expect(retry.MaximumRetryAttempts).toBeLessThanOrEqual(2);
    }
  });

  it('bounds the tick age to what Lambda and Scheduler accept', () => {
    expect(sweepEventAge(Duration.minutes(1)).toSeconds()).toBe(60);
    expect(sweepEventAge(Duration.seconds(30)).toSeconds()).toBe(60);
    expect(sweepEventAge(Duration.hours(12)).toSeconds()).toBe(6 * 3600);
  });

  it('sends failed asynchronous invocations of sweep, its shard runs and drift-event to the DLQ', () => {
    for (const k of ['sweep', 'sweepShard', 'driftEvent'] as const) {
      s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: fnId(k) },
        DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
      });
    }
    s.template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
  });
});

describe('policy bundle', () => {
  it('lives in a versioned, encrypted, private bucket, deployed under policy/', () => {
    s.template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: Match.objectLike({
        BlockPublicAcls: true,
        RestrictPublicBuckets: true,
      }),
    });
    s.template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketKeyPrefix: 'policy/',
      Prune: false,
    });
  });
});

describe('observability', () => {
  it('has the dashboard widgets the issue lists', () => {
    const body = JSON.stringify(s.template.findResources('AWS::CloudWatch::Dashboard'));
    for (const m of [
      METRIC.DriftDetected,
      METRIC.ConvergenceSeconds,
      METRIC.ReconcileErrors,
      METRIC.PolicyDenials,
      METRIC.ExecutionsStarted,
      'ExecutionsFailed',
      METRIC.EksThrottled,
      'Throttles',
      'Clusters by last outcome',
      'Rollout executions',
      METRIC.RolloutClusters,
      METRIC.RolloutApprovalsRequested,
      METRIC.RolloutsHalted,
      METRIC.RolloutsCompleted,
    ]) {
      expect(body).toContain(m);
    }
  });

  it('graphs EKS throttles and the EKS budget by the dimensions they are emitted with', () => {
    const body = JSON.stringify(s.template.findResources('AWS::CloudWatch::Dashboard'));
    for (const m of [METRIC.EksThrottled, METRIC.EksBudgetWaitSeconds, METRIC.EksBudgetExhausted])
      expect(body).toMatch(new RegExp(`,Account,Region,service\\} MetricName=[\\\\"]*${m}[\\\\"]*'`));
  });

  it('alarms on failing executions, stuck deletions, a degraded policy engine, uncorrected drift and degraded sweep shards', () => {
    const alarms = JSON.stringify(s.template.findResources('AWS::CloudWatch::Alarm'));
    for (const m of ['ExecutionsFailed', METRIC.DeletionStuck, METRIC.PolicyEngineDegraded]) {
      expect(alarms).toContain(m);
    }
    // Drift is judged per cluster: the oldest drift still open, published by every sweep.
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: METRIC.DriftOutstandingSeconds,
      Statistic: 'Maximum',
      Threshold: 20 * 60,
    });
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: METRIC.ConvergenceSeconds,
      Threshold: 20 * 60,
    });
    // A shard that cannot check all its clusters in three consecutive periods, with what to do.
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: METRIC.SweepShardsDegraded,
      Statistic: 'Sum',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmDescription: Match.stringLikeRegexp('more accounts or regions.*eksCallsPerSecond'),
    });
    s.template.resourceCountIs('AWS::CloudWatch::CompositeAlarm', 1);
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    // Any failed or timed-out rollout execution, on the Rollout machine's own metrics.
    const rolloutMachine = { Ref: logicalId(s, s.stack.cloudorch.rolloutStateMachine) };
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('rollout halted or failed'),
      Threshold: 1,
      Metrics: Match.arrayWith([
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({
              MetricName: 'ExecutionsFailed',
              Dimensions: [{ Name: 'StateMachineArn', Value: rolloutMachine }],
            }),
          }),
        }),
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({
              MetricName: 'ExecutionsTimedOut',
              Dimensions: [{ Name: 'StateMachineArn', Value: rolloutMachine }],
            }),
          }),
        }),
      ]),
    });
    // The two drift alarms notify through their composite only.
    const notifying = Object.values({
      ...s.template.findResources('AWS::CloudWatch::Alarm'),
      ...s.template.findResources('AWS::CloudWatch::CompositeAlarm'),
    }).filter((a) => a['Properties'].AlarmActions?.length === 1);
    expect(notifying).toHaveLength(7);
  });
});

describe('bridge role', () => {
  it('trusts EKS Pod Identity and the IRSA service account, both for the bridge service account only', () => {
    const role = resource(s, logicalId(s, s.stack.cloudorch.bridgeRole)).Properties as {
      AssumeRolePolicyDocument: { Statement: unknown[] };
    };
    const trust = JSON.stringify(role.AssumeRolePolicyDocument);
    expect(trust).toContain('pods.eks.amazonaws.com');
    expect(trust).toContain('sts:TagSession');
    expect(trust).toContain('sts:AssumeRoleWithWebIdentity');
    expect(trust).toContain('system:serviceaccount:cloudorch-system:cloudorch-bridge');
    expect(trust).toContain('oidc.eks.eu-west-1.amazonaws.com/id/ABC:aud');
    expect(trust).toContain('"aws:RequestTag/kubernetes-namespace":"cloudorch-system"');
    expect(trust).toContain('"aws:RequestTag/kubernetes-service-account":"cloudorch-bridge"');
  });
});

describe('outputs', () => {
  it('names what a user needs', () => {
    const outputs = Object.keys(s.template.findOutputs('*'));
    for (const o of [
      'TableName',
      'StateMachineArn',
      'BridgeRoleArn',
      'DashboardUrl',
      'PolicyBundleUrl',
      'RolloutTableName',
      'RolloutStateMachineArn',
      'RolloutTopicArn',
    ])
      expect(outputs).toContain(o);
  });

  it('names the rollout table (by the variable the CLI reads), the Rollout machine and its topic', () => {
    const outputs = s.template.findOutputs('*');
    const c = s.stack.cloudorch;
    expect(outputs['RolloutTableName']).toMatchObject({ Value: { Ref: logicalId(s, c.rolloutTable) } });
    expect(outputs['RolloutTableName']?.['Description']).toContain(ENV.rolloutTable);
    expect(outputs['RolloutStateMachineArn']).toMatchObject({
      Value: { Ref: logicalId(s, c.rolloutStateMachine) },
    });
    expect(outputs['RolloutTopicArn']).toMatchObject({ Value: { Ref: logicalId(s, c.rolloutTopic) } });
  });

  it('describes the table and the state machine by the variables the CLI reads them from', () => {
    const outputs = s.template.findOutputs('*');
    expect(outputs['TableName']).toMatchObject({ Value: { Ref: logicalId(s, s.stack.cloudorch.table) } });
    expect(outputs['TableName']?.['Description']).toContain(ENV.table);
    expect(outputs['StateMachineArn']).toMatchObject({
      Value: { Ref: logicalId(s, s.stack.cloudorch.stateMachine) },
    });
    expect(outputs['StateMachineArn']?.['Description']).toContain(ENV.stateMachine);
  });

  it("outputs the default roles a CLI target needs to plan as the stack's functions do", () => {
    const outputs = s.template.findOutputs('*');
    expect(outputs['DefaultClusterRoleArn']?.['Description']).toContain('--cluster-role-arn');
    expect(outputs['DefaultNodeRoleArn']?.['Description']).toContain('--node-role-arn');
    expect(JSON.stringify(outputs['DefaultClusterRoleArn']?.['Value'])).toContain(
      logicalId(s, s.stack.cloudorch.clusterRole as unknown as { node: { defaultChild?: unknown } }),
    );
  });

  it('outputs the package version and tags the table with it, where `cloudorch version` reads it', () => {
    expect(s.template.findOutputs('Version')['Version']?.['Value']).toBe(PACKAGE_VERSION);
    s.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ Tags: [{ Key: 'cloudorch.io/version', Value: PACKAGE_VERSION }] })],
    });
  });
});

describe('cdk-nag AwsSolutions', () => {
  const acknowledgements = (root: IConstruct) =>
    root.node.findAll().flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        // Recorded as { [ruleId]: reason }.
        .flatMap((m) => Object.entries(m.data as Record<string, string>))
        .map(([id, reason]) => ({ path: c.node.path, id, reason })),
    );

  it('synthesizes with zero unacknowledged findings (synth throws otherwise)', () => {
    expect(s.app.node.findAll().length).toBeGreaterThan(0);
  });

  it('is environment-agnostic here: account, region and partition stay tokens in every ARN', () => {
    expect(s.stack.account).toMatch(/^\$\{Token\[/);
    // The only literal partition is in the IRSA provider ARN the test context supplies.
    const text = JSON.stringify(s.json).replaceAll(TEST_CONTEXT[CONTEXT.bridgeOidcProviderArn], '');
    expect(text).not.toMatch(/arn:aws[a-z-]*:/);
  });

  it('justifies every acknowledgement', () => {
    const acks = acknowledgements(s.app);
    expect(acks.length).toBeGreaterThan(0);
    for (const a of acks) expect(a.reason.length, `${a.path} ${a.id}`).toBeGreaterThan(40);
    console.log(acks.map((a) => `${a.path}: ${a.id}\n    ${a.reason}`).join('\n'));
  });
});
