/** The two servers the conformance suite runs against, behind one small interface. */

import { EksProvider, type EksProviderOptions } from '../../../lambdas/provider/index.js';
import { SimAdminClient } from '../../../local/eks-sim/admin-client.js';
import { startEksSimulator } from '../../../local/eks-sim/server.js';
import { MOTO_ACCOUNT, startMoto } from './moto.js';

export type ServerKind = 'sim' | 'moto';

export interface Target {
  readonly kind: ServerKind;
  readonly url: string;
  readonly accountId: string;
  /** Present for the simulator only. */
  readonly admin?: SimAdminClient;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export const REGION = 'us-east-1';
export const TEST_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
/** Retries stay bounded as in production, with millisecond backoff so tests are quick. */
export const FAST_RETRY = { baseDelayMs: 1, throttlingBaseDelayMs: 2, maxDelayMs: 20 };

export async function startTarget(kind: ServerKind): Promise<Target> {
  if (kind === 'moto') {
    const moto = await startMoto();
    return { kind, url: moto.url, accountId: MOTO_ACCOUNT, reset: moto.reset, close: moto.close };
  }
  // Fast enough that transitions finish between polls, slow enough that CREATING is observable.
  const sim = await startEksSimulator({ seed: 7, speed: 20_000, accountId: '000000000000' });
  const admin = new SimAdminClient(sim.url, REGION);
  return {
    kind,
    url: sim.url,
    accountId: '000000000000',
    admin,
    reset: async () => {
      await admin.reset();
    },
    close: sim.close,
  };
}

export function providerFor(url: string, opts: EksProviderOptions = {}): EksProvider {
  return new EksProvider({ endpoint: url, credentials: TEST_CREDENTIALS, retry: FAST_RETRY, ...opts });
}

export const roleArn = (account: string, name: string) => `arn:aws:iam::${account}:role/${name}`;
