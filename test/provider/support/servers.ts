/**
 * The two servers the conformance suite runs against, behind one small interface, and the provider on
 * the shared simulator harness for the provider's other tests.
 */

import { afterAll, beforeAll } from 'vitest';
import { EksProvider, type EksProviderOptions } from '../../../lambdas/provider/eks-provider.js';
import type { SimAdminClient } from '../../../local/eks-sim/admin-client.js';
import { DEFAULT_DURATIONS } from '../../../local/eks-sim/index.js';
import type { StartOptions } from '../../../local/eks-sim/server.js';
import { harness, type SimClients, type UseSimulatorOptions, useSimulator } from '../../eks-sim/support.js';
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
  // Fast enough that transitions finish between polls, slow enough that CREATING is observable. A
  // control-plane upgrade lasts about a second here (45 ms at the default duration), so the conformance
  // case that observes it InProgress right after the call still does on a loaded machine.
  const durations = {
    ...DEFAULT_DURATIONS,
    clusterVersionUpdate: 20 * DEFAULT_DURATIONS.clusterVersionUpdate,
  };
  const h = await harness({ seed: 7, speed: 20_000, accountId: '000000000000', durations }, REGION);
  return {
    kind,
    url: h.sim.url,
    accountId: '000000000000',
    admin: h.admin,
    reset: async () => {
      await h.admin.reset();
    },
    close: h.close,
  };
}

export function providerFor(url: string, opts: EksProviderOptions = {}): EksProvider {
  return new EksProvider({ endpoint: url, credentials: TEST_CREDENTIALS, retry: FAST_RETRY, ...opts });
}

export const roleArn = (account: string, name: string) => `arn:aws:iam::${account}:role/${name}`;

export interface SimProvider extends SimClients {
  /** A provider on the simulator ({@link providerFor}), built once for the block. */
  readonly provider: EksProvider;
}

/**
 * The shared simulator harness (`useSimulator` in test/eks-sim/support.ts) with a provider on it, for
 * a test file or describe block; the provider's clients are destroyed before the simulator closes.
 */
export function useSimProvider(opts: StartOptions, use: UseSimulatorOptions = {}): SimProvider {
  const h = useSimulator(opts, use);
  let provider: EksProvider | undefined;
  beforeAll(() => {
    provider = providerFor(h.sim.url);
  });
  afterAll(() => {
    provider?.clients.destroy();
  });
  return {
    get sim() {
      return h.sim;
    },
    get admin() {
      return h.admin;
    },
    get eks() {
      return h.eks;
    },
    get provider() {
      if (!provider) throw new Error('the provider exists only while the block runs');
      return provider;
    },
  };
}
