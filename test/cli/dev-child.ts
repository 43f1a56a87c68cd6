/**
 * `cloudorch dev` as a child process, and the CLI run against it exactly as a user runs it: for the
 * CLI test files that start one dev each.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
const CLI = join(ROOT, 'bin/cloudorch.mjs');

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export async function until<T>(what: string, f: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface Dev {
  readonly dir: string;
  /** The CLI against this dev; `input` is its standard input. */
  cloudorch(args: string[], input?: string): Promise<Result>;
  /** Where the dev's DynamoDB-compatible store listens. */
  dynamodb(): string;
  stop(): Promise<void>;
}

export async function startDev(): Promise<Dev> {
  const dir = mkdtempSync(join(tmpdir(), 'cloudorch-cli-'));
  const env = { ...process.env, CLOUDORCH_DEV_STATE: join(dir, 'dev.json'), NO_COLOR: '1' };
  const args = ['dev', '--port', '0', '--sweep-interval', '1', '--speed', '2000', '--wait-scale', '0.005'];
  const dev: ChildProcess = spawn(process.execPath, [CLI, ...args], { env, cwd: ROOT });
  let log = '';
  dev.stdout?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  dev.stderr?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  await until('cloudorch dev to start', async () =>
    existsSync(env.CLOUDORCH_DEV_STATE) && log.includes('press Ctrl-C') ? true : undefined,
  );
  return {
    dir,
    cloudorch: (cliArgs, input) =>
      new Promise((resolve) => {
        const child = execFile(
          process.execPath,
          [CLI, ...cliArgs],
          { env, cwd: ROOT, timeout: 60_000 },
          (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
        if (input !== undefined) child.stdin?.end(input);
      }),
    dynamodb: () =>
      (JSON.parse(readFileSync(env.CLOUDORCH_DEV_STATE, 'utf8')) as { endpoints: { dynamodb: string } })
        .endpoints.dynamodb,
    stop: async () => {
      if (dev.exitCode !== null) return;
      const exited = new Promise((r) => dev.once('exit', r));
      dev.kill('SIGINT');
      await exited;
    },
  };
}
