/**
 * The EKS simulator's HTTP server: EKS's REST-JSON routes (docs/eks-api.md §2), 200 with wrapper objects,
 * errors as `x-amzn-ErrorType` plus `{"message"}` with EKS's status codes, so the unchanged SDK client
 * runs against it through `endpoint`. SigV4 headers are accepted unverified; the region comes from
 * the credential scope and the account from the access key id (accounts.ts). STS's AssumeRole is served
 * on the same endpoint (sts.ts). A development tool: nothing starts it unless configured explicitly.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseBrowserRequests } from '../runtime/browser-guard.js';
import { type AdminContext, Counters, Faults, handleAdmin } from './admin.js';
import { SimError } from './model.js';
import { ACCESS_ROUTES } from './ops-access.js';
import { ADDON_ROUTES } from './ops-addon.js';
import * as cl from './ops-cluster.js';
import * as ng from './ops-nodegroup.js';
import { POD_IDENTITY_ROUTES } from './pod-identity.js';
import { CLUSTER_PATH, type Route } from './route.js';
import { type SimOptions, SimState } from './state.js';
import { errorXml, handleSts, StsError } from './sts.js';

const C = CLUSTER_PATH;
const NG = [...C, 'node-groups', ':nodegroupName'] as const;

/** Every EKS route the simulator serves (exported so the wire test can check each against EKS's model). */
export const ROUTES: readonly Route[] = [
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
  ['POST', ['tags', ':resourceArn'], 'TagResource', cl.tagResource],
  ['DELETE', ['tags', ':resourceArn'], 'UntagResource', cl.untagResource],
  ['GET', ['tags', ':resourceArn'], 'ListTagsForResource', cl.listTagsForResource],
  // Add-ons and insights, access entries, add-ons' pod identity associations: each module lists its own routes.
  ...ADDON_ROUTES,
  ...ACCESS_ROUTES,
  ...POD_IDENTITY_ROUTES,
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

/** `Credential=AKID/...` -> `AKID`: the key that says which account the request acts in. */
function accessKeyOf(req: IncomingMessage): string | undefined {
  return /Credential=([^/,\s]+)\//.exec(req.headers.authorization ?? '')?.[1];
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readText(req);
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

type Send = (res: ServerResponse, status: number, body: unknown, errorType?: string) => void;

/** Request ids, numbered per simulator across EKS, STS and admin answers. */
class RequestIds {
  private seq = 0;
  next(): string {
    return `sim-${String(++this.seq).padStart(8, '0')}`;
  }
}

/** Every answer carries an `x-amzn-requestid`. */
function responder(ids: RequestIds): Send {
  return (res, status, body, errorType) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-amzn-requestid': ids.next(),
    };
    if (errorType) headers['x-amzn-errortype'] = errorType;
    res.writeHead(status, headers).end(JSON.stringify(body));
  };
}

/** EKS errors name their type in `x-amzn-ErrorType`; admin errors (not EKS) are plain `{message}` bodies. */
function sendError(send: Send, res: ServerResponse, e: SimError): void {
  send(res, e.status, { message: e.message, ...e.extra }, e.type.startsWith('Admin') ? undefined : e.type);
}

/** Split before decoding: an ARN label arrives with its '/' and ':' percent-encoded. */
function pathSegments(url: URL): string[] {
  return url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
}

/** Counts an injected fault against its operation before it is answered. */
function countedFault(counters: Counters, op: string, error: SimError): SimError {
  counters.record(op, error.status === 429 ? 'throttled' : 'serverErrors');
  return error;
}

interface EksCall {
  readonly req: IncomingMessage;
  readonly method: string;
  readonly url: URL;
  readonly body: Record<string, unknown>;
}

/** Runs a matched operation (or rejects an unmatched one), counting the outcome. */
function runOperation(sim: AdminContext, op: string, m: ReturnType<typeof match>, call: EksCall): unknown {
  const { state, counters } = sim;
  if (!m) {
    counters.record(op, 'rejected');
    throw new SimError(
      404,
      'UnknownOperationException',
      `The simulator does not implement ${call.method} ${call.url.pathname}`,
    );
  }
  state.tick();
  try {
    const out = m.route[3]({
      state,
      region: regionOf(call.req, state.config.defaultRegion),
      caller: state.accounts.caller(accessKeyOf(call.req)),
      params: m.params,
      query: call.url.searchParams,
      body: call.body,
    });
    counters.record(op, 'succeeded');
    return out;
  } catch (e) {
    if (e instanceof SimError) counters.record(op, 'rejected');
    throw e;
  }
}

/** STS's query protocol: a form-encoded POST to `/` (EKS's routes all have a path). */
function isSts(req: IncomingMessage, segs: readonly string[]): boolean {
  const type = req.headers['content-type'] ?? '';
  return req.method === 'POST' && segs.length === 0 && type.startsWith('application/x-www-form-urlencoded');
}

/** Answers one STS request in XML, counting it under its action like an EKS operation. */
async function handleStsRequest(
  sim: AdminContext,
  ids: RequestIds,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const form = new URLSearchParams(await readText(req));
  const op = form.get('Action') ?? 'Unknown';
  const requestId = ids.next();
  const headers = { 'content-type': 'text/xml', 'x-amzn-requestid': requestId };
  sim.state.tick();
  try {
    const xml = handleSts(sim.state, sim.state.accounts.caller(accessKeyOf(req)), form, requestId);
    sim.counters.record(op, 'succeeded');
    res.writeHead(200, headers).end(xml);
  } catch (e) {
    if (!(e instanceof StsError)) throw e;
    sim.counters.record(op, 'rejected');
    res.writeHead(e.status, headers).end(errorXml(e, requestId));
  }
}

async function handle(
  sim: AdminContext,
  ids: RequestIds,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const send = responder(ids);
  const url = new URL(req.url ?? '/', 'http://sim');
  const segs = pathSegments(url);
  if (isSts(req, segs)) return handleStsRequest(sim, ids, req, res);
  const method = req.method ?? 'GET';
  const body = await readJson(req);
  if (segs[0] === '_sim') {
    sim.state.tick();
    return send(res, 200, handleAdmin(sim, method, segs.slice(1), body));
  }
  const m = match(method, segs);
  const op = m?.route[2] ?? 'Unknown';
  // Faults are drawn before routing, so a `*` fault also hits routes the simulator lacks.
  const fault = sim.faults.decide(op);
  if (fault.latencyMs > 0) await new Promise((r) => setTimeout(r, fault.latencyMs));
  if (fault.error) throw countedFault(sim.counters, op, fault.error);
  send(res, 200, runOperation(sim, op, m, { req, method, url, body }));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

/** Starts the simulator on loopback. Tests start their own and close it when done. */
export async function startEksSimulator(opts: StartOptions = {}): Promise<EksSimulator> {
  const { port = 0, host = '127.0.0.1', ...simOpts } = opts;
  const state = new SimState(simOpts);
  const faults = new Faults(state.config.seed);
  const counters = new Counters();
  const sim: AdminContext = { state, faults, counters };
  const ids = new RequestIds();
  const send = responder(ids);

  const server = createServer((req, res) => {
    handle(sim, ids, req, res).catch((e: unknown) => {
      if (e instanceof SimError) return sendError(send, res, e);
      send(res, 500, { message: `simulator bug: ${(e as Error)?.message ?? String(e)}` }, 'ServerException');
    });
  });
  refuseBrowserRequests(server, 'the EKS simulator');
  await listen(server, port, host);
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
