/**
 * The drift dashboard and the alarms. Metrics are the EMF metrics the handlers emit (namespace
 * CloudOrch; every metric line carries the `service` dimension, lambdas/handlers/log-lines.ts) plus
 * the AWS/States and AWS/Lambda metrics.
 */
import { Aws, Duration, Fn, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRIC, METRIC_NAMESPACE, type MetricName, SERVICE_NAME } from '../../lambdas/config.js';

export interface ObservabilityProps {
  readonly stateMachine: sfn.IStateMachine;
  /** The Rollout state machine: its failed and timed-out executions alarm, and get a row. */
  readonly rolloutStateMachine: sfn.IStateMachine;
  readonly functions: readonly lambda.IFunction[];
  /** write-status's log group: "status written" lines carry each cluster's outcome. */
  readonly statusLogGroup: logs.ILogGroup;
  readonly deadLetterQueue: sqs.IQueue;
  /** @default no subscription (the topic exists, subscribe later) */
  readonly alarmEmail?: string;
  /** Drift must be corrected within this time. */
  readonly driftCorrectionWindow: Duration;
  /** Failed executions in 15 minutes that raise the alarm. */
  readonly failedExecutionsThreshold: number;
}

function metric(
  name: MetricName,
  statistic: string,
  extra: Record<string, string> = {},
  period = Duration.minutes(5),
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRIC_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME, ...extra },
    statistic,
    period,
  });
}

/**
 * Every series of a metric that carries extra dimensions (error kind, trigger, outcome; account and
 * region): a search matches only metrics with exactly these dimensions.
 */
function byDimension(name: MetricName, dimension: string, label: string): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{${METRIC_NAMESPACE},${dimension},service} MetricName="${name}"', 'Sum', 300)`,
    label,
    period: Duration.minutes(5),
  });
}

export class Observability extends Construct {
  readonly dashboard: cloudwatch.Dashboard;
  readonly alarmTopic: sns.Topic;
  readonly alarms: Readonly<Record<string, cloudwatch.AlarmBase>>;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.alarmTopic = new sns.Topic(this, 'Alarms', { displayName: 'CloudOrch alarms', enforceSSL: true });
    Validations.of(this.alarmTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names and states only. CloudWatch cannot publish to a topic ' +
        'encrypted with the AWS-managed SNS key, and a customer key would add a key to run for no data.',
    });
    if (props.alarmEmail) this.alarmTopic.addSubscription(new subs.EmailSubscription(props.alarmEmail));
    this.alarms = this.createAlarms(props);
    for (const a of Object.values(this.alarms)) a.addAlarmAction(new actions.SnsAction(this.alarmTopic));
    this.dashboard = this.createDashboard(props);
  }

  /** Console address of the dashboard. */
  get dashboardUrl(): string {
    return Fn.join('', [
      `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=`,
      this.dashboard.dashboardName,
    ]);
  }

  /** Drift still open, or a convergence that took longer than the window allows. */
  private createDriftAlarm(window: Duration): cloudwatch.CompositeAlarm {
    // Per cluster: each sweep publishes the age of the oldest drift still open (a Drifted condition
    // that stayed True), so one cluster's correction cannot mask another's drift.
    const driftUncorrected = metric(
      METRIC.DriftOutstandingSeconds,
      'Maximum',
      {},
      Duration.minutes(5),
    ).createAlarm(this, 'DriftUncorrected', {
      alarmDescription: `A cluster has been drifted for more than ${window.toMinutes()} minutes`,
      threshold: window.toSeconds(),
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const slowConvergence = metric(METRIC.ConvergenceSeconds, 'Maximum', {}, window).createAlarm(
      this,
      'ConvergenceSlow',
      {
        alarmDescription: `A cluster took longer than ${window.toMinutes()} minutes to converge`,
        threshold: window.toSeconds(),
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    return new cloudwatch.CompositeAlarm(this, 'DriftNotCorrected', {
      alarmDescription: `Drift not corrected within ${window.toMinutes()} minutes`,
      alarmRule: cloudwatch.AlarmRule.anyOf(driftUncorrected, slowConvergence),
    });
  }

  private createAlarms(props: ObservabilityProps): Record<string, cloudwatch.AlarmBase> {
    const sm = props.stateMachine;
    const failed = new cloudwatch.MathExpression({
      expression: 'FILL(f, 0) + FILL(t, 0) + FILL(a, 0)',
      usingMetrics: {
        f: sm.metricFailed({ period: Duration.minutes(15) }),
        t: sm.metricTimedOut({ period: Duration.minutes(15) }),
        a: sm.metricAborted({ period: Duration.minutes(15) }),
      },
      label: 'Executions failed, timed out or aborted',
      period: Duration.minutes(15),
    });
    const anyInFive = (m: cloudwatch.Metric, id: string, description: string) =>
      m.createAlarm(this, id, {
        alarmDescription: description,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    const driftNotCorrected = this.createDriftAlarm(props.driftCorrectionWindow);
    return {
      executionsFailing: failed.createAlarm(this, 'ExecutionsFailing', {
        alarmDescription:
          'Reconcile executions are failing: see the clusters\u2019 status and remediation hints',
        threshold: props.failedExecutionsThreshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      deletionStuck: anyInFive(
        metric(METRIC.DeletionStuck, 'Sum'),
        'DeletionStuck',
        'A cluster deletion is stuck (see the cluster status for what blocks it)',
      ),
      policyEngineDegraded: anyInFive(
        metric(METRIC.PolicyEngineDegraded, 'Sum'),
        'PolicyEngineDegraded',
        'The policy bundle could not be loaded: every plan is denied until it is fixed',
      ),
      driftNotCorrected,
      sweepShardsDegraded: metric(METRIC.SweepShardsDegraded, 'Sum').createAlarm(
        this,
        'SweepShardsDegraded',
        {
          alarmDescription:
            'Sweep shards could not check all their clusters in a period for 15 minutes: those clusters are ' +
            'checked less often (SweepCadenceSeconds per Account and Region says how often). Spread the ' +
            'clusters over more accounts or regions, or raise the EKS request rate (eksCallsPerSecond, ' +
            'after raising the EKS quota).',
          threshold: 1,
          evaluationPeriods: 3,
          datapointsToAlarm: 3,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        },
      ),
      rolloutsFailing: this.createRolloutAlarm(props.rolloutStateMachine),
      deadLetters: anyInFive(
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' }),
        'TriggerDeadLetters',
        'A trigger (sweep, stream batch or drift event) failed for good: inspect the dead-letter queue',
      ),
    };
  }

  /**
   * Any rollout execution that failed or timed out: a halted rollout (too many clusters failed, or
   * aborted) or a failed step. Rollouts are few and each one matters, so one is enough.
   */
  private createRolloutAlarm(sm: sfn.IStateMachine): cloudwatch.Alarm {
    const failed = new cloudwatch.MathExpression({
      expression: 'FILL(f, 0) + FILL(t, 0)',
      usingMetrics: {
        f: sm.metricFailed({ period: Duration.minutes(5) }),
        t: sm.metricTimedOut({ period: Duration.minutes(5) }),
      },
      label: 'Rollout executions failed or timed out',
      period: Duration.minutes(5),
    });
    return failed.createAlarm(this, 'RolloutsFailing', {
      alarmDescription:
        'A rollout halted or failed: `cloudorch rollout describe` names the cluster and the reason',
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  private createDashboard(props: ObservabilityProps): cloudwatch.Dashboard {
    const sm = props.stateMachine;
    const d = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(24) });
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8) =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6 });
    d.addWidgets(
      graph('Drift detected', [metric(METRIC.DriftDetected, 'Sum')]),
      graph('Time to converge (s)', [
        metric(METRIC.ConvergenceSeconds, 'p50'),
        metric(METRIC.ConvergenceSeconds, 'p90'),
        metric(METRIC.ConvergenceSeconds, 'Maximum'),
      ]),
      graph('Errors by kind', [byDimension(METRIC.ReconcileErrors, 'Kind', 'Errors')]),
    );
    d.addWidgets(
      graph('Policy denials and engine degraded', [
        metric(METRIC.PolicyDenials, 'Sum'),
        metric(METRIC.PolicyEngineDegraded, 'Sum'),
      ]),
      graph('Executions started (by trigger) and failed', [
        byDimension(METRIC.ExecutionsStarted, 'Trigger', 'Started'),
        sm.metricFailed({ period: Duration.minutes(5) }),
        sm.metricTimedOut({ period: Duration.minutes(5) }),
      ]),
      graph('Throttles', [
        byDimension(METRIC.EksThrottled, 'Account,Region', 'EKS throttled'),
        sm.metricThrottled({ period: Duration.minutes(5) }),
        ...props.functions.map((f) => f.metricThrottles({ period: Duration.minutes(5) })),
      ]),
      graph('EKS budget (per account and region)', [
        byDimension(METRIC.EksBudgetWaitSeconds, 'Account,Region', 'Waited for slots (s)'),
        byDimension(METRIC.EksBudgetExhausted, 'Account,Region', 'Claims refused'),
      ]),
    );
    d.addWidgets(
      new cloudwatch.LogQueryWidget({
        title: 'Clusters by last outcome',
        logGroupNames: [props.statusLogGroup.logGroupName],
        view: cloudwatch.LogQueryVisualizationType.BAR,
        queryLines: [
          "filter message = 'status written'",
          'stats latest(outcome) as lastOutcome by clusterId',
          'stats count(*) as clusters by lastOutcome',
        ],
        width: 12,
        height: 6,
      }),
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: Object.values(this.alarms),
        width: 12,
        height: 6,
      }),
      graph('Reconcile outcomes', [byDimension(METRIC.ReconcileSteps, 'Outcome', 'Outcomes')], 12),
      graph(
        'Clusters by condition (sweep)',
        [byDimension(METRIC.ClustersByCondition, 'Reason', 'Clusters')],
        12,
      ),
    );
    this.addRolloutRow(d, props.rolloutStateMachine);
    return d;
  }

  /** One row for rollouts: the machine's executions by outcome, and what the rollout steps report. */
  private addRolloutRow(d: cloudwatch.Dashboard, rollout: sfn.IStateMachine): void {
    const five = { period: Duration.minutes(5) };
    d.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Rollout executions',
        left: [
          rollout.metricStarted(five),
          rollout.metricSucceeded(five),
          rollout.metricFailed(five),
          rollout.metricTimedOut(five),
          rollout.metricAborted(five),
        ],
        width: 12,
        height: 6,
      }),
      new cloudwatch.GraphWidget({
        title: 'Rollout clusters, approvals, halts and completions',
        left: [
          metric(METRIC.RolloutClusters, 'Sum', { Outcome: 'Succeeded' }),
          metric(METRIC.RolloutClusters, 'Sum', { Outcome: 'Failed' }),
        ],
        right: [
          metric(METRIC.RolloutApprovalsRequested, 'Sum'),
          metric(METRIC.RolloutsHalted, 'Sum'),
          metric(METRIC.RolloutsCompleted, 'Sum'),
        ],
        width: 12,
        height: 6,
      }),
    );
  }
}
