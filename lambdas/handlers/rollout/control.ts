/**
 * What a person (the CLI) or the bridge does to a rollout, in one place: start it (an execution of the
 * Rollout machine for its generation), approve the stage that waits (the task token on the record
 * resumes the execution), resume a halted one, abort one. Each refuses, naming why, when the rollout
 * is not in a state where the action means anything.
 */
import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  SendTaskSuccessCommand,
  type SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { domainError } from '../../core/errors.js';
import { aborted } from '../../core/rollout/transitions.js';
import type { RolloutRecord, RolloutStore } from '../../store/rollouts.js';

export class RolloutActionError extends domainError(
  'RolloutActionError',
  'Permanent',
  '`cloudorch rollout describe NAME` shows what the rollout is doing.',
) {}

export interface RolloutControl {
  readonly rollouts: RolloutStore;
  readonly sfn: SFNClient;
  readonly stateMachineArn: string;
  readonly now: () => Date;
  /** A manual reconcile of one cluster (what `cloudorch reconcile` does): resume retries failed ones. */
  readonly reconcile: (clusterId: string) => Promise<void>;
}

async function read(c: RolloutControl, id: string): Promise<RolloutRecord> {
  const r = await c.rollouts.get(id);
  if (!r) throw new RolloutActionError(`rollout ${id} does not exist`);
  return r;
}

async function running(c: RolloutControl, r: RolloutRecord): Promise<boolean> {
  if (!r.executionArn) return false;
  try {
    const d = await c.sfn.send(new DescribeExecutionCommand({ executionArn: r.executionArn }));
    return d.status === 'RUNNING';
  } catch (err) {
    if (err instanceof ExecutionDoesNotExist) return false;
    throw err;
  }
}

/** Execution names are unique per machine: one per generation and attempt makes a start idempotent. */
function executionName(r: RolloutRecord): string {
  return `${r.id.replace('/', '-')}-g${r.generation}-a${r.attempt + 1}`.slice(0, 80);
}

/**
 * Starts an execution for the rollout's generation, unless one already runs for it: once the Plan
 * step has counted an attempt the next name differs, so the running execution is what makes a
 * second start (a repeated apply, a restarted bridge) a no-op.
 */
export async function startRollout(
  c: RolloutControl,
  id: string,
): Promise<{ executionArn: string; started: boolean }> {
  const r = await read(c, id);
  if (r.executionArn && r.status?.generation === r.generation && (await running(c, r)))
    return { executionArn: r.executionArn, started: false };
  const out = await c.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: c.stateMachineArn,
      name: executionName(r),
      input: JSON.stringify({ id }),
    }),
  );
  return { executionArn: out.executionArn ?? '', started: true };
}

/** Hands the waiting stage's token back; `stage`, when given, must be the stage that waits. */
export async function approveRollout(c: RolloutControl, id: string, stage?: string): Promise<string> {
  const r = await read(c, id);
  const a = r.approval;
  if (!a)
    throw new RolloutActionError(
      `rollout ${id} is not waiting for an approval (${r.status?.phase ?? 'not started'})`,
    );
  if (stage !== undefined && stage !== a.stage)
    throw new RolloutActionError(
      `rollout ${id} waits for approval ${a.when} stage ${a.stage}, not stage ${stage}`,
    );
  const output = JSON.stringify({ approvedAt: c.now().toISOString(), stage: a.stage, when: a.when });
  await c.sfn.send(new SendTaskSuccessCommand({ taskToken: a.token, output }));
  return `approved ${a.when} stage ${a.stage}`;
}

/**
 * Starts the next attempt of a halted rollout. Its failed clusters get a manual reconcile first: a
 * failed EKS update is held back until one (the fault is presumed cleared), and the new attempt
 * watches them again.
 */
export async function resumeRollout(
  c: RolloutControl,
  id: string,
): Promise<{ executionArn: string; started: boolean }> {
  const r = await read(c, id);
  const phase = r.status?.phase;
  if (phase === 'Completed' || phase === 'Aborted')
    throw new RolloutActionError(`rollout ${id} is ${phase}: apply a changed rollout to roll again`);
  // A rollout that says it runs resumes only when its execution is gone (a local control plane
  // killed mid-run): otherwise two executions would drive one rollout.
  if (phase !== 'Halted' && (await running(c, r)))
    throw new RolloutActionError(`rollout ${id} is ${phase ?? 'starting'} and its execution still runs`);
  for (const s of r.status?.stages ?? [])
    for (const cl of s.clusters) if (cl.state === 'failed') await c.reconcile(cl.id);
  return startRollout(c, id);
}

/**
 * Stops the execution and marks the rollout Aborted. Clusters stay where they are: a change already
 * written stays written (a Kubernetes version cannot go back), and the status says which got it.
 */
export async function abortRollout(c: RolloutControl, id: string): Promise<RolloutRecord> {
  const r = await read(c, id);
  if (r.status?.phase === 'Completed' || r.status?.phase === 'Aborted')
    throw new RolloutActionError(`rollout ${id} is already ${r.status.phase}`);
  const now = c.now();
  const done = await c.rollouts.update(
    id,
    (x) => ({
      abortRequestedAt: now.toISOString(),
      clear: ['approval'],
      ...(x.status ? { status: aborted(x.status, now) } : {}),
    }),
    now,
  );
  if (r.executionArn)
    await c.sfn
      .send(
        new StopExecutionCommand({
          executionArn: r.executionArn,
          error: 'RolloutAborted',
          cause: 'Aborted by `cloudorch rollout abort`; clusters stay where they are.',
        }),
      )
      .catch((err: unknown) => {
        // An execution that already ended has nothing to stop.
        if (!(err instanceof ExecutionDoesNotExist)) throw err;
      });
  await c.rollouts.unlock(id, done.status?.stages.flatMap((s) => s.clusters.map((x) => x.id)) ?? []);
  return done;
}
