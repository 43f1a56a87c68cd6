/**
 * `apply --wait` and `delete --wait`: the pure judging and rendering as units, then the real CLI
 * against `cloudorch dev` started as a child process (one for this file).
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Condition, REASON_HINT, Reason } from '../../lambdas/core/conditions.js';
import type { ParsedItem } from '../../lambdas/store/record.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import {
  frame,
  type Goal,
  judge,
  lineOf,
  parseDuration,
  TERMINAL_REASONS,
  WaitOptionError,
  waitFor,
  waitRequest,
} from '../../local/cli/commands/wait.js';
import type { Output } from '../../local/cli/format.js';
import { CLI, type Dev, type Result, ROOT, startDev } from './dev-child.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';

function ready(status: Condition['status'], reason: Reason, observedGeneration: number): Condition {
  return {
    type: 'Ready',
    status,
    reason,
    message: `${reason} message`,
    lastTransitionTime: T0,
    observedGeneration,
  };
}

/** A record item as the store parses it; only what judging reads is filled in. */
function item(generation: number, cond?: Condition, extra: Partial<ClusterRecord> = {}): ParsedItem {
  const status = cond && {
    conditions: [cond],
    observedGeneration: cond.observedGeneration,
    ready: cond.status === 'True',
    synced: cond.status === 'True',
    updatedAt: T1,
  };
  const record = { id: 'ns/a', generation, createdAt: T0, ...(status ? { status } : {}), ...extra };
  return { kind: 'record', record: record as ClusterRecord };
}

describe('wait: durations and options', () => {
  it('reads 90s, 10m, 1h and combinations; refuses a bare number, zero, and other units', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5s')).toBe(1_500);
    for (const bad of ['', '5', '10x', '0s', 'm', '1 h', '-1s'])
      expect(() => parseDuration(bad), bad).toThrow(WaitOptionError);
  });

  it('--timeout without --wait is refused (it would be ignored); --wait alone waits 30m', () => {
    expect(waitRequest({})).toBeUndefined();
    expect(() => waitRequest({ timeout: '1m' })).toThrow(/--timeout applies only with --wait/);
    expect(waitRequest({ wait: true })).toEqual({ timeoutMs: 1_800_000, timeoutText: '30m' });
    expect(waitRequest({ wait: true, timeout: '90s' })).toEqual({ timeoutMs: 90_000, timeoutText: '90s' });
  });

  it('every reason whose hint is fixed needs a human, so waiting stops at it; work in progress does not', () => {
    for (const reason of Object.keys(REASON_HINT))
      expect(TERMINAL_REASONS.has(reason as Reason), reason).toBe(true);
    for (const reason of [
      Reason.Progressing,
      Reason.Waiting,
      Reason.TransientError,
      Reason.ObserveFailed,
      Reason.Deleting,
    ])
      expect(TERMINAL_REASONS.has(reason), reason).toBe(false);
  });
});

describe('wait: state -> verdict', () => {
  const g2: Goal = { kind: 'ready', generation: 2 };
  const cases: [string, Goal, ParsedItem | undefined, string][] = [
    ['no status yet: waiting', g2, item(2), 'waiting'],
    [
      'Ready at an older generation is not the applied one',
      g2,
      item(2, ready('True', Reason.Reconciled, 1)),
      'waiting',
    ],
    ['Ready at the applied generation', g2, item(2, ready('True', Reason.Reconciled, 2)), 'done'],
    [
      'a policy denial of the applied generation needs a change',
      g2,
      item(2, ready('False', Reason.PolicyViolation, 2)),
      'failed',
    ],
    [
      'a denial of an older generation says nothing of this one',
      g2,
      item(2, ready('False', Reason.PolicyViolation, 1)),
      'waiting',
    ],
    ['a transient error is waited out', g2, item(2, ready('False', Reason.TransientError, 2)), 'waiting'],
    ['work in progress is waited out', g2, item(2, ready('False', Reason.Progressing, 2)), 'waiting'],
    ['deleted while waiting for Ready', g2, undefined, 'failed'],
    [
      'deletion requested while waiting for Ready',
      g2,
      item(2, undefined, { deletionRequestedAt: T1 }),
      'failed',
    ],
  ];
  it.each(cases)('%s', (_why, goal, it_, state) => {
    expect(judge(goal, it_).state).toBe(state);
  });

  it('a malformed item fails with RecordInvalid and its reason', () => {
    const invalid: ParsedItem = {
      kind: 'invalid',
      invalid: { id: 'ns/a', usable: true, reason: 'spec: bad', marked: false },
    };
    expect(judge(g2, invalid)).toEqual({ state: 'failed', reason: 'RecordInvalid', detail: 'spec: bad' });
  });

  it('delete: gone is done; only a status written after the request can fail it', () => {
    const before: Goal = { kind: 'gone', requestedAt: '2026-01-01T00:02:00.000Z' };
    const after: Goal = { kind: 'gone', requestedAt: T0 };
    expect(judge(after, undefined)).toEqual({ state: 'done', detail: 'deleted (record released)' });
    expect(judge(before, item(1, ready('False', Reason.PolicyViolation, 1))).state).toBe('waiting');
    expect(judge(after, item(1, ready('False', Reason.DeletionStuck, 1)))).toMatchObject({
      state: 'failed',
      reason: 'DeletionStuck',
    });
    expect(judge(after, item(1, ready('False', Reason.Deleting, 1))).state).toBe('waiting');
  });

  it('one line per cluster names its state, reason and message', () => {
    expect(lineOf('ns/a', judge(g2, item(2, ready('False', Reason.Progressing, 1))))).toBe(
      'cloudcluster/ns/a waiting: Ready False Progressing: Progressing message (generation 2 not observed yet, last 1)',
    );
    expect(lineOf('ns/a', judge(g2, item(2, ready('False', Reason.PolicyViolation, 2))))).toBe(
      'cloudcluster/ns/a failed: PolicyViolation: PolicyViolation message',
    );
    expect(lineOf('ns/a', judge(g2, item(2, ready('True', Reason.Reconciled, 2))))).toBe(
      'cloudcluster/ns/a Ready (generation 2)',
    );
  });
});

describe('wait: terminal vs plain output', () => {
  it('plain: only the lines that changed, one per change, no control characters', () => {
    const plain = { isTTY: false };
    expect(frame(plain, [], ['a 1', 'b 1'])).toBe('a 1\nb 1\n');
    expect(frame(plain, ['a 1', 'b 1'], ['a 1', 'b 2'])).toBe('b 2\n');
    expect(frame(plain, ['a 1', 'b 2'], ['a 1', 'b 2'])).toBe('');
  });

  it('terminal: every line rewritten in place, cut to the width so the rewrite stays aligned', () => {
    const tty = { isTTY: true, columns: 10 };
    expect(frame(tty, [], ['a 1', 'b 1'])).toBe('\r\u001b[2Ka 1\n\r\u001b[2Kb 1\n');
    expect(frame(tty, ['a 1', 'b 1'], ['a 1', 'b 1'])).toBe('');
    expect(frame(tty, ['a 1', 'b 1'], ['a 1', 'b 2 and much more'])).toBe(
      '\u001b[2A\r\u001b[2Ka 1\n\r\u001b[2Kb 2 and …\n',
    );
  });
});

describe('wait: the poll loop', () => {
  function harness(items: (ParsedItem | undefined)[]) {
    let now = 0;
    const err: string[] = [];
    const written: string[] = [];
    const o: Output = { color: false, out: () => {}, err: (l) => err.push(l) };
    // Each read takes the next item; the last one stays.
    const store = { inspect: async () => (items.length > 1 ? items.shift() : items[0]) };
    const deps = {
      screen: { isTTY: false, write: (s: string) => written.push(s) },
      intervalMs: 1_000,
      now: () => now,
      sleep: async (ms: number) => {
        now += ms;
      },
    };
    return { o, err, written, store, deps };
  }

  it('follows the record to Ready: exit 0, one line per change of state', async () => {
    const h = harness([
      item(1),
      item(1, ready('False', Reason.Progressing, 1)),
      item(1, ready('True', Reason.Reconciled, 1)),
    ]);
    const code = await waitFor(
      h.store,
      h.o,
      [{ id: 'ns/a', goal: { kind: 'ready', generation: 1 } }],
      { timeoutMs: 60_000, timeoutText: '1m' },
      h.deps,
    );
    expect(code).toBe(0);
    expect(h.written.join('').trimEnd().split('\n')).toEqual([
      'cloudcluster/ns/a waiting: no status yet (generation 1 not observed yet)',
      'cloudcluster/ns/a waiting: Ready False Progressing: Progressing message',
      'cloudcluster/ns/a Ready (generation 1)',
    ]);
    expect(h.err).toEqual([]);
  });

  it('stops at the timeout: exit 1, the summary names the timeout and the last Ready reason', async () => {
    const h = harness([item(1, ready('False', Reason.Progressing, 1))]);
    const code = await waitFor(
      h.store,
      h.o,
      [{ id: 'ns/a', goal: { kind: 'ready', generation: 1 } }],
      { timeoutMs: 2_500, timeoutText: '2500ms' },
      h.deps,
    );
    expect(code).toBe(1);
    expect(h.err).toEqual([
      'error: 1 of 1 cluster(s) did not reach their goal:',
      '  ns/a: Timeout: did not become Ready within --timeout 2500ms (last: Ready False Progressing: Progressing message)',
    ]);
  });

  it('a terminal failure ends the wait at once, naming the reason and message', async () => {
    const h = harness([item(1, ready('False', Reason.PolicyViolation, 1))]);
    const code = await waitFor(
      h.store,
      h.o,
      [{ id: 'ns/a', goal: { kind: 'ready', generation: 1 } }],
      { timeoutMs: 60_000, timeoutText: '1m' },
      h.deps,
    );
    expect(code).toBe(1);
    expect(h.deps.now()).toBe(0);
    expect(h.err[1]).toBe('  ns/a: PolicyViolation: PolicyViolation message');
  });

  it('a failed read is shown and read again, not taken as a verdict', async () => {
    const h = harness([]);
    let calls = 0;
    const store = {
      inspect: async () => {
        calls += 1;
        if (calls === 1) throw new Error('connection refused');
        return undefined;
      },
    };
    const code = await waitFor(
      store,
      h.o,
      [{ id: 'ns/a', goal: { kind: 'gone', requestedAt: T0 } }],
      { timeoutMs: 60_000, timeoutText: '1m' },
      h.deps,
    );
    expect(code).toBe(0);
    expect(h.written.join('')).toMatch(
      /waiting: the record could not be read \(connection refused\)\n.*deleted/,
    );
  });
});

let dev: Dev;

interface Timed extends Result {
  ms: number;
}

async function cloudorch(args: string[]): Promise<Timed> {
  const start = Date.now();
  const r = await dev.cloudorch(args);
  return { ...r, ms: Date.now() - start };
}

describe('cloudorch apply/delete --wait against cloudorch dev', () => {
  beforeAll(async () => {
    dev = await startDev();
  }, 130_000);

  afterAll(async () => {
    await dev?.stop();
  });

  it('apply --wait follows an example to Ready and exits 0, with plain lines (no terminal)', async () => {
    const r = await cloudorch([
      'apply',
      '--wait',
      '--timeout',
      '90s',
      '-f',
      join(ROOT, 'examples/dev-small.yaml'),
    ]);
    expect(r.code, `${r.stderr}\n${dev.log()}`).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('cloudcluster/team-payments/dev-small created');
    expect(lines.at(-1)).toBe('cloudcluster/team-payments/dev-small Ready (generation 1)');
    expect(r.stdout.includes('\r') || r.stdout.includes('\u001b')).toBe(false);
    // One line per change of state: no line repeats the one before it.
    expect(lines.every((l, i) => l !== lines[i - 1])).toBe(true);
  }, 120_000);

  it('on a terminal the line is rewritten in place', async () => {
    // `script` gives the CLI a pseudo-terminal, so its stdout is a TTY as in a shell.
    const cmd = `${process.execPath} ${CLI} apply --wait -f ${join(ROOT, 'examples/dev-small.yaml')}`;
    const r = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        'script',
        ['-qec', cmd, '/dev/null'],
        { env: dev.env, cwd: ROOT, timeout: 60_000 },
        (err, stdout) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('\r\u001b[2Kcloudcluster/team-payments/dev-small Ready (generation 1)');
  }, 120_000);

  it('apply --wait of a spec policy denies exits 1 fast, naming PolicyViolation', async () => {
    const r = await cloudorch(['apply', '--wait', '-f', join(ROOT, 'examples/denied-by-policy.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: 1 of 1 cluster\(s\) did not reach their goal:\n {2}research\/gpu-sandbox: PolicyViolation: /,
    );
    // Far below the default 30m: it stops at the denial instead of waiting it out.
    expect(r.ms).toBeLessThan(60_000);
  }, 120_000);

  it('--timeout 1s exits 1 naming the timeout', async () => {
    // Creating this cluster keeps failing (transiently), so it cannot become Ready in time.
    expect((await cloudorch(['sim', 'faults', '--op', 'CreateCluster', '--errors', '1'])).code).toBe(0);
    const slow = join(dev.dir, 'slow.yaml');
    writeFileSync(
      slow,
      readFileSync(join(ROOT, 'examples/dev-small.yaml'), 'utf8')
        .replace('name: dev-small', 'name: slow')
        .replace('clusterName: payments-dev', 'clusterName: payments-slow'),
    );
    try {
      const r = await cloudorch(['apply', '--wait', '--timeout', '1s', '-f', slow]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /team-payments\/slow: Timeout: did not become Ready within --timeout 1s \(last: /,
      );
    } finally {
      await cloudorch(['sim', 'faults', '--clear']);
    }
  }, 120_000);

  it('delete --wait exits 0 once the record is gone', async () => {
    const r = await cloudorch(['delete', '--wait', '--timeout', '90s', 'team-payments/dev-small']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      'cloudcluster/team-payments/dev-small deleted (record released)',
    );
    const gone = await cloudorch(['describe', 'team-payments/dev-small']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^error: cloudcluster team-payments\/dev-small not found/);
  }, 120_000);
});
