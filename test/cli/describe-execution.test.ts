/**
 * `describe` shows the last execution of a failed or stuck cluster: the reader's pure parts as units,
 * then a real failed execution (CreateCluster answering 5xx until the retries run out) read through
 * the CLI from `cloudorch dev`'s Step Functions endpoint.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecutionDoesNotExist, type HistoryEvent, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionName } from '../../lambdas/handlers/execution-name.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { needsExecution } from '../../local/cli/commands/describe.js';
import { causeText, executionLines, failurePoint } from '../../local/cli/execution-failure.js';
import {
  chooseExecution,
  executionArnOf,
  executionSource,
  namePrefixes,
  readExecution,
} from '../../local/cli/executions.js';
import { type Dev, ROOT, startDev } from './dev-child.js';

const ev = (type: string, extra: Partial<HistoryEvent> = {}): HistoryEvent => ({
  type: type as HistoryEvent['type'],
  id: 0,
  timestamp: new Date(0),
  ...extra,
});
const entered = (name: string) => ev('TaskStateEntered', { stateEnteredEventDetails: { name } });
const lambdaCause = JSON.stringify({
  errorType: 'TransientError',
  errorMessage: JSON.stringify({
    cloudorch: 1,
    kind: 'Transient',
    message: 'EKS CreateCluster: 503',
    remediation: 'x',
  }),
});

describe('describe: where an execution failed', () => {
  // Newest first, as GetExecutionHistory with reverseOrder gives it.
  const caught: HistoryEvent[] = [
    ev('ExecutionFailed', {
      executionFailedEventDetails: { error: 'ReconcileFailed', cause: 'See the cluster status' },
    }),
    ev('FailStateEntered', { stateEnteredEventDetails: { name: 'Failed' } }),
    entered('WriteFailure'),
    entered('ClassifyError'),
    ev('TaskStateExited'),
    ev('LambdaFunctionFailed', {
      lambdaFunctionFailedEventDetails: { error: 'TransientError', cause: lambdaCause },
    }),
    ev('LambdaFunctionStarted'),
    ev('LambdaFunctionScheduled'),
    entered('ApplyStep'),
  ];

  it('a caught failure is told by the step that threw, not by the Fail state at the end', () => {
    expect(failurePoint(caught)).toEqual({
      state: 'ApplyStep',
      event: 'LambdaFunctionFailed',
      error: 'TransientError',
      cause: lambdaCause,
    });
  });

  it('without a step failure (a Fail state on its own), the execution failure and the state before it', () => {
    expect(failurePoint(caught.slice(0, 2))).toEqual({
      state: 'Failed',
      event: 'ExecutionFailed',
      error: 'ReconcileFailed',
      cause: 'See the cluster status',
    });
    expect(failurePoint([ev('ExecutionSucceeded'), entered('Done')])).toBeUndefined();
  });

  it("reads the message inside Lambda's cause and CloudOrch's envelope; other causes stay as they are", () => {
    expect(causeText(lambdaCause)).toBe('EKS CreateCluster: 503');
    expect(causeText('plain words')).toBe('plain words');
    expect(causeText(JSON.stringify({ errorType: 'Error', errorMessage: 'boom' }))).toBe('boom');
  });

  it('names the execution, its times, the failed state and error', () => {
    const lines = executionLines({
      arn: 'arn:aws:states:us-east-1:1:execution:Reconcile:n',
      via: 'history',
      name: 'n',
      status: 'FAILED',
      startDate: new Date(0),
      stopDate: new Date(1000),
      error: 'ReconcileFailed',
      cause: 'See the cluster status',
      failure: failurePoint(caught) ?? { event: '?' },
    });
    expect(lines).toEqual([
      "  n (the record's history)",
      '  arn arn:aws:states:us-east-1:1:execution:Reconcile:n',
      '  status FAILED (started 1970-01-01T00:00:00.000Z, stopped 1970-01-01T00:00:01.000Z)',
      '  error ReconcileFailed: See the cluster status',
      '  failed in ApplyStep: LambdaFunctionFailed TransientError: EKS CreateCluster: 503',
    ]);
  });
});

describe('describe: the execution reader is wired like the target', () => {
  it('takes the region and state machine however the stack was chosen (environment, named target), not only flags', async () => {
    const machine = 'arn:aws:states:eu-west-1:123456789012:stateMachine:cloudorch-reconcile';
    const src = executionSource({ wiring: { env: { AWS_REGION: 'eu-west-1' } }, stateMachineArn: machine });
    try {
      expect('client' in src && (await src.client.config.region())).toBe('eu-west-1');
      expect('client' in src && src.stateMachineArn).toBe(machine);
    } finally {
      if ('client' in src) src.close();
    }
  });
});

describe('describe: which execution', () => {
  const machine = 'arn:aws:states:us-east-1:111111111111:stateMachine:Reconcile';
  const base = { id: 'team/a', createdAt: '2026-01-01T00:00:00.000Z', generation: 3 };
  const rec = (extra: Partial<ClusterRecord>) => ({ ...base, ...extra }) as ClusterRecord;
  const fake = (send: (cmd: { input: unknown }) => Promise<unknown>) => ({
    client: { send } as unknown as SFNClient,
    stateMachineArn: machine,
    close: () => {},
  });

  it('an execution name becomes its ARN under the state machine', () => {
    expect(executionArnOf(machine, 'x-1')).toBe(
      'arn:aws:states:us-east-1:111111111111:execution:Reconcile:x-1',
    );
  });

  it('every trigger names executions with one of the record prefixes', () => {
    const prefixes = namePrefixes(base.id, base.createdAt);
    const names = [
      executionName(base.id, 7, 'change', undefined, base.createdAt),
      executionName(base.id, 7, 'sweep', '123', base.createdAt),
      executionName(base.id, 7, 'manual', '1700000000000'),
    ];
    for (const n of names)
      expect(
        prefixes.some((p) => n.startsWith(p)),
        n,
      ).toBe(true);
    expect(prefixes.some((p) => executionName('team/b', 7, 'manual', '1').startsWith(p))).toBe(false);
  });

  it('the lease holder first, then the newest execution the history names, then one listed by name', async () => {
    const none = fake(async () => ({ executions: [] }));
    const lease = { owner: 'o', expiresAt: 0, executionArn: 'arn:lease' };
    const history = [
      { at: 't', kind: 'status', generation: 3, summary: 's', executionId: 'old' },
      { at: 't', kind: 'status', generation: 3, summary: 's', executionId: 'new' },
    ] as const;
    expect(await chooseExecution(none, rec({ lease, history }))).toEqual({ arn: 'arn:lease', via: 'lease' });
    expect(await chooseExecution(none, rec({ history }))).toEqual({
      arn: executionArnOf(machine, 'new'),
      via: 'history',
    });
    const mine = executionName(base.id, 3, 'change', undefined, base.createdAt);
    const listing = fake(async () => ({
      executions: [
        { name: executionName('team/b', 3, 'change'), executionArn: 'arn:other' },
        { name: mine, executionArn: 'arn:mine' },
      ],
    }));
    expect(await chooseExecution(listing, rec({}))).toEqual({ arn: 'arn:mine', via: 'list' });
    // Repeated runs fold into one entry: the newest of them is the last execution.
    const folded = [{ ...history[1], count: 3, lastAt: 't3', lastExecutionId: 'newest' }];
    expect(await chooseExecution(none, rec({ history: folded }))).toEqual({
      arn: executionArnOf(machine, 'newest'),
      via: 'history',
    });
    expect(await chooseExecution(none, rec({}))).toEqual({
      why: 'no execution of this record is listed by the state machine',
    });
  });

  it('without the state machine, says what it needs instead of guessing', async () => {
    const src = { ...fake(async () => ({})), stateMachineArn: undefined };
    const { stateMachineArn: _, ...noMachine } = src;
    const history = [{ at: 't', kind: 'status', generation: 3, summary: 's', executionId: 'n1' }] as const;
    expect(await chooseExecution(noMachine, rec({ history }))).toEqual({
      why: "the record's history names execution n1; its ARN needs the state machine (--state-machine-arn)",
    });
  });

  it('an execution that cannot be read is said so, with the reason', async () => {
    const missing = fake(async () => {
      throw new ExecutionDoesNotExist({ message: 'Execution Does Not Exist: arn:x', $metadata: {} });
    });
    const r = await readExecution(missing.client, 'arn:x', 'history');
    expect(executionLines(r).at(-1)).toBe(
      '  history cannot be read: DescribeExecution failed (ExecutionDoesNotExist: Execution Does Not Exist: arn:x)',
    );
  });

  it('is shown for a failed or stuck cluster only', () => {
    const now = new Date('2026-01-01T01:00:00.000Z');
    const cond = (status: string) =>
      ({ status: { conditions: [{ type: 'Ready', status }] } }) as unknown as Partial<ClusterRecord>;
    expect(needsExecution(rec(cond('True')), now)).toBe(false);
    expect(needsExecution(rec(cond('False')), now)).toBe(true);
    expect(
      needsExecution(rec({ ...cond('True'), lease: { owner: 'o', expiresAt: now.getTime() - 1 } }), now),
    ).toBe(true);
    const failedLast = [
      { at: 't', kind: 'error', generation: 3, summary: 'Failed: x', executionId: 'e' },
    ] as const;
    expect(needsExecution(rec({ ...cond('True'), history: failedLast }), now)).toBe(true);
  });
});

let dev: Dev;
const cloudorch = (args: string[]) => dev.cloudorch(args);

describe('cloudorch describe of a cluster whose execution failed', () => {
  beforeAll(async () => {
    dev = await startDev();
  }, 130_000);

  afterAll(async () => {
    await dev?.stop();
  });

  it('shows the failed execution: its name, status, times, the state that failed and the error', async () => {
    // Every CreateCluster answers 5xx: ApplyStep's retries run out, WriteFailure writes the status and
    // the execution ends FAILED (the sweep then backs off for minutes, so it stays the last one).
    expect((await cloudorch(['sim', 'faults', '--op', 'CreateCluster', '--errors', '1'])).code).toBe(0);
    const manifest = join(dev.dir, 'failing.yaml');
    writeFileSync(
      manifest,
      readFileSync(join(ROOT, 'examples/dev-small.yaml'), 'utf8').replace('name: dev-small', 'name: failing'),
    );
    const applied = await cloudorch(['apply', '-f', manifest]);
    expect(applied.code, applied.stderr).toBe(0);
    let out = '';
    for (let i = 0; i < 300 && !/status FAILED/.test(out); i++) {
      await new Promise((r) => setTimeout(r, 200));
      out = (await cloudorch(['describe', 'team-payments/failing'])).stdout;
    }
    expect(out, dev.log()).toMatch(/Ready\s+False\s+TransientError/);
    const section = out.slice(out.indexOf('Last execution:'), out.indexOf('Observed:'));
    expect(section).toMatch(/^Last execution:\n {2}team-payments_failing-\S+ \(the record's history\)\n/);
    expect(section).toMatch(/ {2}arn arn:aws:states:[^:]+:\d+:execution:\S+\n/);
    expect(section).toMatch(/ {2}status FAILED \(started \S+Z, stopped \S+Z\)\n/);
    expect(section).toMatch(/ {2}error ReconcileFailed: See the cluster status/);
    expect(section).toMatch(/ {2}failed in ApplyStep: LambdaFunctionFailed TransientError: \S/);
  }, 120_000);
});
