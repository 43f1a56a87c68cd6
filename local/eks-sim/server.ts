/**
 * The EKS simulator's HTTP server: EKS's REST-JSON routes (docs/eks-api.md §2), 200 with wrapper objects,
 * errors as `x-amzn-ErrorType` plus `{"message"}` with EKS's status codes, so the unchanged SDK client
 * runs against it through `endpoint`. SigV4 headers are accepted unverified; the region comes from
 * the credential scope. A development tool: nothing starts it unless configured explicitly.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseBrowserRequests } from '../runtime/browser-guard.js';
import { Counters, Faults, handleAdmin } from './admin.js';
import { SimError } from './model.js';
import * as cl from './ops-cluster.js';
import * as ng from './ops-nodegroup.js';
import type { Handler } from './request.js';
import { type SimOptions, SimState } from './state.js';

type Route = readonly [method: string, pattern: readonly string[], op: string, handler: Handler];

const C = ['clusters', ':name'] as const;
const NG = [...C, 'node-groups', ':nodegroupName'] as const;

const ROUTES: readonly Route[] = [
  ['POST', ['clusters'], 'CreateCluster', cl.createCluster],
  ['GET', ['clusters'], 'ListClusters', cl.listClusters],
  ['GET', C, 'DescribeCluster', cl.describeCluster],
  ['DELETE', C, 'DeleteCluster', cl.deleteCluster],
  ['POST', [...C, 'updates'], 'UpdateClusterVersion', cl.updateClusterVersion],
  ['GET', [...C, 'updates'], 'ListUpdates', cl.listUpdates],
  ['GET', [...C, 'updates', ':updateId'], 'DescribeUpdate', cl.describeUpdate],
  ['POST', [...C, 'node-groups'], 'CreateNodegroup', ng.createNodegroup],
  ['GET', [...C, 'node-groups'], 'ListNodegroups', ng.listNodegroups],
  ['GET', NG, 'DescribeNodegroup', ng.describeNodegroup],
  ['DELETE', NG, 'DeleteNodegroup', ng.deleteNodegroup],
  ['POST', [...NG, 'update-config'], 'UpdateNodegroupConfig', ng.updateNodegroupConfig],
  ['POST', [...NG, 'update-version'], 'UpdateNodegroupVersion', ng.updateNodegroupVersion],
  ['POST', ['tags', ':arn'], 'TagResource', cl.tagResource],
  ['DELETE', ['tags', ':arn'], 'UntagResource', cl.untagResource],
  ['GET', ['tags', ':arn'], 'ListTagsForResource', cl.listTagsForResource],
];

function match(
  method: string,
  segs: readonly string[],
): { route: Route; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    const [m, pattern] = route;
    if (m !== method || pattern.length !== segs.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    pattern.forEach((p, i) => {
      const seg = segs[i] as string;
      if (p.startsWith(':')) params[p.slice(1)] = seg;
      else if (p !== seg) ok = false;
    });
    if (ok) return { route, params };
  }
  return null;
}

/** `Credential=AKID/20260101/us-west-2/eks/aws4_request` -> `us-west-2`. */
function regionOf(req: IncomingMessage, fallback: string): string {
  const m = /Credential=[^/]+\/\d{8}\/([^/]+)\/eks\/aws4_request/.exec(req.headers.authorization ?? '');
  return m?.[1] ?? fallback;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new SimError(400, 'SerializationException', 'The request body is not a JSON object');
}

export interface EksSimulator {
  /** Base URL for the SDK's `endpoint`, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  readonly port: number;
  readonly state: SimState;
  readonly faults: Faults;
  readonly counters: Counters;
  close(): Promise<void>;
}

export interface StartOptions extends SimOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
}

/** Starts the simulator on loopback. Tests start their own and close it when done. */
export async function startEksSimulator(opts: StartOptions = {}): Promise<EksSimulator> {
  const { port = 0, host = '127.0.0.1', ...simOpts } = opts;
  const state = new SimState(simOpts);
  const faults = new Faults(state.config.seed);
  const counters = new Counters();
  let seq = 0;

  const send = (res: ServerResponse, status: number, body: unknown, errorType?: string) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-amzn-requestid': `sim-${String(++seq).padStart(8, '0')}`,
    };
    if (errorType) headers['x-amzn-errortype'] = errorType;
    res.writeHead(status, headers).end(JSON.stringify(body));
  };
  const sendError = (res: ServerResponse, e: SimError) =>
    send(res, e.status, { message: e.message, ...e.extra }, e.type.startsWith('Admin') ? undefined : e.type);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    // Split before decoding: an ARN label arrives with its '/' and ':' percent-encoded.
    const segs = url.pathname
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
    const method = req.method ?? 'GET';
    const body = await readJson(req);
    if (segs[0] === '_sim') {
      state.tick();
      return send(res, 200, handleAdmin({ state, faults, counters }, method, segs.slice(1), body));
    }
    const m = match(method, segs);
    const op = m?.route[2] ?? 'Unknown';
    const fault = faults.decide(op);
    if (fault.latencyMs > 0) await new Promise((r) => setTimeout(r, fault.latencyMs));
    if (fault.error) {
      counters.record(op, fault.error.status === 429 ? 'throttled' : 'serverErrors');
      throw fault.error;
    }
    if (!m) {
      counters.record(op, 'rejected');
      throw new SimError(
        404,
        'UnknownOperationException',
        `The simulator does not implement ${method} ${url.pathname}`,
      );
    }
    state.tick();
    try {
      const out = m.route[3]({
        state,
        region: regionOf(req, state.config.defaultRegion),
        params: m.params,
        query: url.searchParams,
        body,
      });
      counters.record(op, 'succeeded');
      send(res, 200, out);
    } catch (e) {
      if (e instanceof SimError) counters.record(op, 'rejected');
      throw e;
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (e instanceof SimError) return sendError(res, e);
      send(res, 500, { message: `simulator bug: ${(e as Error)?.message ?? String(e)}` }, 'ServerException');
    });
  });
  refuseBrowserRequests(server, 'the EKS simulator');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    state,
    faults,
    counters,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
