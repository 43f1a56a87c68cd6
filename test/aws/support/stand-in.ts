/** A stand-in AWS endpoint on a free loopback port: each request gets the handler's answer. */
import { createServer, type RequestListener } from 'node:http';

export interface StandIn {
  readonly url: string;
  close(): void;
}

export async function startStandIn(handler: RequestListener): Promise<StandIn> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return {
    url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
