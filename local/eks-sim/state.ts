/**
 * The simulator's state: clusters per account and region, the accounts' roles and issued credentials, a clock with a speed factor (plus an admin offset so
 * tests can jump ahead without waiting), lazily applied transitions, and the idempotency-token store.
 * Everything random comes from one seeded PRNG, so a run is reproducible under its seed.
 */
import { Accounts } from './accounts.js';
import {
  type ClusterRec,
  DEFAULT_CONFIG,
  DEFAULT_DURATIONS,
  type NodegroupRec,
  Prng,
  type SimConfig,
  SimError,
  type UpdateRec,
} from './model.js';
import { clusterNotFound, nodegroupNotFound } from './rules.js';

export type SimOptions = Partial<Omit<SimConfig, 'durations'>> & {
  readonly durations?: Partial<SimConfig['durations']>;
  /** Wall clock in ms; injectable for tests of the clock itself. */
  readonly clock?: () => number;
};

export function resolveConfig(opts: SimOptions = {}): SimConfig {
  const { clock: _clock, durations, ...rest } = opts;
  const config: SimConfig = {
    ...DEFAULT_CONFIG,
    ...rest,
    durations: { ...DEFAULT_DURATIONS, ...durations },
  };
  if (!(config.speed > 0)) throw new RangeError(`speed must be > 0, got ${config.speed}`);
  if (!(Number.isInteger(config.clustersPerRegion) && config.clustersPerRegion >= 0)) {
    throw new RangeError(`clustersPerRegion must be a non-negative integer, got ${config.clustersPerRegion}`);
  }
  return config;
}

interface StoredResponse {
  readonly fingerprint: string;
  readonly body: unknown;
}

export class SimState {
  readonly config: SimConfig;
  private readonly clock: () => number;
  private offset = 0;
  rng: Prng;
  /** Keyed by `account|region`. */
  private regions = new Map<string, Map<string, ClusterRec>>();
  private tokens = new Map<string, StoredResponse>();
  readonly accounts: Accounts;

  constructor(opts: SimOptions = {}) {
    this.config = resolveConfig(opts);
    this.clock = opts.clock ?? Date.now;
    this.rng = new Prng(this.config.seed);
    const account = this.config.accountId;
    // The fixed, clearly simulated role every request not signed with issued credentials comes from.
    this.accounts = new Accounts(account, {
      account,
      principalArn: `arn:aws:iam::${account}:role/eks-sim-caller`,
      arn: `arn:aws:sts::${account}:assumed-role/eks-sim-caller/eks-sim`,
      userId: 'AROAEKSSIMCALLER00000:eks-sim',
    });
  }

  now(): number {
    return this.clock() + this.offset;
  }

  /** Moves simulated time forward; pending transitions due by then apply on the next access. */
  advance(ms: number): void {
    this.offset += ms;
  }

  /** A duration at speed 1, scaled by the speed factor. */
  after(durationMs: number): number {
    return this.now() + durationMs / this.config.speed;
  }

  reset(seed = this.config.seed): void {
    this.regions.clear();
    this.tokens.clear();
    this.accounts.reset();
    this.offset = 0;
    this.rng = new Prng(seed);
  }

  /** The clusters of one region of one account (the default account unless named). */
  clusters(region: string, account = this.config.accountId): Map<string, ClusterRec> {
    const key = `${account}|${region}`;
    let m = this.regions.get(key);
    if (!m) {
      m = new Map();
      this.regions.set(key, m);
    }
    return m;
  }

  allClusters(): ClusterRec[] {
    return [...this.regions.values()].flatMap((m) => [...m.values()]);
  }

  cluster(region: string, name: string, account = this.config.accountId): ClusterRec {
    const c = this.clusters(region, account).get(name);
    if (!c) throw clusterNotFound(name);
    return c;
  }

  nodegroup(c: ClusterRec, name: string): NodegroupRec {
    const ng = c.nodegroups.get(name);
    if (!ng) throw nodegroupNotFound(c.name, name);
    return ng;
  }

  /**
   * Idempotent replay: the same token with the same parameters returns the first response; the same
   * token with other parameters is refused (EKS documents no contract here; 400 is our choice).
   */
  idempotent(key: string | undefined, fingerprint: string, produce: () => unknown): unknown {
    if (key === undefined) return produce();
    const seen = this.tokens.get(key);
    if (seen) {
      if (seen.fingerprint !== fingerprint) {
        throw new SimError(
          400,
          'InvalidParameterException',
          'The client request token was already used with different parameters', // [sim]
        );
      }
      return seen.body;
    }
    const body = produce();
    this.tokens.set(key, { fingerprint, body });
    return body;
  }

  /** Applies every transition and update completion that is due. Called before each request. */
  tick(): void {
    const now = this.now();
    for (const [key, clusters] of this.regions) {
      for (const c of [...clusters.values()]) {
        this.tickUpdates(c, now);
        for (const ng of [...c.nodegroups.values()]) {
          if (ng.transition && ng.transition.at <= now) {
            if (ng.transition.to === null) c.nodegroups.delete(ng.name);
            else ng.status = ng.transition.to;
            ng.transition = undefined;
          }
        }
        if (c.transition && c.transition.at <= now) {
          if (c.transition.to === null) clusters.delete(c.name);
          else c.status = c.transition.to;
          c.transition = undefined;
        }
      }
      if (clusters.size === 0) this.regions.delete(key);
    }
  }

  private tickUpdates(c: ClusterRec, now: number): void {
    for (const u of c.updates) {
      if (u.status !== 'InProgress') continue;
      const ng = u.nodegroupName === undefined ? undefined : c.nodegroups.get(u.nodegroupName);
      if (u.visibleAt <= now) setStatus(c, ng, 'UPDATING');
      if (u.doneAt > now) continue;
      if (u.failure) {
        u.status = 'Failed';
        u.errors = [{ ...u.failure, resourceIds: [u.nodegroupName ?? c.name] }];
      } else {
        u.status = 'Successful';
        u.effect();
      }
      // "When the update is complete (either Failed or Successful), the cluster status moves to Active."
      setStatus(c, ng, 'ACTIVE');
      if (ng) ng.modifiedAt = now;
    }
  }

  /** Starts an update; its outcome is decided now (a pending admin failure applies to this one). */
  startUpdate(
    c: ClusterRec,
    fields: Pick<UpdateRec, 'type' | 'params' | 'effect'> & { nodegroupName?: string },
    durationMs: number,
  ): UpdateRec {
    const scope = fields.nodegroupName ?? '';
    const failCode = c.failNext.get(scope);
    c.failNext.delete(scope);
    const now = this.now();
    const u: UpdateRec = {
      id: this.rng.uuid(),
      status: 'InProgress',
      createdAt: now,
      visibleAt: this.after(this.config.durations.statusLag),
      doneAt: this.after(durationMs),
      errors: [],
      ...fields,
      ...(failCode ? { failure: { errorCode: failCode, errorMessage: `Update failed: ${failCode}` } } : {}),
    };
    c.updates.push(u);
    return u;
  }
}

function setStatus(c: ClusterRec, ng: NodegroupRec | undefined, to: 'ACTIVE' | 'UPDATING'): void {
  const target = ng ?? c;
  if (target.status !== 'ACTIVE' && target.status !== 'UPDATING' && target.status !== 'DEGRADED') return;
  if (to === 'ACTIVE' && ng && ng.healthIssues.length > 0) ng.status = 'DEGRADED';
  else target.status = to;
}
