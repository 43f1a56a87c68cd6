/**
 * The record parser every reader goes through, and the history folding of the status writer. Each
 * malformed case is one a hostile or buggy writer can put straight into the table.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { claimId } from '../../lambdas/store/claims.js';
import { foldHistory } from '../../lambdas/store/history.js';
import { parseItem } from '../../lambdas/store/record.js';
import { HISTORY_LIMIT, type HistoryEntry } from '../../lambdas/store/types.js';
import { convergedStatus, spec } from './support.js';

const good = {
  id: 'team/x',
  spec: spec(),
  specHash: 'h',
  generation: 2,
  version: 2,
  createdAt: '2026-11-30T00:00:00Z',
};

describe('parseItem', () => {
  it('accepts a record, keeps attributes a newer writer added, and tells claims apart', () => {
    expect(parseItem({ ...good, status: convergedStatus(2), future: 1 })).toMatchObject({
      kind: 'record',
      record: { id: 'team/x', future: 1 },
    });
    expect(parseItem({ id: claimId({ region: 'us-east-1', clusterName: 'x' }), holder: 'team/x' })).toEqual({
      kind: 'claim',
    });
  });

  it.each([
    { why: 'no generation', item: { ...good, generation: undefined }, field: /generation/ },
    { why: 'generation a string', item: { ...good, generation: '2' }, field: /generation/ },
    { why: 'generation zero', item: { ...good, generation: 0 }, field: /generation/ },
    { why: 'spec a string', item: { ...good, spec: 'hello' }, field: /spec/ },
    {
      why: 'conditions not a list',
      item: { ...good, status: { ...convergedStatus(2), conditions: 'x' } },
      field: /status\.conditions/,
    },
    {
      why: 'a condition without a status',
      item: { ...good, status: { ...convergedStatus(2), conditions: [{ type: 'Ready' }] } },
      field: /status\.conditions\.0/,
    },
    { why: 'lease a string', item: { ...good, lease: 'mine' }, field: /lease/ },
    {
      why: 'lease expiry a string',
      item: { ...good, lease: { owner: 'e', expiresAt: 'soon' } },
      field: /lease\.expiresAt/,
    },
    { why: 'history not a list', item: { ...good, history: 'none' }, field: /history/ },
    { why: 'no specHash', item: { ...good, specHash: undefined }, field: /specHash/ },
    {
      why: 'a pending approval without its token',
      item: {
        ...good,
        approval: {
          generation: 2,
          approvals: [],
          requestedAt: '2026-11-30T00:00:00Z',
          expiresAt: '2026-12-01T00:00:00Z',
        },
      },
      field: /approval\.token/,
    },
    {
      why: 'an approval expiry that is not a time',
      item: {
        ...good,
        approval: {
          token: 't',
          generation: 2,
          approvals: [],
          requestedAt: '2026-11-30T00:00:00Z',
          expiresAt: 'never',
        },
      },
      field: /approval\.expiresAt/,
    },
    {
      why: 'granted keys not a list',
      item: { ...good, approved: { generation: 2, keys: 'all', at: '2026-11-30T00:00:00Z' } },
      field: /approved\.keys/,
    },
    {
      why: 'a denial with an unknown reason',
      item: {
        ...good,
        denied: { generation: 2, keys: [], reason: 'Nope', message: 'm', at: '2026-11-30T00:00:00Z' },
      },
      field: /denied\.reason/,
    },
    {
      why: 'failures without a retry time',
      item: { ...good, failures: { generation: 2, count: 1, lastAt: 'x' } },
      field: /failures\.retryAt/,
    },
  ])('reports $why, naming the attribute', ({ item, field }) => {
    const p = parseItem(item);
    expect(p.kind).toBe('invalid');
    if (p.kind !== 'invalid') return;
    expect(p.invalid).toMatchObject({ id: 'team/x', usable: true, marked: false });
    expect(p.invalid.reason).toMatch(field);
  });

  it('DynamoDB sets and binaries are not maps: labels, spec and applied counts of those are invalid', () => {
    const wire = (attrs: Record<string, unknown>) =>
      unmarshall({ ...marshall(good), ...(attrs as Record<string, AttributeValue>) });
    for (const [attrs, field] of [
      [{ labels: { SS: ['team=a'] } }, /^labels: Invalid input: expected record, received Set/],
      [{ labels: { B: new Uint8Array(0) } }, /^labels: Invalid input: expected record, received Uint8Array/],
      [{ spec: { SS: ['a'] } }, /^spec: must be a map/],
      [{ spec: { B: new Uint8Array([1]) } }, /^spec: must be a map/],
      [
        { applied: { M: { generation: { N: '2' }, counts: { NS: ['1'] } } } },
        /^applied\.counts: .*received Set/,
      ],
    ] as const) {
      const p = parseItem(wire(attrs));
      expect(p.kind, JSON.stringify(Object.keys(attrs))).toBe('invalid');
      if (p.kind === 'invalid') expect(p.invalid.reason).toMatch(field);
    }
  });

  it('an attribute named __proto__ cannot lend a record the attributes it lacks', () => {
    const { generation, version, ...rest } = good;
    // A computed key: an own attribute, as a writer straight to the table can send it.
    const wire = { ...marshall(rest), ['__proto__']: { M: marshall({ generation, version }) } };
    const item = unmarshall(wire as Record<string, AttributeValue>);
    // Unmarshalling assigns it, which replaces the item's prototype: the attributes are inherited.
    expect((item as { generation?: unknown }).generation).toBe(generation);
    const p = parseItem(item);
    expect(p.kind).toBe('invalid');
    if (p.kind === 'invalid')
      expect(p.invalid.reason).toBe('(item): Invalid input: expected object, received Object');
  });

  it('says what is wrong in zod\'s English, not a bare "Invalid input" (zod/mini sets no locale)', () => {
    const p = parseItem({ ...good, generation: '2' });
    expect(p.kind === 'invalid' && p.invalid.reason).toBe(
      'generation: Invalid input: expected number, received string',
    );
  });

  it('accepts a pending approval, a grant and a denial', () => {
    const approval = {
      token: 'tok',
      generation: 2,
      approvals: [{ rule: 'r', operation: 'delete cluster x', reason: 'prod' }],
      requestedAt: '2026-11-30T00:00:00Z',
      expiresAt: '2026-12-01T00:00:00Z',
    };
    const approved = { generation: 2, keys: ['r|delete cluster x'], at: '2026-11-30T01:00:00Z', by: 'ana' };
    const denied = {
      generation: 1,
      keys: [],
      reason: 'ApprovalTimedOut',
      message: 'm',
      at: '2026-11-29T00:00:00Z',
    };
    expect(parseItem({ ...good, approval, approved, denied })).toMatchObject({
      kind: 'record',
      record: { approval, approved, denied },
    });
  });

  it('an item too large to ever hold a status is invalid and gets no run (each would fail)', () => {
    const p = parseItem({ ...good, padding: 'x'.repeat(380 * 1024) });
    expect(p).toMatchObject({ kind: 'invalid', invalid: { usable: false } });
    if (p.kind === 'invalid') expect(p.invalid.reason).toMatch(/too large/);
  });

  it('an id that is not <namespace>/<name> is not usable: no run is started for it', () => {
    const p = parseItem({ ...good, id: 'hello' });
    expect(p).toMatchObject({ kind: 'invalid', invalid: { id: 'hello', usable: false } });
  });

  it('knows when a RecordInvalid condition was already written', () => {
    const status = {
      ...convergedStatus(0),
      conditions: [{ ...convergedStatus(0).conditions[0]!, status: 'False', reason: 'RecordInvalid' }],
    };
    const p = parseItem({ ...good, generation: undefined, status });
    expect(p).toMatchObject({ kind: 'invalid', invalid: { marked: true } });
  });
});

describe('foldHistory', () => {
  const entry = (summary: string, at: string, kind: HistoryEntry['kind'] = 'error'): HistoryEntry => ({
    at,
    kind,
    generation: 3,
    summary,
  });
  const run = (at: string) => [
    entry('plan x', at, 'plan'),
    entry('denied', at),
    entry('PolicyDenied', at, 'status'),
  ];

  it('a folded entry keeps its first execution and names the newest (describe reads that one)', () => {
    const byRun = (at: string, executionId: string) => run(at).map((e) => ({ ...e, executionId }));
    let h = foldHistory([], byRun('t1', 'run-1'));
    h = foldHistory(h, byRun('t2', 'run-2'));
    h = foldHistory(h, byRun('t3', 'run-3'));
    expect(h.map((e) => [e.executionId, e.lastExecutionId])).toEqual([
      ['run-1', 'run-3'],
      ['run-1', 'run-3'],
      ['run-1', 'run-3'],
    ]);
  });

  it('folds a run identical to the previous one into it, with a count and the last time', () => {
    let h = foldHistory([], run('t1'));
    h = foldHistory(h, run('t2'));
    h = foldHistory(h, run('t3'));
    expect(h).toHaveLength(3);
    expect(h.map((e) => [e.count, e.at, e.lastAt])).toEqual([
      [3, 't1', 't3'],
      [3, 't1', 't3'],
      [3, 't1', 't3'],
    ]);
  });

  it('keeps different entries apart, folds consecutive repeats within a batch, and stays bounded', () => {
    const h = foldHistory([entry('a', 't1')], [entry('b', 't2'), entry('b', 't3'), entry('a', 't4')]);
    expect(h.map((e) => [e.summary, e.count ?? 1])).toEqual([
      ['a', 1],
      ['b', 2],
      ['a', 1],
    ]);
    const many = Array.from({ length: 80 }, (_, i) => entry(`e${i}`, `t${i}`));
    expect(foldHistory([], many)).toHaveLength(HISTORY_LIMIT);
  });
});
