/**
 * The two core lists kube-apiserver's admission plugins read through their informers, for the
 * standalone apiextensions-apiserver: Namespaces (NamespaceLifecycle, and the webhook plugin's
 * namespace matcher) and ValidatingWebhookConfigurations (ValidatingAdmissionWebhook). That server
 * serves neither, so its `--kubeconfig` points here. Only list, get and an idle watch are served:
 * the admission decisions themselves (a create in a missing namespace refused, the webhook called
 * and its answer enforced) are made by the real API server's own plugins.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { freePort } from '../support/free-port.js';

type Obj = Record<string, unknown>;

export interface CoreStub {
  readonly url: string;
  /** kubeconfig YAML pointing at the stub (no credentials: it does not check any). */
  kubeconfig(): string;
  stop(): Promise<void>;
}

const RV = '1';

const namespace = (name: string): Obj => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, uid: `ns-${name}`, resourceVersion: RV },
  status: { phase: 'Active' },
});

function notFound(kind: string, name: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Status',
    status: 'Failure',
    message: `${kind} "${name}" not found`,
    reason: 'NotFound',
    details: { name, kind },
    code: 404,
  };
}

/**
 * kube-apiserver stores webhooks with its defaults filled in, and the plugin relies on them: a
 * missing namespaceSelector would match no namespace at all.
 */
const withDefaults = (w: Obj): Obj => ({
  namespaceSelector: {},
  objectSelector: {},
  matchPolicy: 'Equivalent',
  failurePolicy: 'Fail',
  timeoutSeconds: 10,
  ...w,
});

function send(res: ServerResponse, code: number, body: Obj): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A watch that stays open with nothing to report (after the initial events, when asked for them). */
function watch(req: IncomingMessage, res: ServerResponse, items: Obj[], open: Set<ServerResponse>): void {
  const q = new URL(req.url ?? '/', 'http://stub').searchParams;
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  if (q.get('sendInitialEvents') === 'true') {
    for (const object of items) res.write(`${JSON.stringify({ type: 'ADDED', object })}\n`);
    const end = {
      kind: items[0]?.['kind'] ?? 'Namespace',
      apiVersion: items[0]?.['apiVersion'] ?? 'v1',
      metadata: { resourceVersion: RV, annotations: { 'k8s.io/initial-events-end': 'true' } },
    };
    res.write(`${JSON.stringify({ type: 'BOOKMARK', object: end })}\n`);
  }
  open.add(res);
  const seconds = Number(q.get('timeoutSeconds') ?? '300');
  const timer = setTimeout(() => res.end(), Math.min(seconds, 300) * 1000);
  res.on('close', () => {
    clearTimeout(timer);
    open.delete(res);
  });
}

export async function startCoreStub(opts: {
  namespaces: readonly string[];
  validatingWebhookConfigurations: readonly Obj[];
}): Promise<CoreStub> {
  const open = new Set<ServerResponse>();
  const namespaces = opts.namespaces.map(namespace);
  const hooks = opts.validatingWebhookConfigurations.map((h) => ({
    ...h,
    metadata: { ...(h['metadata'] as Obj), uid: 'vwc', resourceVersion: RV },
    webhooks: (h['webhooks'] as Obj[]).map(withDefaults),
  }));
  const lists: Record<string, { kind: string; apiVersion: string; items: Obj[] }> = {
    '/api/v1/namespaces': { kind: 'NamespaceList', apiVersion: 'v1', items: namespaces },
    '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations': {
      kind: 'ValidatingWebhookConfigurationList',
      apiVersion: 'admissionregistration.k8s.io/v1',
      items: hooks,
    },
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    process.stderr.write(`STUB ${req.method} ${req.url} ${req.headers.accept}\n`);
    const list = lists[url.pathname];
    if (list && url.searchParams.get('watch') === 'true') return watch(req, res, list.items, open);
    if (list) return send(res, 200, { ...list, metadata: { resourceVersion: RV } });
    const ns = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(url.pathname);
    if (ns) {
      const found = namespaces.find((n) => (n['metadata'] as Obj)['name'] === ns[1]);
      return found ? send(res, 200, found) : send(res, 404, notFound('namespaces', ns[1] as string));
    }
    send(res, 404, notFound('path', url.pathname));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    kubeconfig: () =>
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: core, cluster: {server: "${url}"}}]`,
        'contexts: [{name: core, context: {cluster: core, user: none}}]',
        'users: [{name: none, user: {}}]',
        'current-context: core',
        '',
      ].join('\n'),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
