/**
 * Leader election on a coordination.k8s.io Lease, so replicas do not fight over finalizers and
 * records: every replica watches and serves the webhook; only the leader writes. Acquire and renew
 * are replace calls conditional on the Lease's resourceVersion (409 means someone else won). A
 * leader that cannot renew before the lease expires stops leading (main.ts then exits, and the pod
 * restarts as a follower) rather than risk two writers.
 *
 * An election that can never succeed (the Lease namespace missing, RBAC forbidding leases) is not
 * "just a follower": after {@link LeaderOptions.failureThreshold} failed attempts in a row,
 * {@link LeaderElector.health} names the reason, and the mirror's health reports it. It keeps trying,
 * so fixing the cause heals it. Losing a race for the Lease (409, or another holder) is not a failure.
 */
import {
  ApiException,
  CoordinationV1Api,
  type KubeConfig,
  type V1Lease,
  V1MicroTime,
} from '@kubernetes/client-node';
import { describeError } from './api-errors.js';
import { sleep } from './retry.js';

export interface LeaderOptions {
  readonly kc: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationSeconds: number;
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
  readonly log: (m: string) => void;
  /** Failed attempts in a row before {@link LeaderElector.health} reports a reason; default 3. */
  readonly failureThreshold?: number;
  /** Called once each time the election starts failing (reaches the threshold). */
  readonly onFailing?: (reason: string) => void;
}

export const DEFAULT_FAILURE_THRESHOLD = 3;

export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private leading = false;
  private lastRenew = 0;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private failures = 0;
  private lastError = '';

  constructor(private readonly opts: LeaderOptions) {
    this.api = opts.kc.makeApiClient(CoordinationV1Api);
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Undefined while the election works (leading or not); a reason once it keeps failing. */
  health(): string | undefined {
    const threshold = this.opts.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD;
    if (this.failures < threshold) return undefined;
    return `cannot take Lease ${this.opts.namespace}/${this.opts.name} (${this.failures} failed attempts in a row): ${this.lastError}`;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.leading) await this.release();
  }

  private async run(): Promise<void> {
    const period = (this.opts.leaseDurationSeconds * 1000) / 3;
    while (!this.abort.signal.aborted) {
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew();
        this.failures = 0;
      } catch (err) {
        this.failures++;
        this.lastError = describeError(err);
        this.opts.log(`lease ${this.opts.namespace}/${this.opts.name}: ${this.lastError}`);
        const reason =
          this.failures === (this.opts.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD) && this.health();
        if (reason) this.opts.onFailing?.(reason);
      }
      const now = Date.now();
      if (ok) this.lastRenew = now;
      if (ok && !this.leading) {
        this.leading = true;
        this.opts.log(`became leader as ${this.opts.identity}`);
        this.opts.onStartedLeading();
      } else if (!ok && this.leading && now - this.lastRenew > period * 2) {
        // Renew deadline (two thirds of the lease) passed: another replica may take over soon.
        this.leading = false;
        this.opts.log('lost leadership: could not renew the lease in time');
        this.opts.onStoppedLeading();
      }
      await sleep(period * (0.8 + Math.random() * 0.4), this.abort.signal);
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity, leaseDurationSeconds } = this.opts;
    const now = new V1MicroTime(Date.now());
    let lease: V1Lease;
    try {
      lease = await this.api.readNamespacedLease({ namespace, name });
    } catch (err) {
      if (!(err instanceof ApiException) || err.code !== 404) throw err;
      await this.api.createNamespacedLease({
        namespace,
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: 0,
          },
        },
      });
      return true;
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity;
    const renewedAt = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
    const expired = renewedAt + (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000 < Date.now();
    if (holder && holder !== identity && !expired) return false;
    const taking = holder !== identity;
    lease.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds,
      renewTime: now,
      ...(taking ? { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 } : {}),
    };
    try {
      await this.api.replaceNamespacedLease({ namespace, name, body: lease });
      return true;
    } catch (err) {
      if (err instanceof ApiException && err.code === 409) return false;
      throw err;
    }
  }

  private async release(): Promise<void> {
    try {
      const lease = await this.api.readNamespacedLease({
        namespace: this.opts.namespace,
        name: this.opts.name,
      });
      if (lease.spec?.holderIdentity !== this.opts.identity) return;
      lease.spec = { ...lease.spec, holderIdentity: '' };
      await this.api.replaceNamespacedLease({
        namespace: this.opts.namespace,
        name: this.opts.name,
        body: lease,
      });
    } catch (err) {
      this.opts.log(`lease release failed (it expires on its own): ${describeError(err)}`);
    }
  }
}
