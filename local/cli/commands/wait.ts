/**
 * `apply --wait` and `delete --wait`: follow each cluster's record until it reaches its goal (Ready at
 * the applied generation, or gone), shows a failure that needs a human, or the timeout passes. The
 * judging and the line of each state are pure; `waitFor` is the poll loop around them.
 */
import type { Command } from 'commander';
import { ConditionType, getCondition, Reason } from '../../../lambdas/core/conditions.js';
import type { ParsedItem } from '../../../lambdas/store/record.js';
import type { ClusterRecord, DesiredStateStore } from '../../../lambdas/store/types.js';
import type { Output } from '../format.js';
import { EXIT } from './exit.js';

/** A `--timeout` that is not a duration, or given without `--wait`. */
export class WaitOptionError extends Error {
  override readonly name = 'WaitOptionError';
}

export const DEFAULT_TIMEOUT = '30m';
/** Bounded polling: often enough to follow a local dev, rare enough for a table in AWS. */
export const POLL_INTERVAL_MS = 1_000;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** `90s`, `10m`, `1h`, `1h30m`, `500ms` to milliseconds; a bare number has no unit and is refused. */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (!/^(?:\d+(?:\.\d+)?(?:ms|h|m|s))+$/.test(s))
    throw new WaitOptionError(
      `invalid duration "${text}": use a number with a unit (ms, s, m, h), e.g. 90s, 10m, 1h or 1h30m`,
    );
  let ms = 0;
  for (const [, n, unit] of s.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g))
    ms += Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS];
  if (ms <= 0) throw new WaitOptionError(`invalid duration "${text}": it must be longer than zero`);
  return ms;
}

/**
 * Ready False for one of these reasons does not fix itself: it needs a change (spec, policy, policy
 * bundle, the cluster's tags or the table item), an approval, or a human in EKS. Waiting stops there. Transient
 * errors, work in progress and an unreadable EKS (ObserveFailed) are waited out.
 */
export const TERMINAL_REASONS: ReadonlySet<Reason> = new Set<Reason>([
  Reason.PolicyViolation,
  Reason.PolicyEngineDegraded,
  Reason.SpecInvalid,
  Reason.PermanentError,
  Reason.ImpossibleChange,
  Reason.NotOwned,
  Reason.OwnershipLost,
  Reason.TargetClaimed,
  Reason.RecordInvalid,
  Reason.DeletionStuck,
  /** Nothing runs until a human approves the held operation. */
  Reason.ApprovalRequired,
  /** Denied (or not approved in time) for this generation: nothing runs until the spec changes. */
  Reason.ApprovalDenied,
  Reason.ApprovalTimedOut,
]);

/** What one cluster is waited for: Ready at the generation apply wrote, or its record gone. */
export type Goal =
  | { readonly kind: 'ready'; readonly generation: number }
  | { readonly kind: 'gone'; readonly requestedAt: string };

export interface WaitTarget {
  readonly id: string;
  readonly goal: Goal;
}

export type Verdict =
  | { readonly state: 'done'; readonly detail: string }
  | { readonly state: 'failed'; readonly reason: string; readonly detail: string }
  | { readonly state: 'waiting'; readonly detail: string };

/** The Ready condition as a line: `Ready False Progressing: create cluster ...`. */
function readyText(r: ClusterRecord): string {
  const c = r.status ? getCondition(r.status.conditions, ConditionType.Ready) : undefined;
  return c ? `Ready ${c.status} ${c.reason}: ${c.message}` : 'no status yet';
}

/** A terminal Ready False written no earlier than `since` (a generation, or a time). */
function terminal(
  r: ClusterRecord,
  fresh: (c: { observedGeneration: number }) => boolean,
): Verdict | undefined {
  const c = r.status ? getCondition(r.status.conditions, ConditionType.Ready) : undefined;
  if (c?.status === 'False' && TERMINAL_REASONS.has(c.reason) && fresh(c))
    return { state: 'failed', reason: c.reason, detail: c.message };
  return undefined;
}

function judgeReady(generation: number, r: ClusterRecord): Verdict {
  if (r.deletionRequestedAt)
    return {
      state: 'failed',
      reason: 'Deleting',
      detail: `deletion was requested at ${r.deletionRequestedAt}`,
    };
  const s = r.status;
  if (s && s.observedGeneration >= generation && s.ready)
    return { state: 'done', detail: `Ready (generation ${s.observedGeneration})` };
  // A failure of an older generation says nothing about the one just applied.
  const failed = terminal(r, (c) => c.observedGeneration >= generation);
  if (failed) return failed;
  const behind =
    !s || s.observedGeneration < generation
      ? ` (generation ${generation} not observed yet${s ? `, last ${s.observedGeneration}` : ''})`
      : '';
  return { state: 'waiting', detail: `${readyText(r)}${behind}` };
}

function judgeGone(requestedAt: string, r: ClusterRecord): Verdict {
  // Only a status written after the deletion request speaks about the deletion.
  const after = r.status !== undefined && Date.parse(r.status.updatedAt) >= Date.parse(requestedAt);
  return terminal(r, () => after) ?? { state: 'waiting', detail: `deleting: ${readyText(r)}` };
}

/** Where one cluster stands against its goal, from its item as the store parses it (undefined: gone). */
export function judge(goal: Goal, item: ParsedItem | undefined): Verdict {
  if (!item || item.kind === 'claim')
    return goal.kind === 'gone'
      ? { state: 'done', detail: 'deleted (record released)' }
      : { state: 'failed', reason: 'RecordGone', detail: 'the record was deleted while waiting' };
  if (item.kind === 'invalid')
    return { state: 'failed', reason: Reason.RecordInvalid, detail: item.invalid.reason };
  return goal.kind === 'ready'
    ? judgeReady(goal.generation, item.record)
    : judgeGone(goal.requestedAt, item.record);
}

/** One cluster's line: the same text on a terminal and in a log. */
export function lineOf(id: string, v: Verdict): string {
  const what =
    v.state === 'failed'
      ? `failed: ${v.reason}: ${v.detail}`
      : v.state === 'done'
        ? v.detail
        : `waiting: ${v.detail}`;
  return `cloudcluster/${id} ${what}`;
}

/** Where the lines go: a terminal gets one live line per cluster, anything else a log of changes. */
export interface Screen {
  readonly isTTY: boolean;
  /** Terminal width: live lines are cut to it, so that rewriting them in place stays aligned. */
  readonly columns?: number;
  write(text: string): void;
}

/**
 * The text that shows `lines` (in target order) after `shown` was shown: on a terminal every line
 * rewritten in place (cursor up, clear, rewrite), elsewhere only the lines that changed.
 */
export function frame(
  screen: Pick<Screen, 'isTTY' | 'columns'>,
  shown: readonly string[],
  lines: readonly string[],
): string {
  if (!screen.isTTY)
    return lines
      .filter((l, i) => l !== shown[i])
      .map((l) => `${l}\n`)
      .join('');
  if (shown.length > 0 && lines.every((l, i) => l === shown[i])) return '';
  const width = screen.columns && screen.columns > 1 ? screen.columns - 1 : undefined;
  const clip = (l: string) => (width && l.length > width ? `${l.slice(0, width - 1)}…` : l);
  const up = shown.length > 0 ? `\u001b[${shown.length}A` : '';
  return `${up}${lines.map((l) => `\r\u001b[2K${clip(l)}\n`).join('')}`;
}

export interface WaitRequest {
  readonly timeoutMs: number;
  /** As typed, for the messages. */
  readonly timeoutText: string;
}

/** The two options, the same on every command that waits. */
export function addWaitOptions(cmd: Command, goal: string): Command {
  return cmd
    .option('--wait', `follow each cluster until ${goal}; exit 1 naming each that did not`)
    .option('--timeout <duration>', `how long --wait waits (e.g. 90s, 10m, 1h; default ${DEFAULT_TIMEOUT})`);
}

/** The wait the options ask for; `--timeout` without `--wait` would be silently ignored, so it is refused. */
export function waitRequest(opts: { wait?: boolean; timeout?: string }): WaitRequest | undefined {
  if (!opts.wait) {
    if (opts.timeout !== undefined) throw new WaitOptionError('--timeout applies only with --wait');
    return undefined;
  }
  const timeoutText = opts.timeout ?? DEFAULT_TIMEOUT;
  return { timeoutMs: parseDuration(timeoutText), timeoutText };
}

export interface WaitDeps {
  readonly screen: Screen;
  readonly intervalMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

const defaultDeps = (): WaitDeps => ({
  screen: process.stdout,
  intervalMs: POLL_INTERVAL_MS,
  now: Date.now,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
});

async function observe(store: Pick<DesiredStateStore, 'inspect'>, t: WaitTarget): Promise<Verdict> {
  try {
    return judge(t.goal, await store.inspect(t.id));
  } catch (err) {
    // A failed read is not a verdict on the cluster: say so and read again until the timeout.
    return {
      state: 'waiting',
      detail: `the record could not be read (${err instanceof Error ? err.message : String(err)})`,
    };
  }
}

const goalText = (g: Goal) => (g.kind === 'ready' ? 'become Ready' : 'be deleted');

/**
 * Polls every target until each is done or failed, or the timeout passes; exit 0 when all reached
 * their goal, else 1 with a summary on stderr naming each cluster that did not, and why.
 */
export async function waitFor(
  store: Pick<DesiredStateStore, 'inspect'>,
  o: Output,
  targets: readonly WaitTarget[],
  req: WaitRequest,
  deps: WaitDeps = defaultDeps(),
): Promise<number> {
  const deadline = deps.now() + req.timeoutMs;
  const verdicts = new Map<string, Verdict>();
  let shown: string[] = [];
  const show = () => {
    const lines = targets.map((t) => lineOf(t.id, verdicts.get(t.id) ?? { state: 'waiting', detail: '...' }));
    deps.screen.write(frame(deps.screen, shown, lines));
    shown = lines;
  };
  for (;;) {
    for (const t of targets) {
      const settled = verdicts.get(t.id);
      if (settled && settled.state !== 'waiting') continue;
      verdicts.set(t.id, await observe(store, t));
    }
    const open = targets.filter((t) => verdicts.get(t.id)?.state === 'waiting');
    const left = deadline - deps.now();
    if (open.length === 0 || left <= 0) {
      for (const t of open)
        verdicts.set(t.id, {
          state: 'failed',
          reason: 'Timeout',
          detail: `did not ${goalText(t.goal)} within --timeout ${req.timeoutText} (last: ${verdicts.get(t.id)?.detail})`,
        });
      show();
      break;
    }
    show();
    await deps.sleep(Math.min(deps.intervalMs, left));
  }
  return summarize(o, targets, verdicts);
}

function summarize(
  o: Output,
  targets: readonly WaitTarget[],
  verdicts: ReadonlyMap<string, Verdict>,
): number {
  const missed = targets.flatMap((t) => {
    const v = verdicts.get(t.id);
    return v?.state === 'failed' ? [`  ${t.id}: ${v.reason}: ${v.detail}`] : [];
  });
  if (missed.length === 0) return EXIT.ok;
  o.err(`error: ${missed.length} of ${targets.length} cluster(s) did not reach their goal:`);
  for (const line of missed) o.err(line);
  return EXIT.error;
}
