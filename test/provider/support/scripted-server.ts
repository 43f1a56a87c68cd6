/** A loopback HTTP server that answers every request the same scripted way, counting requests. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  readonly status: number;
  /** Sent as `x-amzn-ErrorType` when set. */
  readonly errorType?: string;
  readonly body: unknown;
}

export interface ScriptedServer {
  readonly url: string;
  requests: number;
  answer: Answer;
  close(): Promise<void>;
}

export async function startScriptedServer(answer: Answer): Promise<ScriptedServer> {
  const state = { requests: 0, answer };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requests++;
      const a = state.answer;
      res.writeHead(a.status, {
        'content-type': 'application/json',
        ...(a.errorType ? { 'x-amzn-errortype': a.errorType } : {}),
      });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

export const eksError = (
  status: number,
  errorType: string,
  message = `${errorType} from the script`,
): Answer => ({
  status,
  errorType,
  body: { message },
});
