/**
 * Where a running `cloudorch dev` says it listens, so other `cloudorch` commands find it. Written
 * at start, removed on a clean stop.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface DevState {
  readonly pid: number;
  readonly region: string;
  readonly tableName: string;
  readonly stateMachineArn: string;
  readonly endpoints: {
    readonly dynamodb: string;
    readonly eks: string;
    readonly sfn: string;
    readonly dashboard: string;
  };
  readonly startedAt: string;
}

export function devStatePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLOUDORCH_DEV_STATE) return env.CLOUDORCH_DEV_STATE;
  const base = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'cloudorch', 'dev.json');
}

export async function writeDevState(path: string, state: DevState): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(state, null, 2)}\n`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The running dev control plane, or undefined when none is running (a stale file is ignored). */
export async function readDevState(path: string): Promise<DevState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  const s = JSON.parse(text) as DevState;
  return alive(s.pid) ? s : undefined;
}

export async function removeDevState(path: string): Promise<void> {
  await rm(path, { force: true });
}
