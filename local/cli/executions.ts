/**
 * The CLI's reader of Reconcile executions, for `describe`: which execution to show for a record, and
 * what Step Functions says of it (DescribeExecution, GetExecutionHistory newest first). Its client
 * takes the SDK options the target's own Step Functions client takes (compose's `sdkOptions` over the
 * target's wiring): dev's endpoint and local credentials, or the stack's region however the target
 * was chosen (flags, environment, named target), with its state machine when it names one.
 */
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  ListExecutionsCommand,
  SFNClient,
} from '@aws-sdk/client-sfn';
import { sdkOptions } from '../../lambdas/handlers/compose.js';
import { executionName } from '../../lambdas/handlers/execution-name.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { type ExecutionReport, failurePoint } from './execution-failure.js';
import type { Target } from './target.js';

export interface ExecutionSource {
  readonly client: SFNClient;
  /** Needed to turn an execution name into its ARN, and to list executions. */
  readonly stateMachineArn?: string;
  close(): void;
}

/** A source, or why there is none. */
export type SourceOrWhy = ExecutionSource | { readonly unavailable: string };

/** A Step Functions client wired as the target's own clients are (its endpoint, region, credentials). */
export function executionSource(t: Pick<Target, 'wiring' | 'stateMachineArn'>): SourceOrWhy {
  const client = new SFNClient(sdkOptions(t.wiring, 'sfn'));
  return {
    client,
    ...(t.stateMachineArn ? { stateMachineArn: t.stateMachineArn } : {}),
    close: () => client.destroy(),
  };
}

/** A standard workflow's execution ARN: the machine's ARN with `execution` and the name. */
export function executionArnOf(stateMachineArn: string, name: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
}

/**
 * What every execution name of this record starts with (execution-name.ts): the triggers that pass
 * the record's `createdAt` and `reconcile`, which does not, hash differently.
 */
export function namePrefixes(id: string, createdAt: string): string[] {
  return [executionName(id, 1, 'sweep', undefined, createdAt), executionName(id, 1, 'manual')].map((n) =>
    n.slice(0, n.lastIndexOf('-g1-') + 1),
  );
}

type Choice = { readonly arn: string; readonly via: ExecutionReport['via'] } | { readonly why: string };

const LIST_PAGES = 10;

async function listed(src: ExecutionSource, machine: string, r: ClusterRecord): Promise<Choice> {
  const prefixes = namePrefixes(r.id, r.createdAt);
  let nextToken: string | undefined;
  for (let page = 0; page < LIST_PAGES; page++) {
    const res = await src.client.send(
      new ListExecutionsCommand({ stateMachineArn: machine, maxResults: 100, nextToken }),
    );
    const hit = res.executions?.find((e) => prefixes.some((p) => e.name?.startsWith(p)));
    if (hit?.executionArn) return { arn: hit.executionArn, via: 'list' };
    nextToken = res.nextToken;
    if (!nextToken) return { why: 'no execution of this record is listed by the state machine' };
  }
  return { why: `no execution of this record among the newest ${LIST_PAGES * 100} of the state machine` };
}

/** The lease holder's execution, else the newest the record's history names, else one listed by name. */
export async function chooseExecution(src: ExecutionSource, r: ClusterRecord): Promise<Choice> {
  if (r.lease?.executionArn) return { arn: r.lease.executionArn, via: 'lease' };
  // A folded entry stands for several runs: its newest is the last one.
  const newest = [...(r.history ?? [])].reverse().find((h) => h.lastExecutionId ?? h.executionId);
  const named = newest?.lastExecutionId ?? newest?.executionId;
  const machine = src.stateMachineArn;
  if (!machine)
    return {
      why: named
        ? `the record's history names execution ${named}; its ARN needs the state machine (--state-machine-arn)`
        : 'finding the execution needs the state machine (--state-machine-arn)',
    };
  if (named) return { arn: executionArnOf(machine, named), via: 'history' };
  return listed(src, machine, r);
}

const ENDED_BADLY = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);
const HISTORY_PAGES = 10;

/** Newest first, page by page, until a failure with its state is found (or the pages run out). */
async function historyFailure(client: SFNClient, executionArn: string) {
  const events: HistoryEvent[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < HISTORY_PAGES; page++) {
    const res = await client.send(
      new GetExecutionHistoryCommand({
        executionArn,
        reverseOrder: true,
        includeExecutionData: false,
        maxResults: 100,
        nextToken,
      }),
    );
    events.push(...(res.events ?? []));
    const found = failurePoint(events);
    nextToken = res.nextToken;
    if ((found?.state && !found.event.startsWith('Execution')) || !nextToken) return found;
  }
  return failurePoint(events);
}

const why = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/** What Step Functions says of the chosen execution; what could not be read is said, never skipped. */
export async function readExecution(
  client: SFNClient,
  arn: string,
  via: ExecutionReport['via'],
): Promise<ExecutionReport> {
  let d: Awaited<ReturnType<typeof describe>>;
  try {
    d = await describe(client, arn);
  } catch (err) {
    return { arn, via, historyUnreadable: `DescribeExecution failed (${why(err)})` };
  }
  const report: ExecutionReport = {
    arn,
    via,
    ...(d.name ? { name: d.name } : {}),
    ...(d.status ? { status: d.status } : {}),
    ...(d.startDate ? { startDate: d.startDate } : {}),
    ...(d.stopDate ? { stopDate: d.stopDate } : {}),
    ...(d.error ? { error: d.error } : {}),
    ...(d.cause ? { cause: d.cause } : {}),
  };
  if (!d.status || !ENDED_BADLY.has(d.status)) return report;
  try {
    const failure = await historyFailure(client, arn);
    return failure ? { ...report, failure } : { ...report, historyUnreadable: 'no failure event in it' };
  } catch (err) {
    return { ...report, historyUnreadable: `GetExecutionHistory failed (${why(err)})` };
  }
}

const describe = (client: SFNClient, executionArn: string) =>
  client.send(new DescribeExecutionCommand({ executionArn }));
