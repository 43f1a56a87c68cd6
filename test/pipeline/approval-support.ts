/** Helpers of the approval scenarios: a production spec, waiting until an execution waits, the CLI's answer. */
import { SFNClient } from '@aws-sdk/client-sfn';
import type { CloudClusterSpecInput } from '../../lambdas/core/spec/schema.js';
import { sfnCallbacksOn } from '../../lambdas/handlers/sfn-callbacks.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { type Answer, answerCommand } from '../../local/cli/commands/approve.js';
import type { Output } from '../../local/cli/format.js';
import type { Target } from '../../local/cli/target.js';
import { type Harness, LOCAL_CREDENTIALS, spec } from './support.js';

/** A production cluster the default policies allow: the core add-ons, a small size. */
export const production = (name: string, over: Partial<CloudClusterSpecInput> = {}) =>
  spec(name, {
    tags: { team: 'platform', environment: 'production' },
    addons: [{ name: 'vpc-cni' }, { name: 'coredns' }, { name: 'kube-proxy' }],
    ...over,
  });

/** The record once an execution waits for approval on it (the token stored); fails after `ms`. */
export async function waiting(h: Harness, id: string, ms = 20_000): Promise<ClusterRecord> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await h.cp.feed.drain();
    const r = await h.cp.store.get(id);
    if (r?.approval) return r;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`${id}: no execution waits for approval after ${ms} ms`);
}

/** `cloudorch approve` / `deny` against the control plane, as the CLI runs them; exit code and output. */
export async function answer(
  h: Harness,
  name: string,
  a: Answer,
): Promise<{ code: number; out: string[]; err: string[] }> {
  const client = new SFNClient({
    endpoint: h.cp.endpoints.sfn,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  const t = { kind: 'local', store: h.cp.store, callbacks: sfnCallbacksOn(client) } as unknown as Target;
  const out: string[] = [];
  const err: string[] = [];
  const o: Output = { color: false, out: (l) => out.push(l ?? ''), err: (l) => err.push(l) };
  try {
    return { code: await answerCommand(t, o, name, a), out, err };
  } finally {
    client.destroy();
  }
}
