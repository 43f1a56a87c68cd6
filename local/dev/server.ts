/**
 * The HTTP side of `cloudorch dev`: a small JSON API over the embedded control plane, and the
 * dashboard's static files. Read-only: changes go through the CLI (records) and the simulator's
 * admin API, exactly as they would in AWS.
 */

import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodePool } from '../../lambdas/core/spec/pools.js';
import { listAll, listItems } from '../../lambdas/store/list.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { specPools } from '../cli/pools.js';
import type { ControlPlane } from '../runtime/control-plane.js';
import type { MetricRecorder } from './recorder.js';

const STATIC_DIR = fileURLToPath(new URL('./dashboard/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface DevServerDeps {
  readonly cp: ControlPlane;
  readonly recorder: MetricRecorder;
  readonly startedAt: Date;
}

/** What the dashboard plots; the same figures the CloudWatch dashboard shows in AWS. */
export async function metricsSnapshot(d: DevServerDeps) {
  const { cp, recorder } = d;
  return {
    startedAt: d.startedAt.toISOString(),
    now: new Date().toISOString(),
    drift: recorder.series('DriftDetected').map((p) => ({ at: p.at, value: p.value })),
    convergence: recorder.series('ConvergenceSeconds').map((p) => ({ at: p.at, seconds: p.value })),
    errorsByKind: recorder.totals('ReconcileErrors', 'Kind'),
    policyDenials: recorder.series('PolicyDenials').length,
    outcomes: recorder.totals('ReconcileSteps', 'Outcome'),
    applyOperations: recorder.totals('ApplyOperations', 'Operation'),
    executionsStartedByTrigger: recorder.totals('ExecutionsStarted', 'Trigger'),
    executions: cp.sfn.counts(),
    eksCalls: await cp.simAdmin.calls(),
    policy: cp.policy.health(),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(body));
}

async function serveStatic(path: string, res: ServerResponse): Promise<void> {
  const rel = normalize(path === '/' ? 'index.html' : path.replace(/^\/+/, ''));
  if (rel.startsWith('..')) return send(res, 404, { message: 'not found' });
  try {
    const body = await readFile(join(STATIC_DIR, rel));
    res.writeHead(200, { 'content-type': TYPES[extname(rel)] ?? 'application/octet-stream' }).end(body);
  } catch {
    send(res, 404, { message: `not found: ${path}` });
  }
}

/** A malformed request target or percent-encoding is the client's error (400), not ours (500). */
function parseTarget(raw: string | undefined): URL | undefined {
  try {
    return new URL(raw ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

function decodeSegment(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/**
 * A record as the dashboard reads it: as stored, plus `desiredPools`, its spec's pools normalised
 * (a record written before pools existed holds the flat fields), so the page never re-derives them.
 */
export function withPools(r: ClusterRecord): ClusterRecord & { desiredPools?: readonly NodePool[] } {
  const pools = specPools(r);
  return pools ? { ...r, desiredPools: pools } : r;
}

/**
 * Rollouts as the dashboard reads them, with the last notifications. A pending approval's task token
 * is left out: it is what resumes the execution, and the page only needs to say a stage waits.
 */
export async function rolloutsSnapshot(d: DevServerDeps) {
  const { records, invalid } = await d.cp.deps.rollouts.list();
  return {
    rollouts: records.map(({ approval, ...r }) =>
      approval
        ? {
            ...r,
            approval: { stage: approval.stage, when: approval.when, requestedAt: approval.requestedAt },
          }
        : r,
    ),
    invalid,
    notifications: d.cp.board.notifications.slice(-50),
  };
}

export async function handle(d: DevServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = parseTarget(req.url);
  if (!url) return send(res, 400, { message: 'malformed request URL' });
  if (req.method !== 'GET') return send(res, 405, { message: 'the dev API is read-only' });
  if (url.pathname === '/api/clusters') return send(res, 200, (await listAll(d.cp.store)).map(withPools));
  if (url.pathname === '/api/invalid') return send(res, 200, (await listItems(d.cp.store)).invalid);
  if (url.pathname.startsWith('/api/clusters/')) {
    const id = decodeSegment(url.pathname.slice('/api/clusters/'.length));
    if (id === undefined) return send(res, 400, { message: 'malformed percent-encoding in the cluster id' });
    const r = await d.cp.store.inspect(id);
    if (r?.kind === 'record') return send(res, 200, withPools(r.record));
    if (r?.kind === 'invalid') return send(res, 200, { id, recordInvalid: r.invalid.reason });
    return send(res, 404, { message: `no cluster ${id}` });
  }
  if (url.pathname === '/api/rollouts') return send(res, 200, await rolloutsSnapshot(d));
  if (url.pathname === '/api/metrics') return send(res, 200, await metricsSnapshot(d));
  if (url.pathname === '/api/health')
    return send(res, 200, { policy: d.cp.policy.health(), executions: d.cp.sfn.counts() });
  if (url.pathname.startsWith('/api/')) return send(res, 404, { message: 'unknown API path' });
  return serveStatic(url.pathname, res);
}

export async function startDevServer(
  d: DevServerDeps,
  port: number,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    handle(d, req, res).catch((err: unknown) => send(res, 500, { message: String(err) }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
