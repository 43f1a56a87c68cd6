/**
 * The Rollout state machine, built once in code like the Reconcile one (definition.ts): the single
 * source for CDK and for local runs, which substitute function ARNs into this very string.
 *
 * Plan (stages frozen on the rollout's record, clusters locked against a second rollout) -> Stages,
 * a Map with MaxConcurrency 1 so stages run one after another, in order. Each stage:
 *   StageStart -> [approval before] -> Clusters (a Map at the stage's maxConcurrency; each cluster:
 *   ApplyChange writes the change as a new generation -> Wait -> Watch until Ready at it and healthy
 *   through the health window, or failed) -> StageEnd -> [approval after] -> Soak (checked on the
 *   reconciler's clock, waiting in between) -> next stage.
 * Approvals are callback tasks (`.waitForTaskToken`): the report function stores the token on the
 * rollout's record and `cloudorch rollout approve` hands it back. A cluster failure is caught inside
 * its iteration and recorded, so the Map never aborts in-flight clusters; a halt (too many failures,
 * an abort) stops launching clusters, lets in-flight ones finish, and ends the execution Halted.
 */
import { InternalError } from '../core/errors.js';
import { RETRY } from './definition.js';
import type { Json } from './validate-input.js';

/** One Lambda per kind of step, each with only the permissions its step needs. */
export const ROLLOUT_FUNCTIONS = {
  rolloutPlan: 'RolloutPlanFunctionArn',
  rolloutApply: 'RolloutApplyFunctionArn',
  rolloutWatch: 'RolloutWatchFunctionArn',
  rolloutReport: 'RolloutReportFunctionArn',
} as const;
export type RolloutFunctionKey = keyof typeof ROLLOUT_FUNCTIONS;

/** The Error a halted rollout ends with; its Cause points at the rollout's status. */
export const ROLLOUT_HALTED = 'RolloutHalted';

export interface RolloutDefinitionOptions {
  /** Seconds between two looks at a cluster while it converges or is watched. */
  readonly pollSeconds: number;
}

export const DEFAULT_ROLLOUT_OPTIONS: RolloutDefinitionOptions = { pollSeconds: 30 };

const arn = (fn: RolloutFunctionKey) => `\${${ROLLOUT_FUNCTIONS[fn]}}`;

function task(fn: RolloutFunctionKey, params: Json, next: string, extra: Json = {}): Json {
  return { Type: 'Task', Resource: arn(fn), Parameters: params, Retry: RETRY, Next: next, ...extra };
}

/** A report event about the rollout; `extra` adds fields of the state's input. */
function report(event: string, next: string, extra: Json = {}, resultPath: string | null = null): Json {
  return task('rolloutReport', { event, 'id.$': '$.id', 'generation.$': '$.generation', ...extra }, next, {
    ResultPath: resultPath,
  });
}

/** Waits for `cloudorch rollout approve`: the report function stores the token on the record. */
function approval(when: 'before' | 'after', next: string): Json {
  return {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
    Parameters: {
      FunctionName: arn('rolloutReport'),
      Payload: {
        event: 'awaitApproval',
        when,
        'id.$': '$.id',
        'generation.$': '$.generation',
        'stage.$': '$.stage.name',
        'token.$': '$$.Task.Token',
      },
    },
    Retry: RETRY,
    ResultPath: '$.approval',
    Next: next,
  };
}

/** One cluster of a stage: write the change, then watch it until it is healthy or failed. */
function clusterStates(opts: RolloutDefinitionOptions): Json {
  const ids = {
    'id.$': '$.id',
    'generation.$': '$.generation',
    'stage.$': '$.stage',
    'cluster.$': '$.cluster',
  };
  const caught = [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'ClusterFailed' }];
  return {
    StartAt: 'ApplyChange',
    States: {
      ApplyChange: task('rolloutApply', ids, 'Applied', { ResultPath: '$.run', Catch: caught }),
      Applied: {
        Type: 'Choice',
        Choices: [{ Variable: '$.run.state', StringEquals: 'started', Next: 'WatchWait' }],
        Default: 'ClusterEnd',
      },
      WatchWait: { Type: 'Wait', Seconds: opts.pollSeconds, Next: 'Watch' },
      Watch: task('rolloutWatch', { ...ids, 'run.$': '$.run' }, 'Watched', {
        ResultPath: '$.run',
        Catch: caught,
      }),
      Watched: {
        Type: 'Choice',
        Choices: [{ Variable: '$.run.state', StringEquals: 'started', Next: 'WatchWait' }],
        Default: 'ClusterEnd',
      },
      ClusterFailed: task(
        'rolloutReport',
        { event: 'clusterFailed', ...ids, 'error.$': '$.error' },
        'ClusterEnd',
        // Unrecorded, the cluster stays in progress, and StageEnd counts that as a failure.
        { ResultPath: null, Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: null, Next: 'ClusterEnd' }] },
      ),
      ClusterEnd: { Type: 'Succeed' },
    },
  };
}

/** One stage: approval before, its clusters, approval after, the soak. */
function stageStates(opts: RolloutDefinitionOptions): Json {
  const halted = (next: string): Json => ({
    Type: 'Choice',
    Choices: [{ Variable: '$.gate.halted', BooleanEquals: true, Next: 'StageHalted' }],
    Default: next,
  });
  const approvalIs = (when: string, yes: string, no: string): Json => ({
    Type: 'Choice',
    Choices: [{ Variable: '$.stage.approval', StringEquals: when, Next: yes }],
    Default: no,
  });
  const stage = { 'stage.$': '$.stage.name' };
  return {
    StartAt: 'StageStart',
    States: {
      StageStart: report('stageStart', 'StartHalted', stage, '$.gate'),
      // A resumed attempt passes over the stages an earlier attempt finished: no second soak or approval.
      StartHalted: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.gate.halted', BooleanEquals: true, Next: 'StageHalted' },
          { Variable: '$.gate.finished', BooleanEquals: true, Next: 'StageDone' },
        ],
        Default: 'ApprovalBefore',
      },
      ApprovalBefore: approvalIs('before', 'AwaitApprovalBefore', 'Clusters'),
      AwaitApprovalBefore: approval('before', 'ApprovedBefore'),
      ApprovedBefore: report('approved', 'ApprovedBeforeHalted', { ...stage, when: 'before' }, '$.gate'),
      ApprovedBeforeHalted: halted('Clusters'),
      Clusters: {
        Type: 'Map',
        ItemsPath: '$.stage.clusters',
        MaxConcurrencyPath: '$.stage.maxConcurrency',
        ItemSelector: {
          'id.$': '$.id',
          'generation.$': '$.generation',
          'stage.$': '$.stage.name',
          'cluster.$': '$$.Map.Item.Value',
        },
        ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, ...clusterStates(opts) },
        ResultPath: null,
        Next: 'StageEnd',
      },
      StageEnd: report('stageEnd', 'EndHalted', stage, '$.gate'),
      EndHalted: halted('ApprovalAfter'),
      ApprovalAfter: approvalIs('after', 'AwaitApprovalAfter', 'Soak'),
      AwaitApprovalAfter: approval('after', 'ApprovedAfter'),
      ApprovedAfter: report('approved', 'ApprovedAfterHalted', { ...stage, when: 'after' }, '$.gate'),
      ApprovedAfterHalted: halted('Soak'),
      Soak: report('soak', 'Soaked', stage, '$.soak'),
      Soaked: {
        Type: 'Choice',
        Choices: [{ Variable: '$.soak.done', BooleanEquals: true, Next: 'StageDone' }],
        Default: 'SoakWait',
      },
      SoakWait: { Type: 'Wait', SecondsPath: '$.soak.waitSeconds', Next: 'Soak' },
      StageDone: { Type: 'Succeed' },
      StageHalted: {
        Type: 'Fail',
        Error: ROLLOUT_HALTED,
        Cause: 'The rollout halted: `cloudorch rollout describe` shows the cluster and the reason.',
      },
    },
  };
}

export function buildRolloutDefinition(opts: RolloutDefinitionOptions = DEFAULT_ROLLOUT_OPTIONS): Json {
  return {
    Comment: 'CloudOrch Rollout: one change across many clusters, stage by stage',
    StartAt: 'Plan',
    States: {
      Plan: task('rolloutPlan', { 'id.$': '$.id', 'executionArn.$': '$$.Execution.Id' }, 'Stages', {
        ResultPath: '$.plan',
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'ReportFailure' }],
      }),
      Stages: {
        Type: 'Map',
        ItemsPath: '$.plan.stages',
        MaxConcurrency: 1,
        ItemSelector: {
          'id.$': '$.id',
          'generation.$': '$.plan.generation',
          'stage.$': '$$.Map.Item.Value',
        },
        ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, ...stageStates(opts) },
        ResultPath: null,
        Next: 'Complete',
        Catch: [
          { ErrorEquals: [ROLLOUT_HALTED], ResultPath: '$.error', Next: 'Halted' },
          { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'ReportFailure' },
        ],
      },
      Complete: task(
        'rolloutReport',
        { event: 'complete', 'id.$': '$.id', 'generation.$': '$.plan.generation' },
        'Done',
        { ResultPath: null },
      ),
      Done: { Type: 'Succeed' },
      Halted: { Type: 'Fail', Error: ROLLOUT_HALTED, CausePath: '$.error.Cause' },
      ReportFailure: task(
        'rolloutReport',
        { event: 'failed', 'id.$': '$.id', 'error.$': '$.error' },
        'Failed',
        { ResultPath: null, Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: null, Next: 'Failed' }] },
      ),
      Failed: {
        Type: 'Fail',
        Error: 'RolloutFailed',
        Cause: 'A rollout step failed: `cloudorch rollout describe` shows why.',
      },
    },
  };
}

/** The exact string CDK deploys (with `${...}` placeholders for the function ARNs). */
export function rolloutDefinitionString(opts: RolloutDefinitionOptions = DEFAULT_ROLLOUT_OPTIONS): string {
  return JSON.stringify(buildRolloutDefinition(opts));
}

/** Substitutes function ARNs the way Step Functions' definitionSubstitutions does. */
export function substituteRollout(
  definition: string,
  arns: Readonly<Record<RolloutFunctionKey, string>>,
): string {
  let out = definition;
  for (const [key, placeholder] of Object.entries(ROLLOUT_FUNCTIONS) as [RolloutFunctionKey, string][]) {
    const value = arns[key];
    if (typeof value !== 'string' || value === '') throw new InternalError(`no function ARN for ${key}`);
    out = out.replaceAll(`\${${placeholder}}`, value);
  }
  if (/\$\{[A-Za-z]+\}/.test(out))
    throw new InternalError('rollout definition has an unsubstituted placeholder');
  return out;
}
