/**
 * `/healthz`, `/readyz` and `/readyz/mirror`, each a list of named checks that test the real
 * dependency, never a constant "ok". Liveness is what a restart can fix (the webhook server);
 * readiness is what the webhook needs to answer (the policy bundle), and nothing else, because the
 * Service sends admission requests only to Ready pods. The mirror's own dependencies (the watch,
 * DynamoDB, leader election) are reported apart, so a DynamoDB blip never stops admission.
 * The body lists every check, so a failing probe says which part is broken.
 */
import { createServer, type Server } from 'node:http';
import { describeError } from './api-errors.js';
import { HEALTHZ_PATH, MIRROR_HEALTH_PATH, READYZ_PATH } from './constants.js';

/** Resolves to undefined when healthy, or to a reason. */
export type Check = () => Promise<string | undefined> | string | undefined;

export interface HealthChecks {
  readonly live: Record<string, Check>;
  readonly ready: Record<string, Check>;
  readonly mirror: Record<string, Check>;
}

const CHECK_TIMEOUT_MS = 2_000;

async function run(check: Check): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(check), timeout]);
  } catch (err) {
    return describeError(err);
  } finally {
    clearTimeout(timer);
  }
}

export async function evaluate(checks: Record<string, Check>): Promise<{ ok: boolean; lines: string[] }> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => [name, await run(check)] as const),
  );
  const lines = results.map(([name, failure]) => (failure ? `[-] ${name}: ${failure}` : `[+] ${name} ok`));
  return { ok: results.every(([, failure]) => failure === undefined), lines };
}

export async function startHealthServer(opts: {
  checks: HealthChecks;
  port: number;
  host: string;
}): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://health').pathname;
    const sets: Record<string, Record<string, Check>> = {
      [HEALTHZ_PATH]: opts.checks.live,
      [READYZ_PATH]: { ...opts.checks.live, ...opts.checks.ready },
      [MIRROR_HEALTH_PATH]: opts.checks.mirror,
    };
    const set = Object.hasOwn(sets, path) ? sets[path] : undefined;
    if (!set) {
      res.writeHead(404).end();
      return;
    }
    void evaluate(set).then(({ ok, lines }) => {
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' });
      res.end(`${lines.join('\n')}\n${ok ? 'ok' : 'failed'}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
