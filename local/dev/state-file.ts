/**
 * Where a running `cloudorch dev` says it listens, and which policy bundle it judges with, so other
 * `cloudorch` commands find it and `plan` judges as it does. Written at start (atomically, so a
 * reader never sees half of it), removed on a clean stop.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface DevState {
  readonly pid: number;
  readonly region: string;
  readonly tableName: string;
  readonly stateMachineArn: string;
  /** The rollout table and the Rollout state machine (absent in a state file of an older dev). */
  readonly rolloutTableName?: string;
  readonly rolloutStateMachineArn?: string;
  readonly endpoints: {
    readonly dynamodb: string;
    readonly eks: string;
    readonly sfn: string;
    readonly dashboard: string;
  };
  readonly startedAt: string;
  /** The CloudOrch version the running dev is (`cloudorch version` reports it as the stack's). */
  readonly version?: string;
  /** The bundle file dev's engine reloads (absolute); its revision is read from the file itself. */
  readonly policyBundle?: { readonly path: string };
}

export function devStatePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLOUDORCH_DEV_STATE) return env.CLOUDORCH_DEV_STATE;
  const base = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'cloudorch', 'dev.json');
}

export async function writeDevState(path: string, state: DevState): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`);
  await rename(tmp, path);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A state file that is there but cannot be what `cloudorch dev` wrote. */
export class DevStateError extends Error {
  override readonly name = 'DevStateError';
}

/**
 * The running dev control plane, or undefined when none is running (a file whose process is gone
 * is ignored). A file that does not parse is an error naming it, never taken for "no dev".
 */
export async function readDevState(path: string): Promise<DevState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  let s: DevState;
  try {
    s = JSON.parse(text) as DevState;
  } catch (err) {
    throw new DevStateError(
      `${path} is not a cloudorch dev state file (${(err as Error).message}): remove it, or restart cloudorch dev`,
      { cause: err },
    );
  }
  if (typeof s?.pid !== 'number' || typeof s.endpoints !== 'object' || s.endpoints === null)
    throw new DevStateError(`${path} is not a cloudorch dev state file (no pid or endpoints): remove it`);
  return alive(s.pid) ? s : undefined;
}

export async function removeDevState(path: string): Promise<void> {
  await rm(path, { force: true });
}
