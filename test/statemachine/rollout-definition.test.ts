/** The Rollout state machine definition: valid ASL once substituted, retries on every Task, stages in order. */
import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import {
  buildRolloutDefinition,
  ROLLOUT_FUNCTIONS,
  rolloutDefinitionString,
  substituteRollout,
} from '../../lambdas/statemachine/rollout-definition.js';

type State = {
  Type: string;
  Resource?: string;
  Retry?: unknown[];
  Catch?: { ErrorEquals: string[] }[];
  MaxConcurrency?: number;
  MaxConcurrencyPath?: string;
  ItemProcessor?: { States: Record<string, State> };
  Parameters?: Record<string, unknown>;
};

/** Every state, Map iterations included, by name. */
function allStates(states: Record<string, State>): [string, State][] {
  return Object.entries(states).flatMap(([n, s]) => [
    [n, s] as [string, State],
    ...(s.ItemProcessor ? allStates(s.ItemProcessor.States) : []),
  ]);
}

describe('rollout state machine definition', () => {
  const arns = Object.fromEntries(
    Object.keys(ROLLOUT_FUNCTIONS).map((k) => [k, `arn:aws:lambda:us-east-1:123456789012:function:${k}`]),
  ) as Parameters<typeof substituteRollout>[1];
  const states = allStates(buildRolloutDefinition().States as Record<string, State>);

  it('is valid ASL once substituted', () => {
    const r = aslValidator(JSON.parse(substituteRollout(rolloutDefinitionString(), arns)));
    expect(r.errorsText('\n')).toBe('');
    expect(r.isValid).toBe(true);
  });

  it('retries transient errors with growing, jittered backoff on every Task', () => {
    const tasks = states.filter(([, s]) => s.Type === 'Task');
    expect(tasks.length).toBeGreaterThanOrEqual(12);
    for (const [name, s] of tasks)
      expect(s.Retry, name).toContainEqual(
        expect.objectContaining({
          ErrorEquals: expect.arrayContaining(['TransientError']),
          BackoffRate: 2,
          JitterStrategy: 'FULL',
        }),
      );
  });

  it('runs stages one at a time and each stage at its own concurrency', () => {
    const byName = new Map(states);
    expect(byName.get('Stages')).toMatchObject({ Type: 'Map', MaxConcurrency: 1 });
    expect(byName.get('Clusters')).toMatchObject({
      Type: 'Map',
      MaxConcurrencyPath: '$.stage.maxConcurrency',
    });
  });

  it('catches a cluster step failure inside its iteration, so one cluster never aborts its siblings', () => {
    const byName = new Map(states);
    for (const name of ['ApplyChange', 'Watch'])
      expect(byName.get(name)?.Catch?.[0]?.ErrorEquals, name).toEqual(['States.ALL']);
  });

  it('waits for approvals with a task token handed to the report function', () => {
    const waits = states.filter(([, s]) => s.Resource === 'arn:aws:states:::lambda:invoke.waitForTaskToken');
    expect(waits.map(([n]) => n).sort()).toEqual(['AwaitApprovalAfter', 'AwaitApprovalBefore']);
    for (const [, s] of waits)
      expect(s.Parameters).toMatchObject({
        FunctionName: `\${${ROLLOUT_FUNCTIONS.rolloutReport}}`,
        Payload: { 'token.$': '$$.Task.Token', event: 'awaitApproval' },
      });
  });

  it('refuses to leave a placeholder unsubstituted', () => {
    const partial = { ...arns } as Record<string, string>;
    delete partial.rolloutWatch;
    expect(() => substituteRollout(rolloutDefinitionString(), partial as typeof arns)).toThrow(
      /rolloutWatch/,
    );
  });
});
