/**
 * CloudRollouts through the bridge, against the real API server with its admission plugins calling
 * the webhook (as cluster.test.ts does), dynalite for both tables, and the local Step Functions
 * endpoint serving the Rollout machine's ARN. That machine is one Task standing in for the Plan step:
 * it writes the frozen stages, the attempt and its execution ARN to the record as the real step does.
 * The later steps' status writes are made with the store, as those steps make them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../bridge/app.js';
import { ROLLOUT_PRINTER_COLUMNS } from '../../bridge/rollout-crd.js';
import { type RolloutCrStatus, rolloutCrStatus, syncedCondition } from '../../bridge/rollout-status.js';
import type { PlannedStage } from '../../lambdas/core/rollout/stages.js';
import {
  aborted,
  approvalRequested,
  haltFor,
  initialStatus,
  startStage,
  withCluster,
} from '../../lambdas/core/rollout/transitions.js';
import type { RolloutRecord } from '../../lambdas/store/rollouts.js';
import { LOCAL_CREDENTIALS } from '../../local/runtime/credentials.js';
import { type LocalSfnEndpoint, startLocalSfnEndpoint } from '../../local/sfn/endpoint.js';
import { freePort } from '../support/free-port.js';
import { type CoreStub, startCoreStub } from './core-stub.js';
import {
  cloudRollout,
  type Dynamo,
  installBuiltinStandIn,
  installCrd,
  ROLLOUT_MACHINE_ARN,
  rolloutPath,
  startDynamo,
  startTestBridge,
  validRolloutSpec,
  waitFor,
  webhookConfiguration,
} from './support.js';
import { makePki, startTestEnv, type TestEnv } from './testenv.js';

/** Watched by the bridge. */
const NS = 'team-a';
/** Not watched: the pruning check writes a status there itself, with no bridge to overwrite it. */
const UNWATCHED = 'team-b';
const PLAN_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:test-rollout-plan';
const STAGES: PlannedStage[] = [
  { name: 'canary', clusters: ['team-a/alpha'], maxConcurrency: 1, soakSeconds: 0, approval: 'after' },
  {
    name: 'rest',
    clusters: ['team-a/beta', 'team-b/gamma'],
    maxConcurrency: 2,
    soakSeconds: 0,
    approval: 'none',
  },
];

let env: TestEnv;
let core: CoreStub;
let dynamo: Dynamo;
let sfnLocal: LocalSfnEndpoint;
let sfn: SFNClient;
let bridge: RunningBridge;
/** The webhook port the API server calls: a restarted bridge binds it again. */
let restartPort: number;

/** What the Plan step leaves on the record: the planned stages, the attempt, its execution. */
async function planStep(input: unknown): Promise<unknown> {
  const { id, executionArn } = input as { id: string; executionArn: string };
  // An execution that ends without planning (as when even the failure report fails).
  if (id.endsWith('/unplannable')) throw new Error('plan failed and nothing was reported');
  const now = new Date();
  await dynamo.rollouts.update(
    id,
    (r) => ({ status: initialStatus(r.generation, STAGES, now), attempt: r.attempt + 1, executionArn }),
    now,
  );
  return { id };
}

const definition = {
  StartAt: 'Plan',
  States: {
    Plan: {
      Type: 'Task',
      Resource: PLAN_ARN,
      Parameters: { 'id.$': '$.id', 'executionArn.$': '$$.Execution.Id' },
      End: true,
    },
  },
};

interface RolloutCr {
  metadata: { generation: number; name: string };
  spec: Record<string, unknown>;
  status?: RolloutCrStatus & {
    conditions?: { type: string; status: string; reason: string; message: string }[];
    approval?: { command: string; stage: string };
    counts?: Record<string, number>;
    stages?: { name: string; state: string; counts: Record<string, number> }[];
    halt?: { cluster?: string; reason: string };
  };
}

async function getCr(name: string, ns = NS): Promise<RolloutCr | undefined> {
  const r = await env.request('GET', rolloutPath(ns, name));
  return r.status === 200 ? (JSON.parse(r.body) as RolloutCr) : undefined;
}

/** Events about one CloudRollout (events.k8s.io, served by a stand-in CRD): `reason: note`. */
async function eventsFor(name: string): Promise<string[]> {
  const r = await env.request('GET', `/apis/events.k8s.io/v1/namespaces/${NS}/events`);
  const items = (
    JSON.parse(r.body) as {
      items: { reason: string; note: string; regarding: { kind: string; name: string } }[];
    }
  ).items;
  return items
    .filter((e) => e.regarding.kind === 'CloudRollout' && e.regarding.name === name)
    .map((e) => `${e.reason}: ${e.note}`);
}

const executions = () => sfnLocal.executions({ stateMachineArn: ROLLOUT_MACHINE_ARN });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  const webhookPort = await freePort();
  const pki = makePki(mkdtempSync(join(tmpdir(), 'cloudorch-rollout-')));
  core = await startCoreStub({
    namespaces: ['default', 'cloudorch-system', NS, UNWATCHED],
    validatingWebhookConfigurations: [webhookConfiguration(pki.caCert, webhookPort)],
  });
  env = await startTestEnv({ core, pki });
  dynamo = await startDynamo();
  await installCrd(env);
  await installBuiltinStandIn(env, { group: 'events.k8s.io', kind: 'Event', plural: 'events' });
  sfnLocal = await startLocalSfnEndpoint({
    stateMachines: [{ arn: ROLLOUT_MACHINE_ARN, definition, handlers: new Map([[PLAN_ARN, planStep]]) }],
  });
  sfn = new SFNClient({ endpoint: sfnLocal.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  restartPort = webhookPort;
  bridge = await startTestBridge(env, dynamo, { sfn, flags: { webhookPort, watchNamespace: NS } });
}, 600_000);

afterAll(async () => {
  await bridge?.stop();
  await sfnLocal?.close();
  sfn?.destroy();
  await env?.stop();
  await core?.stop();
  await dynamo?.stop();
});

/** A rollout status with every optional member set, so pruning any of them would show. */
function fullStatus(): RolloutCrStatus {
  const at = new Date('2026-11-30T10:00:00.000Z');
  let s = startStage(initialStatus(2, STAGES, at), 'canary', at);
  s = withCluster(s, 'canary', 'team-a/alpha', {
    state: 'failed',
    generation: 7,
    reason: 'Ready False at generation 7 (PermanentError)',
    startedAt: at.toISOString(),
    readyAt: at.toISOString(),
    finishedAt: at.toISOString(),
  });
  s = haltFor(s, 'more failures than maxFailures 0', 'team-a/alpha', at);
  s = {
    ...s,
    stages: s.stages.map((x, i) =>
      i === 0
        ? {
            ...x,
            awaiting: 'after' as const,
            approvedBeforeAt: at.toISOString(),
            approvedAfterAt: at.toISOString(),
            soakUntil: at.toISOString(),
            finishedAt: at.toISOString(),
          }
        : x,
    ),
  };
  const record: RolloutRecord = {
    id: `${UNWATCHED}/pruning`,
    spec: {},
    generation: 2,
    version: 5,
    attempt: 1,
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    status: s,
    approval: { stage: 'canary', when: 'after', token: 'token', requestedAt: at.toISOString() },
    executionArn: `${ROLLOUT_MACHINE_ARN.replace(':stateMachine:', ':execution:')}:team-b-pruning-g2-a1`,
  };
  const condition = syncedCondition(
    undefined,
    { status: 'True', reason: 'Mirrored', message: 'mirrored', observedGeneration: 1 },
    at,
  );
  return rolloutCrStatus(record, condition, 1);
}

describe('the CloudRollout CRD', () => {
  it('keeps every status field the bridge writes and shows PHASE and STAGE', async () => {
    const created = await env.request('POST', rolloutPath(UNWATCHED), {
      body: cloudRollout(UNWATCHED, 'pruning'),
    });
    expect(created.status, created.body).toBe(201);
    const status = fullStatus();
    const patched = await env.request('PATCH', `${rolloutPath(UNWATCHED, 'pruning')}/status`, {
      body: { status },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status, patched.body).toBe(200);
    expect((await getCr('pruning', UNWATCHED))?.status).toEqual(status);

    const r = await env.request('GET', rolloutPath(UNWATCHED, 'pruning'), {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    const table = JSON.parse(r.body) as {
      columnDefinitions: { name: string }[];
      rows: { cells: unknown[] }[];
    };
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      ...ROLLOUT_PRINTER_COLUMNS.map((c) => c.name),
    ]);
    expect(table.rows[0]?.cells.slice(0, 3)).toEqual(['pruning', 'Halted', '1/2 canary']);
  });
});

describe('admission through the API server', () => {
  it('refuses a malformed CloudRollout, naming the field', async () => {
    const bad = validRolloutSpec({
      stages: [{ name: 'Canary', clusters: ['team-a/alpha'] }, { name: 'rest' }],
    });
    const r = await env.request('POST', rolloutPath(NS), { body: cloudRollout(NS, 'malformed', bad) });
    expect(r.status).toBe(403);
    expect(r.body).toContain('admission webhook \\"validate.cloudrollouts.compute.cloudorch.io\\" denied');
    expect(r.body).toContain('spec.stages[0].name');
    const twice = validRolloutSpec({ clusters: ['team-a/alpha', 'team-a/alpha'] });
    const r2 = await env.request('POST', rolloutPath(NS), { body: cloudRollout(NS, 'malformed', twice) });
    expect(r2.status).toBe(403);
    expect(r2.body).toContain('spec.clusters[1]: team-a/alpha is listed twice');
    // A name Kubernetes accepts but a rollout record id cannot hold.
    const r3 = await env.request('POST', rolloutPath(NS), { body: cloudRollout(NS, 'wave.v2') });
    expect(r3.status).toBe(403);
    expect(r3.body).toContain('metadata.name: must be a DNS label');
  });
});

describe('mirroring a CloudRollout', () => {
  const id = `${NS}/wave`;

  it('writes the spec to the rollout table and starts one execution for its generation', async () => {
    const created = await env.request('POST', rolloutPath(NS), { body: cloudRollout(NS, 'wave') });
    expect(created.status, created.body).toBe(201);
    const record = await waitFor('the Plan step ran', async () => {
      const r = await dynamo.rollouts.get(id);
      return r?.status ? r : undefined;
    });
    const cr = await getCr('wave');
    // The spec as the API server stored it (its defaults applied), as the generation-1 rollout.
    expect(record.spec).toEqual(cr?.spec);
    expect(record.generation).toBe(1);
    expect(executions().map((e) => [e.name, e.input])).toEqual([
      ['team-a-wave-g1-a1', '{"id":"team-a/wave"}'],
    ]);

    const status = await waitFor('status written back', async () => {
      const s = (await getCr('wave'))?.status;
      return s?.phase === 'Pending' && s.executionArn ? s : undefined;
    });
    expect(status).toMatchObject({
      phase: 'Pending',
      generation: 1,
      observedGeneration: cr?.metadata.generation,
      stage: '1/2 canary',
      executionArn: executions()[0]?.executionArn,
      counts: { total: 3, pending: 3, inProgress: 0, succeeded: 0, failed: 0, skipped: 0 },
    });
    expect(status.conditions?.[0]).toMatchObject({ type: 'Synced', status: 'True', reason: 'Mirrored' });
    // Resyncs (every 0.2 s here) find the generation planned: no second execution.
    await sleep(1_000);
    expect(executions()).toHaveLength(1);
  });

  it('writes the progress back: stage states, counts, the approval with its command, then the halt', async () => {
    const now = new Date();
    await dynamo.rollouts.update(
      id,
      (r) => {
        const s = r.status ?? initialStatus(r.generation, STAGES, now);
        const done = withCluster(startStage(s, 'canary', now), 'canary', 'team-a/alpha', {
          state: 'succeeded',
        });
        return {
          status: approvalRequested(done, 'canary', 'after', now),
          approval: { stage: 'canary', when: 'after', token: 'tok', requestedAt: now.toISOString() },
        };
      },
      now,
    );
    const waiting = await waitFor('AwaitingApproval on the CR', async () => {
      const s = (await getCr('wave'))?.status;
      return s?.phase === 'AwaitingApproval' ? s : undefined;
    });
    expect(waiting.approval).toMatchObject({
      stage: 'canary',
      when: 'after',
      command: 'cloudorch rollout approve team-a/wave --stage canary',
    });
    expect(waiting.counts).toMatchObject({ total: 3, succeeded: 1, pending: 2 });
    expect(waiting.stages?.map((s) => [s.name, s.state, s.counts.succeeded])).toEqual([
      ['canary', 'awaitingApproval', 1],
      ['rest', 'pending', 0],
    ]);

    await dynamo.rollouts.update(
      id,
      (r) => ({
        ...(r.status ? { status: haltFor(r.status, 'alarm api-5xx is in ALARM', undefined, now) } : {}),
        clear: ['approval'],
      }),
      now,
    );
    const halted = await waitFor('Halted on the CR', async () => {
      const s = (await getCr('wave'))?.status;
      return s?.phase === 'Halted' ? s : undefined;
    });
    expect(halted.halt).toMatchObject({ reason: 'alarm api-5xx is in ALARM' });
    expect(halted.approval).toBeUndefined();
    expect(halted.summary).toContain('halted: alarm api-5xx is in ALARM');
  });

  it('refuses a spec change while the rollout runs, naming abort; once aborted the change is the next generation', async () => {
    const patched = await env.request('PATCH', rolloutPath(NS, 'wave'), {
      body: {
        spec: {
          stages: [
            { name: 'canary', clusters: ['team-a/alpha'] },
            { name: 'rest', maxConcurrency: 3 },
          ],
        },
      },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status, patched.body).toBe(200);
    const refused = await waitFor('the refusal on the CR', async () => {
      const s = (await getCr('wave'))?.status;
      return s?.conditions?.[0]?.reason === 'RolloutRunning' ? s : undefined;
    });
    expect(refused.conditions?.[0]).toMatchObject({ status: 'False' });
    expect(refused.conditions?.[0]?.message).toContain(
      'abort it first (cloudorch rollout abort team-a/wave)',
    );
    // Event writes run in the background, each on its own: wait for all of them, in any order.
    const expected = [
      /^RolloutStarted: started arn:.*:team-a-wave-g1-a1 for rollout generation 1$/,
      /^RolloutAwaitingApproval: waits for approval after stage canary: cloudorch rollout approve team-a\/wave --stage canary$/,
      /^RolloutHalted: halted: alarm api-5xx is in ALARM$/,
      /^RolloutRunning: rollout team-a\/wave is Halted at generation 1: .*abort it first/,
    ];
    await waitFor('the Events of each step', async () => {
      const events = await eventsFor('wave');
      return expected.every((re) => events.some((e) => re.test(e))) ? true : undefined;
    });
    // The running rollout's progress stays visible, and nothing moved.
    expect(refused.phase).toBe('Halted');
    expect((await dynamo.rollouts.get(id))?.generation).toBe(1);
    expect(executions()).toHaveLength(1);

    // What `cloudorch rollout abort` writes.
    const now = new Date();
    await dynamo.rollouts.update(
      id,
      (r) => ({
        abortRequestedAt: now.toISOString(),
        ...(r.status ? { status: aborted(r.status, now) } : {}),
      }),
      now,
    );
    const next = await waitFor('generation 2 planned', async () => {
      const r = await dynamo.rollouts.get(id);
      return r?.generation === 2 && r.status?.generation === 2 ? r : undefined;
    });
    expect((next.spec['stages'] as { maxConcurrency?: number }[])[1]?.maxConcurrency).toBe(3);
    expect(executions().map((e) => e.name)).toEqual(['team-a-wave-g2-a1', 'team-a-wave-g1-a1']);
    // The CR may first show generation 2 before its plan (no phase yet); then the planned status.
    const cr = await waitFor('Synced again, generation 2 planned', async () => {
      const c = await getCr('wave');
      return c?.status?.conditions?.[0]?.reason === 'Mirrored' && c.status.generation === 2 && c.status.phase
        ? c
        : undefined;
    });
    expect(cr.status).toMatchObject({
      phase: 'Pending',
      stage: '1/2 canary',
      observedGeneration: cr.metadata.generation,
    });
  });

  it('never runs an attempt twice, across a bridge restart, when its execution ended without planning', async () => {
    const created = await env.request('POST', rolloutPath(NS), { body: cloudRollout(NS, 'unplannable') });
    expect(created.status, created.body).toBe(201);
    const ofIt = () => executions().filter((e) => e.name.startsWith('team-a-unplannable-'));
    await waitFor('the execution failed', async () => (ofIt()[0]?.status === 'FAILED' ? true : undefined));
    const logs: string[] = [];
    await bridge.stop();
    bridge = await startTestBridge(env, dynamo, {
      sfn,
      flags: { webhookPort: restartPort, watchNamespace: NS },
      log: (m) => logs.push(m),
    });
    await waitFor('the restarted bridge listed CloudRollouts', async () =>
      bridge.rollouts.informer.health().synced ? true : undefined,
    );
    // The new process tries the same execution name once, finds it ended, and leaves it: no start,
    // no failure, whether its own queue or this call gets there first.
    expect(await bridge.rollouts.mirror.reconcile(`${NS}/unplannable`)).toBe('mirrored');
    await sleep(1_000);
    expect(ofIt().map((e) => [e.name, e.status])).toEqual([['team-a-unplannable-g1-a1', 'FAILED']]);
    expect(logs.filter((l) => l.includes('unplannable'))).toEqual([]);
    expect((await getCr('unplannable'))?.status?.summary).toBe(
      'waiting for an execution to plan generation 1',
    );
  });

  it('deleting the CloudRollout leaves its record and execution alone', async () => {
    const before = await dynamo.rollouts.get(id);
    const deleted = await env.request('DELETE', rolloutPath(NS, 'wave'));
    expect(deleted.status).toBe(200);
    await waitFor('the CR is gone', async () => ((await getCr('wave')) ? undefined : true));
    await sleep(1_000); // several resyncs
    expect(await dynamo.rollouts.get(id)).toEqual(before);
    expect(
      executions()
        .filter((e) => e.name.startsWith('team-a-wave-'))
        .map((e) => [e.name, e.status]),
    ).toEqual([
      ['team-a-wave-g2-a1', 'SUCCEEDED'],
      ['team-a-wave-g1-a1', 'SUCCEEDED'],
    ]);
  });
});
