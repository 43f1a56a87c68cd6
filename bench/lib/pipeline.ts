/** The embedded control plane with the benchmarks' probes, and readers of the local execution log. */

import type { CloudClusterSpec } from '../../lambdas/core/spec/schema.js';
import {
  type ControlPlane,
  type ControlPlaneOptions,
  startControlPlane,
} from '../../local/runtime/control-plane.js';
import type { ExecutionEvent } from '../../local/sfn/interpreter.js';
import { benchSpec, type Member } from './fleet.js';
import { installStepProbe, type Metered, meter } from './probes.js';

/** Fast EKS (speed 4000: a 10-minute create takes 150 ms) and Waits scaled to 1/500. */
export const FAST: ControlPlaneOptions = { simSpeed: 4000, waitScale: 0.002, retryIntervalMs: 5 };

export async function startBench(opts: ControlPlaneOptions = {}): Promise<{ cp: ControlPlane; m: Metered }> {
  installStepProbe();
  const cp = await startControlPlane({ ...FAST, ...opts });
  return { cp, m: meter(cp) };
}

/** Creates every member through the real pipeline and waits until all executions are done. */
export async function converge(
  cp: ControlPlane,
  m: Metered,
  fleet: readonly Member[],
  specOf: (f: Member) => CloudClusterSpec = (f) => benchSpec(f.name, f.region),
): Promise<void> {
  for (const f of fleet) await m.store.applySpec(f.id, specOf(f));
  await cp.settle();
  for (const f of fleet) {
    const r = await m.store.get(f.id);
    if (!r?.status?.ready) throw new Error(`${f.id} did not converge: ${r?.status?.conditions[0]?.reason}`);
  }
}

/** The execution-name prefix of a record (execution-name.ts slugs the id). */
export const slugOf = (id: string) => id.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40);

export interface ExecutionTiming {
  readonly name: string;
  readonly startedAt: number;
  readonly events: readonly ExecutionEvent[];
}

/** Closed executions of one record started at or after `since`, oldest first, with their event logs. */
export function executionsOf(cp: ControlPlane, id: string, since: number): ExecutionTiming[] {
  const slug = `${slugOf(id)}-`;
  return cp.sfn
    .executions()
    .filter((e) => e.name.startsWith(slug) && e.startDate.getTime() >= since)
    .reverse()
    .map((e) => ({ name: e.name, startedAt: e.startDate.getTime(), events: cp.sfn.events(e.executionArn) }));
}

/**
 * Splits an execution's event log into passes: Observe entered -> the pass's last Task exited
 * (RecordProgress after an apply, WriteStatus at the end). Wait states are between passes, so
 * these durations exclude the simulated AWS waits.
 */
export function passes(
  events: readonly ExecutionEvent[],
): { kind: 'apply' | 'wait' | 'final'; ms: number }[] {
  const out: { kind: 'apply' | 'wait' | 'final'; ms: number }[] = [];
  let start: number | undefined;
  for (const e of events) {
    if (!('state' in e)) continue;
    const name = e.state.name;
    if (e.type === 'StateEntered' && name === 'Observe') start = e.timestamp;
    if (start === undefined) continue;
    if (e.type === 'StateExited' && name === 'RecordProgress') {
      out.push({ kind: 'apply', ms: e.timestamp - start });
      start = undefined;
    } else if (e.type === 'StateEntered' && name === 'WaitForEks') {
      out.push({ kind: 'wait', ms: e.timestamp - start });
      start = undefined;
    } else if (e.type === 'StateExited' && name === 'WriteStatus') {
      out.push({ kind: 'final', ms: e.timestamp - start });
      start = undefined;
    }
  }
  return out;
}

/** Milliseconds spent in Wait states (the simulated time EKS works). */
export function waitMs(events: readonly ExecutionEvent[]): number {
  let total = 0;
  let entered: number | undefined;
  for (const e of events) {
    if (!('state' in e) || e.state.type !== 'Wait') continue;
    if (e.type === 'StateEntered') entered = e.timestamp;
    if (e.type === 'StateExited' && entered !== undefined) total += e.timestamp - entered;
  }
  return total;
}

/** Billed state transitions: every state entered, plus every retry (AWS counts retries too). */
export function transitions(events: readonly ExecutionEvent[]): number {
  return events.filter((e) => e.type === 'StateEntered' || e.type === 'StateRetried').length;
}

export function span(events: readonly ExecutionEvent[]): number {
  return events.length > 1 ? events[events.length - 1]!.timestamp - events[0]!.timestamp : 0;
}
