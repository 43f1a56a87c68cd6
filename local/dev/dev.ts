/**
 * `cloudorch dev`: the whole product on one machine. The embedded store, the EKS simulator, the
 * local Step Functions endpoint running the production definition with the production handlers,
 * the sweep on a short interval, on-change triggers on writes, and the dashboard.
 */
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { addMetricSink } from '../../lambdas/handlers/telemetry.js';
import { cliVersion } from '../cli/config/cli-version.js';
import { type ControlPlane, LOCAL_REGION, LOCAL_TABLE, startControlPlane } from '../runtime/control-plane.js';
import { LOCAL_ROLLOUT_TABLE } from '../runtime/rollout-machine.js';
import { awsCommands } from './aws-commands.js';
import { MetricRecorder } from './recorder.js';
import { startDevServer } from './server.js';
import { devStatePath, removeDevState, writeDevState } from './state-file.js';

export interface DevOptions {
  readonly dataDir?: string;
  /** Dashboard port; 0 picks a free one. */
  readonly port: number;
  readonly sweepIntervalMs: number;
  /** EKS simulator speed factor (durations divided by it). */
  readonly speed: number;
  /** Factor on Wait states (30 s polls become 30 s x factor). */
  readonly waitScale: number;
  /** Rebuild and reload the served policy bundle on every change to the policies folder. */
  readonly watchPolicies?: boolean;
  readonly log: (line: string) => void;
}

export interface DevHandle {
  readonly cp: ControlPlane;
  readonly recorder: MetricRecorder;
  readonly dashboardUrl: string;
  readonly statePath: string;
  stop(): Promise<void>;
}

export async function startDev(opts: DevOptions): Promise<DevHandle> {
  const startedAt = new Date();
  const recorder = new MetricRecorder();
  const removeSink = addMetricSink(recorder.sink);
  const cp = await startControlPlane({
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    simSpeed: opts.speed,
    waitScale: opts.waitScale,
    sweepIntervalMs: opts.sweepIntervalMs,
    ...(opts.watchPolicies ? { watchPolicies: true } : {}),
    log: opts.log,
  });
  let server: Server | undefined;
  try {
    const started = await startDevServer({ cp, recorder, startedAt }, opts.port);
    server = started.server;
    const statePath = devStatePath();
    const names = { region: LOCAL_REGION, tableName: LOCAL_TABLE, stateMachineArn: cp.stateMachineArn };
    await writeDevState(statePath, {
      pid: process.pid,
      ...names,
      // `cloudorch rollout` and `apply -f` of a CloudRollout reach the rollouts through these.
      rolloutTableName: LOCAL_ROLLOUT_TABLE,
      rolloutStateMachineArn: cp.rolloutStateMachineArn,
      endpoints: { ...cp.endpoints, dashboard: started.url },
      startedAt: startedAt.toISOString(),
      version: cliVersion(),
      // `plan` judges with this file, never a bundle of its own, so it decides as dev would.
      policyBundle: { path: resolve(cp.policyBundlePath) },
    });
    opts.log(`cloudorch dev is running (data: ${opts.dataDir ?? 'in memory'})`);
    opts.log(`  dashboard         ${started.url}`);
    opts.log(`  DynamoDB store    ${cp.endpoints.dynamodb}`);
    opts.log(`  EKS simulator     ${cp.endpoints.eks}`);
    opts.log(`  Step Functions    ${cp.endpoints.sfn}  (${cp.stateMachineArn})`);
    opts.log(`  rollouts          table ${LOCAL_ROLLOUT_TABLE}, ${cp.rolloutStateMachineArn}`);
    opts.log(`  sweep             every ${opts.sweepIntervalMs / 1000}s`);
    opts.log(`  state file        ${statePath}`);
    opts.log('inspect it with the AWS CLI:');
    for (const line of awsCommands({ ...names, endpoints: cp.endpoints })) opts.log(`  ${line}`);
    let stopped = false;
    return {
      cp,
      recorder,
      dashboardUrl: started.url,
      statePath,
      async stop() {
        if (stopped) return;
        stopped = true;
        removeSink();
        await new Promise<void>((r) => server?.close(() => r()));
        await cp.stop();
        await removeDevState(statePath);
      },
    };
  } catch (err) {
    server?.close();
    removeSink();
    await cp.stop();
    throw err;
  }
}
