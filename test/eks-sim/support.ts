/**
 * The EKS-simulator test harness, shared by the simulator's tests and the provider's: a simulator, its
 * admin client and a raw SDK client (no retries), started once per file or describe block
 * ({@link useSimulator}), and states reached by moving the clock.
 */
import {
  CreateClusterCommand,
  type CreateClusterCommandInput,
  CreateNodegroupCommand,
  type CreateNodegroupCommandInput,
  EKSClient,
} from '@aws-sdk/client-eks';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { SimAdminClient } from '../../local/eks-sim/admin-client.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { type EksSimulator, type StartOptions, startEksSimulator } from '../../local/eks-sim/server.js';

export const REGION = 'us-east-1';
export const ROLE = 'arn:aws:iam::000000000000:role/eks';

/** A running simulator with its admin client and a raw SDK client. */
export interface SimClients {
  readonly sim: EksSimulator;
  readonly admin: SimAdminClient;
  readonly eks: EKSClient;
}

export interface Harness extends SimClients {
  close(): Promise<void>;
}

/** Speed 1: nothing completes unless a test moves the clock, so every state is reached on purpose. */
export async function harness(opts: StartOptions = {}, region = REGION): Promise<Harness> {
  const sim = await startEksSimulator({ seed: 5, speed: 1, ...opts });
  const eks = new EKSClient({
    endpoint: sim.url,
    region,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  return {
    sim,
    admin: new SimAdminClient(sim.url, region),
    eks,
    close: async () => {
      eks.destroy();
      await sim.close();
    },
  };
}

export interface UseSimulatorOptions {
  /** The region of the SDK and admin clients. */
  readonly region?: string;
  /** Reset the simulator (state, faults, clock, counts) before each test. Default true. */
  readonly reset?: boolean;
}

/**
 * One simulator for a test file or describe block: started before its tests, closed after them and,
 * unless `reset: false`, reset before each test. The returned clients read the running simulator, so
 * `const h = useSimulator()` is usable in every test of the block; the block closes it.
 */
export function useSimulator(opts: StartOptions = {}, use: UseSimulatorOptions = {}): SimClients {
  let running: Harness | undefined;
  const current = (): Harness => {
    if (!running)
      throw new Error('the simulator is not running: call useSimulator at file or describe level');
    return running;
  };
  beforeAll(async () => {
    running = await harness(opts, use.region);
  });
  afterAll(async () => {
    await running?.close();
  });
  if (use.reset ?? true) {
    beforeEach(async () => {
      await current().admin.reset();
    });
  }
  return {
    get sim() {
      return current().sim;
    },
    get admin() {
      return current().admin;
    },
    get eks() {
      return current().eks;
    },
  };
}

export const clusterInput = (over: Partial<CreateClusterCommandInput> = {}): CreateClusterCommandInput => ({
  name: 'c',
  version: '1.30',
  roleArn: ROLE,
  resourcesVpcConfig: { subnetIds: ['subnet-a', 'subnet-b'] },
  ...over,
});

export const nodegroupInput = (
  over: Partial<CreateNodegroupCommandInput> = {},
): CreateNodegroupCommandInput => ({
  clusterName: 'c',
  nodegroupName: 'ng',
  subnets: ['subnet-a'],
  nodeRole: ROLE,
  scalingConfig: { minSize: 1, maxSize: 3, desiredSize: 2 },
  ...over,
});

export async function activeCluster(
  h: SimClients,
  over: Partial<CreateClusterCommandInput> = {},
): Promise<void> {
  await h.eks.send(new CreateClusterCommand(clusterInput(over)));
  await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
}

export async function activeNodegroup(
  h: SimClients,
  over: Partial<CreateNodegroupCommandInput> = {},
): Promise<void> {
  await h.eks.send(new CreateNodegroupCommand(nodegroupInput(over)));
  await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
}

/** The error an SDK call failed with, asserted on EKS's three wire facts: status, error type, message. */
export async function expectEksError(
  call: Promise<unknown>,
  status: number,
  type: string,
  message?: string | RegExp,
): Promise<Error> {
  const e = await call.then(
    (v) => {
      throw new Error(`expected ${type}, got ${JSON.stringify(v)}`);
    },
    (err: Error) => err,
  );
  expect(e.name).toBe(type);
  expect((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(status);
  if (message !== undefined) expect(e.message).toMatch(message);
  return e;
}

/** A raw request, for bodies the SDK would never serialize. */
export async function raw(h: SimClients, method: string, path: string, body?: unknown) {
  const res = await fetch(`${h.sim.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: res.status,
    type: res.headers.get('x-amzn-errortype'),
    body: (await res.json()) as Record<string, unknown>,
  };
}
