/**
 * moto serves no add-on routes (ListAddons answers an HTML 404), while the provider lists add-ons on
 * every observation. For the suites that observe through moto to test node group behaviour, this
 * loopback proxy answers ListAddons with an empty list, as EKS does for a cluster without add-ons,
 * and forwards every other request to moto unchanged. The gap itself is asserted against moto's real
 * answer in the conformance suite, not hidden here.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const LIST_ADDONS = /^\/clusters\/[^/?]+\/addons(\?|$)/;

export interface AddonGapProxy {
  readonly url: string;
  /** ListAddons requests answered here (none reached moto). */
  listAddons: number;
  close(): Promise<void>;
}

export async function startAddonGapProxy(targetUrl: string): Promise<AddonGapProxy> {
  const target = new URL(targetUrl);
  const state = { listAddons: 0 };
  const server = createServer((req, res) => {
    if (req.method === 'GET' && LIST_ADDONS.test(req.url ?? '')) {
      state.listAddons++;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ addons: [] }));
      return;
    }
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (e) => res.writeHead(502).end(String(e)));
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get listAddons() {
      return state.listAddons;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
