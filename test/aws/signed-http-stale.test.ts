/**
 * A keep-alive connection the server closed while it was idle (a Lambda frozen between invocations
 * sees the close only after it thaws and has written its next request): the request went out whole
 * but the server never read it. Reset on a reused connection before any answer, even a write that is
 * not idempotent (lambdas/aws/signed-http.ts) is sent again, as the SDK sends it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsRequestError, signedHttpClient } from '../../lambdas/aws/signed-http.js';

describe('a write on a keep-alive connection the server closed while idle', () => {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      // The server closes the connection soon after its answer, as an idle timeout does.
      res.end('{}', () => setTimeout(() => req.socket.destroy(), 20));
    });
  });
  beforeAll(() => new Promise<void>((r) => server.listen(0, '127.0.0.1', r)));
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('is sent again on a new connection: the server never read it', async () => {
    const c = signedHttpClient(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), {
      region: 'us-east-1',
      service: 'dynamodb',
      credentials: () => ({ accessKeyId: 'local', secretAccessKey: 'local' }),
      ok: (s) => s === 200,
      errorOf: () => ({ code: 'Unexpected', message: 'unexpected' }),
    });
    const write = { method: 'POST' as const, path: '/', body: Buffer.from('{}'), idempotent: false };
    try {
      await c.send(write);
      // Busy past the server's close, as a frozen process is: it writes before it sees the close.
      const start = Date.now();
      while (Date.now() - start < 100) {}
      const second = await c.send(write).catch((e: unknown) => e);
      expect(second).not.toBeInstanceOf(AwsRequestError);
      expect(requests).toBe(2);
    } finally {
      c.destroy();
    }
  });
});
