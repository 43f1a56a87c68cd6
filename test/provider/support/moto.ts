/**
 * Starts moto server (installed and pinned by scripts/setup.sh) on a free loopback port. When moto is
 * missing this throws: the moto suite fails, it never skips silently.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { freePort } from '../../support/free-port.js';

export const MOTO_ENV = 'CLOUDORCH_MOTO_SERVER';
/** moto's default account (its IAM keys are not checked). */
export const MOTO_ACCOUNT = '123456789012';

export interface Moto {
  readonly url: string;
  reset(): Promise<void>;
  close(): Promise<void>;
}

async function ready(url: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}:\n${log()}`);
    try {
      const res = await fetch(`${url}/moto-api/data.json`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`moto_server did not become ready at ${url}:\n${log()}`);
}

/** `serverEnv` adds to the server's environment (e.g. `INITIAL_NO_AUTH_ACTION_COUNT`, which turns on its checks of signatures and IAM policies after that many requests). */
export async function startMoto(
  env: Readonly<Record<string, string | undefined>> = process.env,
  serverEnv: Readonly<Record<string, string>> = {},
): Promise<Moto> {
  const bin = env[MOTO_ENV];
  if (!bin) {
    throw new Error(
      `${MOTO_ENV} is not set: run the tests through ./scripts/test.sh (or source scripts/setup.sh first)`,
    );
  }
  await access(bin, constants.X_OK).catch(() => {
    throw new Error(`${MOTO_ENV}=${bin} is not executable: scripts/setup.sh could not install moto`);
  });
  const port = await freePort();
  const child = spawn(bin, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...serverEnv },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await ready(url, child, () => stderr);
  } catch (e) {
    child.kill();
    throw e;
  }
  return {
    url,
    reset: async () => {
      const res = await fetch(`${url}/moto-api/reset`, { method: 'POST' });
      if (!res.ok) throw new Error(`moto reset failed: ${res.status}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
