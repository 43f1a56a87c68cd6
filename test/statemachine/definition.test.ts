/** The state machine definition: valid ASL once substituted, retries and catches on every Task. */
import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import {
  buildDefinition,
  DEFAULT_DEFINITION_OPTIONS,
  definitionString,
  STEP_FUNCTIONS,
  substitute,
} from '../../lambdas/statemachine/definition.js';

describe('state machine definition', () => {
  const arns = Object.fromEntries(
    Object.keys(STEP_FUNCTIONS).map((k) => [k, `arn:aws:lambda:us-east-1:123456789012:function:${k}`]),
  ) as Parameters<typeof substitute>[1];

  it('is valid ASL once substituted', () => {
    const r = aslValidator(JSON.parse(substitute(definitionString(), arns)));
    expect(r.errorsText('\n')).toBe('');
    expect(r.isValid).toBe(true);
  });

  it('retries transient errors with backoff, a cap and full jitter, and catches everything on every Task', () => {
    const states = Object.entries(
      buildDefinition().States as Record<string, { Type: string; Retry?: unknown[]; Catch?: unknown[] }>,
    );
    const tasks = states.filter(([, s]) => s.Type === 'Task');
    expect(tasks.length).toBeGreaterThanOrEqual(8);
    for (const [name, s] of tasks) {
      expect(s.Retry, name).toContainEqual(
        expect.objectContaining({
          ErrorEquals: expect.arrayContaining(['TransientError']),
          BackoffRate: 2,
          MaxDelaySeconds: 60,
          JitterStrategy: 'FULL',
        }),
      );
      expect(s.Catch, name).toContainEqual(expect.objectContaining({ ErrorEquals: ['States.ALL'] }));
    }
  });

  it('refuses to leave a placeholder unsubstituted', () => {
    const partial = { ...arns } as Record<string, string>;
    delete partial.observe;
    expect(() => substitute(definitionString(), partial as typeof arns)).toThrow(
      /no function ARN for step observe/,
    );
  });

  describe('the wait for approval', () => {
    const WRITE_STATUS = `\${${STEP_FUNCTIONS.writeStatus}}`;
    type State = Record<string, unknown> & {
      Next?: string;
      Catch?: { ErrorEquals: string[]; Next: string }[];
    };
    const states = (opts = DEFAULT_DEFINITION_OPTIONS) =>
      buildDefinition(opts).States as Record<string, State>;

    it('an `approval` outcome (allowed by the policies) goes to AwaitApproval; only `allow` applies', () => {
      const choices = states()['PolicyAllowsApply']?.['Choices'] as { And: unknown[]; Next: string }[];
      expect(choices.map((c) => c.Next)).toEqual(['ApplyStep', 'AwaitApproval']);
      expect(choices[1]?.And).toEqual([
        { Variable: '$.policy.allow', BooleanEquals: true },
        { Variable: '$.policy.outcome', StringEquals: 'approval' },
      ]);
      expect(states()['PolicyAllowsApply']?.['Default']).toBe('WriteStatus');
    });

    it('AwaitApproval is a callback Task of the writeStatus function, passing its token and timeout', () => {
      const wait = states({ ...DEFAULT_DEFINITION_OPTIONS, approvalTimeoutSeconds: 3600 })['AwaitApproval'];
      expect(wait).toMatchObject({
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
        TimeoutSeconds: 3600,
        ResultPath: '$.approvalGrant',
        Next: 'RecordApproval',
        Parameters: {
          FunctionName: WRITE_STATUS,
          Payload: {
            'id.$': '$.id',
            'owner.$': '$.owner',
            approvalWait: { 'token.$': '$$.Task.Token', timeoutSeconds: 3600 },
          },
        },
      });
      // The default waits a day.
      expect(states()['AwaitApproval']?.['TimeoutSeconds']).toBe(86_400);
    });

    it('approve loops to a fresh look; deny, timeout and cancel end in EndApproval, then the newer-generation check', () => {
      const s = states();
      expect(s['AwaitApproval']?.Catch?.[0]).toEqual({
        ErrorEquals: ['ApprovalDenied', 'States.Timeout', 'ApprovalCancelled'],
        ResultPath: '$.approvalError',
        Next: 'EndApproval',
      });
      expect(s['AwaitApproval']?.Catch?.at(-1)).toMatchObject({
        ErrorEquals: ['States.ALL'],
        Next: 'ClassifyError',
      });
      expect(s['RecordApproval']).toMatchObject({
        Resource: WRITE_STATUS,
        Next: 'NextLoop',
        Parameters: { 'approvalGranted.$': '$.approvalGrant' },
      });
      expect(s['EndApproval']).toMatchObject({
        Resource: WRITE_STATUS,
        Next: 'NewerGeneration',
        Parameters: { 'approvalEnd.$': '$.approvalError' },
      });
    });

    it.each([0, -1, 1.5, 7 * 86_400 + 1])('refuses approvalTimeoutSeconds %s, naming the option', (t) => {
      expect(() => buildDefinition({ ...DEFAULT_DEFINITION_OPTIONS, approvalTimeoutSeconds: t })).toThrow(
        /approvalTimeoutSeconds must be an integer from 1 to 604800/,
      );
    });
  });
});
