/**
 * `cloudorch dev` as a child process, and the CLI run against it exactly as a user runs it: for the
 * CLI test files that start one dev each.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const CLI = join(ROOT, 'bin/cloudorch.mjs');

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export async function until<T>(what: string, f: () => Promise<T | undefined>, tries = 600): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface Dev {
  readonly dir: string;
  /** The environment the dev and `cloudorch()` run with. */
  readonly env: Record<string, string>;
  /** The dev's state file (`CLOUDORCH_DEV_STATE`). */
  readonly statePath: string;
  /** What the dev has printed so far, stdout and stderr. */
  log(): string;
  /** The CLI against this dev; `input` is its standard input. */
  cloudorch(args: string[], input?: string): Promise<Result>;
  /** Where the dev's DynamoDB-compatible store listens. */
  dynamodb(): string;
  stop(): Promise<void>;
}

export interface DevOptions {
  /** The directory for the state file, HOME and config; a fresh temporary one if not given. */
  dir?: string;
  /** Replaces the minimal environment below; CLOUDORCH_DEV_STATE in it is the state file. */
  env?: Record<string, string>;
  /** `dev`'s options; by default a fast one (short sweeps, sped-up simulator). */
  args?: string[];
}

/**
 * Only what the CLI needs, so the AWS or CloudOrch settings of the machine running the tests
 * (CLOUDORCH_TABLE_NAME, AWS_PROFILE, ~/.cloudorch, ...) cannot redirect them.
 */
export function minimalEnv(dir: string) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    NO_COLOR: '1',
    CLOUDORCH_CONFIG: join(dir, 'config.yaml'),
    CLOUDORCH_DEV_STATE: join(dir, 'dev.json'),
  };
}

const FAST = ['--port', '0', '--sweep-interval', '1', '--speed', '2000', '--wait-scale', '0.005'];

export async function startDev(opts: DevOptions = {}): Promise<Dev> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'cloudorch-cli-'));
  const env = { ...(opts.env ?? minimalEnv(dir)) };
  env.CLOUDORCH_DEV_STATE ??= join(dir, 'dev.json');
  const statePath = env.CLOUDORCH_DEV_STATE;
  const dev: ChildProcess = spawn(process.execPath, [CLI, 'dev', ...(opts.args ?? FAST)], {
    env,
    cwd: ROOT,
  });
  let log = '';
  dev.stdout?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  dev.stderr?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const stop = async () => {
    if (dev.exitCode !== null || dev.signalCode !== null) return;
    const exited = new Promise((r) => dev.once('exit', r));
    dev.kill('SIGINT');
    await exited;
  };
  try {
    await until(
      'cloudorch dev to start',
      async () => (existsSync(statePath) && log.includes('press Ctrl-C') ? true : undefined),
      1200,
    );
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}:\n${log}`);
  }
  return {
    dir,
    env,
    statePath,
    log: () => log,
    cloudorch: (cliArgs, input) =>
      new Promise((resolve) => {
        const child = execFile(
          process.execPath,
          [CLI, ...cliArgs],
          { env, cwd: ROOT, timeout: 120_000 },
          (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
        if (input !== undefined) child.stdin?.end(input);
      }),
    dynamodb: () =>
      (JSON.parse(readFileSync(statePath, 'utf8')) as { endpoints: { dynamodb: string } }).endpoints.dynamodb,
    stop,
  };
}
