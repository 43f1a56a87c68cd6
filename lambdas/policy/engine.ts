/**
 * The policy engine: one compiled bundle, loaded once per process and evaluated in-process.
 *
 * It fails closed. Without a usable bundle every decision is a deny with rule
 * `policy-engine-degraded` and {@link PolicyEngine.health} reports `degraded`; an evaluation that
 * throws or returns a malformed decision is a deny with rule `policy-evaluation-failed`. A new
 * bundle is loaded and self-checked completely before it replaces the old one in a single
 * assignment, and a bundle that fails any step is refused while the old one keeps serving.
 */
import { type LoadedPolicy, loadPolicy } from '@open-policy-agent/opa-wasm';
import type { PolicyDecision, PolicyInput } from '../core/policy-input.js';
import { builtinsOf, OMITTED_BUILTINS } from './builtins.js';
import { parseBundle } from './bundle.js';
import { denyDecision, ENGINE_RULES, parseDecision } from './decision.js';
import { PolicyBundleError } from './errors.js';
import type { BundleSource } from './sources.js';

export const ENTRYPOINT = 'cloudorch/decision';

export interface PolicyEngineHealth {
  readonly status: 'ok' | 'degraded';
  /** Why the engine is degraded. */
  readonly reason?: string;
  readonly source: string;
  /** ETag (S3) or content hash (file) of the bundle serving now. */
  readonly bundleVersion?: string;
  /** The bundle's `.manifest` revision (a hash of the policy sources). */
  readonly revision?: string;
  readonly loadedAt?: string;
  readonly lastCheckAt?: string;
  /** The last refused reload, while the previous bundle keeps serving. */
  readonly lastReloadError?: string;
  /** Evaluations that failed since the process started. */
  readonly evaluationErrors: number;
}

/** A decision and the bundle that made it (`null` when none did: the engine was degraded). */
export interface EngineDecision extends PolicyDecision {
  readonly bundleVersion: string | null;
}

export type ReloadResult = 'loaded' | 'unchanged' | 'refused' | 'skipped';

export interface PolicyEngineOptions {
  readonly source: BundleSource;
  /** Minimum time between two bundle checks by {@link PolicyEngine.decide} (default 60 s). */
  readonly reloadIntervalMs?: number;
  /** Injected for tests; milliseconds since the epoch. */
  readonly clock?: () => number;
}

interface Loaded {
  readonly policy: LoadedPolicy;
  readonly version: string;
  readonly revision: string | undefined;
  readonly loadedAt: string;
}

function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return typeof e === 'string' ? e : JSON.stringify(e);
}

export class PolicyEngine {
  private current: Loaded | undefined;
  private degradedReason = 'no policy bundle loaded yet';
  private lastCheckAt: number | undefined;
  private lastReloadError: string | undefined;
  private evaluationErrors = 0;
  private first: Promise<void> | undefined;
  private inFlight: Promise<ReloadResult> | undefined;
  private readonly source: BundleSource;
  private readonly intervalMs: number;
  private readonly clock: () => number;

  constructor(opts: PolicyEngineOptions) {
    this.source = opts.source;
    this.intervalMs = opts.reloadIntervalMs ?? 60_000;
    this.clock = opts.clock ?? Date.now;
  }

  /** Loads the bundle the first time it is called; later calls return the same promise. Never rejects. */
  ready(): Promise<void> {
    this.first ??= this.reload().then(() => undefined);
    return this.first;
  }

  /**
   * Evaluates one input on the bundle serving at the moment of the call. Synchronous and never
   * throws: every failure is a deny.
   */
  evaluate(input: PolicyInput): EngineDecision {
    // The one read of the reference: a swap during or after this call does not affect it.
    const loaded = this.current;
    if (!loaded) {
      return {
        ...denyDecision(ENGINE_RULES.degraded, `policy engine degraded: ${this.degradedReason}`),
        bundleVersion: null,
      };
    }
    try {
      return { ...parseDecision(loaded.policy.evaluate(input, ENTRYPOINT)), bundleVersion: loaded.version };
    } catch (e) {
      this.evaluationErrors += 1;
      return {
        ...denyDecision(ENGINE_RULES.evaluationFailed, `policy evaluation failed: ${describe(e)}`),
        bundleVersion: loaded.version,
      };
    }
  }

  /** What a handler calls: load once, check for a new bundle at most every interval, evaluate. */
  async decide(input: PolicyInput): Promise<EngineDecision> {
    await this.ready();
    await this.reloadIfDue();
    return this.evaluate(input);
  }

  /** Checks the source unless the last check was less than the interval ago. */
  reloadIfDue(): Promise<ReloadResult> {
    const last = this.lastCheckAt;
    if (last !== undefined && this.clock() - last < this.intervalMs) return Promise.resolve('skipped');
    return this.reload();
  }

  /**
   * Fetches the bundle now and swaps it in if it changed and passes every check. Concurrent calls
   * share one fetch. Never rejects: a failure is recorded in health.
   */
  reload(): Promise<ReloadResult> {
    this.inFlight ??= this.fetchAndSwap().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  health(): PolicyEngineHealth {
    const c = this.current;
    return {
      status: c ? 'ok' : 'degraded',
      ...(c ? {} : { reason: this.degradedReason }),
      source: this.source.description,
      ...(c ? { bundleVersion: c.version, loadedAt: c.loadedAt } : {}),
      ...(c?.revision ? { revision: c.revision } : {}),
      ...(this.lastCheckAt !== undefined ? { lastCheckAt: new Date(this.lastCheckAt).toISOString() } : {}),
      ...(this.lastReloadError ? { lastReloadError: this.lastReloadError } : {}),
      evaluationErrors: this.evaluationErrors,
    };
  }

  private async fetchAndSwap(): Promise<ReloadResult> {
    this.lastCheckAt = this.clock();
    try {
      const fetched = await this.source.fetch(this.current?.version);
      if (!fetched.changed) return 'unchanged';
      const next = await prepare(fetched.bytes, fetched.version, new Date(this.clock()).toISOString());
      this.current = next; // the swap: one assignment, after the new bundle passed every check
      this.lastReloadError = undefined;
      return 'loaded';
    } catch (e) {
      const reason = describe(e);
      if (this.current) this.lastReloadError = `${new Date(this.clock()).toISOString()} ${reason}`;
      else this.degradedReason = reason;
      return 'refused';
    }
  }
}

/** Canary for the self-check: an empty input must be denied by any real CloudOrch bundle. */
const EMPTY_INPUT = {};

/** Parses, instantiates and self-checks a bundle; throws {@link PolicyBundleError} on any failure. */
async function prepare(bytes: Uint8Array, version: string, loadedAt: string): Promise<Loaded> {
  const bundle = parseBundle(bytes);
  let policy: LoadedPolicy;
  try {
    policy = await loadPolicy(bundle.wasm);
  } catch (e) {
    throw new PolicyBundleError(`policy.wasm does not load: ${describe(e)}`, { cause: e });
  }
  if (!Object.hasOwn(policy.entrypoints, ENTRYPOINT)) {
    throw new PolicyBundleError(`bundle has no entrypoint ${ENTRYPOINT} (build with -e ${ENTRYPOINT})`);
  }
  const omitted = builtinsOf(policy).filter((b) => OMITTED_BUILTINS.includes(b));
  if (omitted.length > 0)
    throw new PolicyBundleError(
      `bundle calls ${omitted.join(', ')}, which the policy function does not include; ` +
        'remove the call and build with `cloudorch policy build`, whose capabilities leave them out',
    );
  try {
    policy.setData(bundle.data);
  } catch (e) {
    throw new PolicyBundleError(`bundle data does not load: ${describe(e)}`, { cause: e });
  }
  let canary: PolicyDecision;
  try {
    canary = parseDecision(policy.evaluate(EMPTY_INPUT, ENTRYPOINT));
  } catch (e) {
    throw new PolicyBundleError(`bundle self-check failed: ${describe(e)}`, { cause: e });
  }
  if (canary.allow) throw new PolicyBundleError('bundle self-check failed: it allows an empty input');
  return { policy, version, revision: bundle.revision, loadedAt };
}
