/**
 * The validating webhook over HTTPS: TLS 1.3 minimum, certificate and key from the mounted secret
 * (re-read when cert-manager rotates them), one path per kind: {@link WEBHOOK_PATH} for CloudClusters
 * and {@link ROLLOUT_WEBHOOK_PATH} for CloudRollouts, the constants the ValidatingWebhookConfiguration
 * is checked against. Start-up fails if the port cannot be bound.
 */
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import {
  AdmissionReviewError,
  admit,
  type ClaimLookup,
  type Decider,
  parseReview,
  reviewResponse,
} from './admission.js';
import { describeError } from './api-errors.js';
import { CERT_FILE, KEY_FILE, ROLLOUT_WEBHOOK_PATH, WEBHOOK_PATH } from './constants.js';
import { admitRollout } from './rollout-admission.js';

const MAX_BODY = 3 * 1024 * 1024; // the API server's own request limit is 3 MiB

export interface WebhookServer {
  readonly server: Server;
  readonly port: number;
  listening(): boolean;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new AdmissionReviewError('request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function admissionHandler(
  engine: Decider,
  log: (m: string) => void,
  clock: () => Date = () => new Date(),
  claims?: ClaimLookup,
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    if (path !== WEBHOOK_PATH && path !== ROLLOUT_WEBHOOK_PATH)
      return send(res, 404, { message: `not found: ${path}` });
    if (req.method !== 'POST') return send(res, 405, { message: 'POST an AdmissionReview' });
    try {
      const review = parseReview(JSON.parse(await readBody(req)));
      const response =
        path === ROLLOUT_WEBHOOK_PATH ? admitRollout(review) : await admit(review, engine, clock(), claims);
      if (!response.allowed)
        log(`denied ${review.operation} ${review.namespace}/${review.name}: ${response.status?.message}`);
      send(res, 200, reviewResponse(response));
    } catch (err) {
      const bad = err instanceof AdmissionReviewError || err instanceof SyntaxError;
      send(res, bad ? 400 : 500, { message: describeError(err) });
    }
  };
}

export async function startWebhook(opts: {
  engine: Decider;
  certDir: string;
  port: number;
  host: string;
  log: (m: string) => void;
  /** Time-dependent policies read this; injected by tests. */
  clock?: () => Date;
  /** Refuses a CR whose cluster another record holds. */
  claims?: ClaimLookup;
}): Promise<WebhookServer> {
  const certPath = join(opts.certDir, CERT_FILE);
  const keyPath = join(opts.certDir, KEY_FILE);
  const creds = () => ({ cert: readFileSync(certPath), key: readFileSync(keyPath) });
  const handler = admissionHandler(opts.engine, opts.log, opts.clock, opts.claims);
  const server = createServer({ ...creds(), minVersion: 'TLSv1.3' }, (req, res) => void handler(req, res));
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // cert-manager rewrites the secret before expiry; the kubelet updates the mounted files.
  const reload = () => {
    try {
      server.setSecureContext({ ...creds(), minVersion: 'TLSv1.3' });
      opts.log('webhook certificate reloaded');
    } catch (err) {
      opts.log(`webhook certificate reload failed, keeping the old one: ${describeError(err)}`);
    }
  };
  watchFile(certPath, { interval: 30_000 }, reload);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    server,
    port,
    listening: () => server.listening,
    close: () =>
      new Promise<void>((resolve) => {
        unwatchFile(certPath, reload);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
