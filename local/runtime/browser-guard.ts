/**
 * The local endpoints (DynamoDB store, EKS simulator, Step Functions) serve AWS SDK clients and the
 * CLI, never browsers: without this, any web page open in a browser could send them requests
 * (a "simple" cross-origin POST needs no preflight). SDKs send neither `Origin` nor `Sec-Fetch-*`
 * headers; anything that does is a browser and is refused, preflights included, with no CORS headers.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';

export function refuseBrowserRequests(
  server: Server,
  what: string,
  errorType = 'AccessDeniedException',
): void {
  const serve = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const h = req.headers;
    if (req.method === 'OPTIONS' || h.origin !== undefined || h['sec-fetch-site'] !== undefined) {
      req.resume();
      res
        .writeHead(403, { 'content-type': 'application/x-amz-json-1.0' })
        .end(
          JSON.stringify({ __type: errorType, message: `${what} serves AWS SDK clients only, not browsers` }),
        );
      return;
    }
    for (const f of serve) f.call(server, req, res);
  });
}
