/** The local feed's after-image: the update applied to the old image, for what the store writes. */
import { describe, expect, it } from 'vitest';
import { updateParams } from '../../lambdas/store/update.js';
import { applyUpdate, parseUpdate, UnmirroredWriteError } from '../../local/store/update-expression.js';

const before = { id: 'ns/a', version: 3, lease: { owner: 'x', expiresAt: 1 }, intent: { operation: 'op' } };

describe('applyUpdate', () => {
  it('sets, sets a map member, increments and removes, reading operands from the old image', () => {
    const input = updateParams(
      { set: { spec: { n: 1 }, 'lease.expiresAt': 9 }, increment: { version: 1 }, remove: ['intent'] },
      { expression: '#lease.#owner = :me', values: { ':me': 'x' } },
    );
    expect(applyUpdate(before, parseUpdate(input))).toEqual({
      id: 'ns/a',
      version: 4,
      spec: { n: 1 },
      lease: { owner: 'x', expiresAt: 9 },
    });
    expect(before.lease.expiresAt).toBe(1); // the old image is left as it was
  });

  it('refuses, before anything is sent, what it does not model instead of guessing', () => {
    const refused = [
      'SET #l = list_append(#l, :v)',
      'ADD #n :v',
      'SET #l[0] = :v',
      'SET #missing = :v',
      'SET #n = :missing',
    ];
    const input = (UpdateExpression: string) => ({
      UpdateExpression,
      ExpressionAttributeNames: { '#l': 'l', '#n': 'n', '#lease': 'lease', '#owner': 'owner', '#x': 'x' },
      ExpressionAttributeValues: { ':v': 1 },
    });
    for (const e of refused) expect(() => parseUpdate(input(e)), e).toThrow(UnmirroredWriteError);
    // A member of a non-map: DynamoDB refuses such a write, so it never reaches the feed either.
    const member = parseUpdate(input('SET #lease.#owner.#x = :v'));
    expect(() => applyUpdate(before, member)).toThrow(UnmirroredWriteError);
  });
});
