/**
 * The one composition root. For a function it builds the clients its catalog capabilities name (the
 * store for table access, the EKS provider for eks:*, the policy engine for policy:read, Step
 * Functions for sfn:*) and nothing else, plus its configuration from the environment and a clock.
 * Lambda entries compose their own function from `process.env`; `cloudorch dev`, one process hosting
 * every function, composes every client from the environment the stack would set and the endpoints
 * of its local servers (README.md lists what else differs locally); the CLI composes the clients it
 * needs the same way.
 *
 * The makers (clients/*.ts) are handed in by the caller instead of imported here, so that a
 * function's bundle holds only the SDK clients it uses.
 */
import { ENV, SETTING_DEFAULTS } from '../config.js';
import { InternalError, PermanentError } from '../core/errors.js';
import type { FunctionKey } from '../functions/catalog.js';
import type { RetryBudget } from '../provider/retry.js';
import { defaultsFromEnv, list } from './deployment-defaults.js';
import {
  type BaseDeps,
  type ClientSlot,
  type Clients,
  DEFAULT_CONFIG,
  type GrantsOf,
  type PipelineConfig,
  type SlotOf,
  setDepsFactory,
  slotsOf,
} from './deps.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Where local servers listen. Absent in AWS, where every SDK client finds its own service. */
export interface Endpoints {
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly dynamodb: string;
  readonly eks: string;
  readonly sfn: string;
  /** Retry delays matched to a simulator that answers in milliseconds. */
  readonly eksRetry?: Partial<RetryBudget>;
}

export interface WiringInput {
  readonly env: Env;
  readonly endpoints?: Endpoints;
  /** The function composed, when one is (a Lambda entry): makers that tune per function read it. */
  readonly functionKey?: FunctionKey;
}

export interface Wiring extends WiringInput {
  /** Takes an SDK client a maker created, so that the composition can close it. */
  own<C extends { destroy(): void }>(client: C): C;
}

export type Maker<T> = (w: Wiring) => T;
type Makers = { readonly [S in ClientSlot]: Maker<Clients[S]> };

/**
 * What a function's entry hands in: a maker for each client its capabilities name, and no other,
 * each giving what they grant (the EKS reader to a function that only observes).
 */
type MakersOf<K extends FunctionKey> = {
  readonly [S in SlotOf<K>]: Maker<S extends keyof GrantsOf<K> ? GrantsOf<K>[S] : Clients[S]>;
} & {
  readonly [S in Exclude<ClientSlot, SlotOf<K>>]?: never;
};

type Built<M> = { readonly [S in keyof M]: M[S] extends Maker<infer T> ? T : never };

interface Composition<M> {
  readonly deps: BaseDeps & Built<M>;
  /** Closes every SDK client the makers created (local mode; Lambda keeps them for its lifetime). */
  close(): void;
}

/** The pipeline configuration: deployment defaults for creates, CloudOrch's own roles, fixed limits. */
function configFromEnv(env: Env): PipelineConfig {
  const ownAccountId = env[ENV.ownAccountId] || undefined;
  return {
    ...DEFAULT_CONFIG,
    defaults: defaultsFromEnv(env),
    ownRoleArns: list(env[ENV.ownRoles]) ?? [],
    ...(ownAccountId ? { ownAccountId } : {}),
  };
}

/**
 * The one reader of numeric settings: undefined when unset, malformed or below `min`, so that the
 * caller's default applies rather than "never" or "always".
 */
export function envNumber(env: Env, name: string, min = Number.MIN_VALUE): number | undefined {
  const raw = env[name]?.trim();
  const v = raw ? Number(raw) : Number.NaN;
  return Number.isFinite(v) && v >= min ? v : undefined;
}

/** The sweep's period and concurrency, as the stack set them for its Lambda. */
export function sweepSettings(env: Env = process.env): { periodSeconds: number; concurrency: number } {
  return {
    periodSeconds: envNumber(env, ENV.sweepPeriod) ?? SETTING_DEFAULTS.sweepPeriodSeconds,
    concurrency: envNumber(env, ENV.sweepConcurrency) ?? SETTING_DEFAULTS.sweepConcurrency,
  };
}

export function required(env: Env, name: string): string {
  const v = env[name];
  if (!v)
    throw new PermanentError(`${name} is not set`, {
      remediation: `Deploy the function with the CloudOrch stack, which sets ${name}.`,
    });
  return v;
}

/** SDK client options: a local server's endpoint and credentials, else the environment's region. */
export function sdkOptions(w: WiringInput, service?: 'dynamodb' | 'sfn') {
  const e = w.endpoints;
  // A service without a local server (S3: local mode reads the bundle from a file) gets no endpoint.
  if (e)
    return { ...(service ? { endpoint: e[service] } : {}), region: e.region, credentials: e.credentials };
  // An environment naming the region (the CLI's --region) wins over the SDK's own lookup.
  const region = w.env['AWS_REGION'];
  return region ? { region } : {};
}

export function compose<M extends Partial<Makers>>(makers: M, input: WiringInput): Composition<M> {
  const owned: { destroy(): void }[] = [];
  const wiring: Wiring = {
    ...input,
    own: (client) => {
      owned.push(client);
      return client;
    },
  };
  const clients = Object.fromEntries(
    Object.entries(makers).map(([slot, make]) => [slot, (make as Maker<unknown>)(wiring)]),
  ) as Built<M>;
  return {
    deps: { now: () => new Date(), config: configFromEnv(input.env), ...clients },
    close: () => {
      for (const c of owned.splice(0)) c.destroy();
    },
  };
}

/**
 * A Lambda entry's wiring: its function's deps from `process.env`, built on first use. The types
 * hold the makers to the catalog; the check holds them there at run time too.
 */
export function composeFunction<K extends FunctionKey>(key: K, makers: MakersOf<K>): void {
  const want = slotsOf(key).sort().join();
  const given = Object.keys(makers).sort().join();
  if (want !== given) throw new InternalError(`${key} needs clients [${want}], its entry gives [${given}]`);
  // Its handlers read these through depsOf(key), typed by the same grants, so the narrower clients
  // stand in for the full ones the shared composition is typed with.
  const full = makers as Partial<Makers>;
  setDepsFactory(key, () => compose(full, { env: process.env, functionKey: key }).deps);
}
