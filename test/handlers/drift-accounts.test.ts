/** Drift events from target accounts (issue 18): whose cluster an event is about, and whose call it was. */
import { describe, expect, it } from 'vitest';
import {
  type CloudTrailEksEvent,
  isOwnCaller,
  targetOf,
} from '../../lambdas/handlers/triggers/drift-event.js';

const event = (account?: string): CloudTrailEksEvent => ({
  ...(account ? { account } : {}),
  detail: { eventSource: 'eks.amazonaws.com', eventName: 'UpdateNodegroupConfig', awsRegion: 'eu-west-1' },
});

describe('drift events across accounts', () => {
  it("an event from another account is about that account's cluster; the own account's names none", () => {
    expect(targetOf(event('222233334444'), 'c', '111122223333')).toEqual({
      clusterName: 'c',
      region: 'eu-west-1',
      accountId: '222233334444',
    });
    expect(targetOf(event('111122223333'), 'c', '111122223333')).toEqual({
      clusterName: 'c',
      region: 'eu-west-1',
    });
    // Without the stack's account configured, every event is the own account's (as before accounts).
    expect(targetOf(event('222233334444'), 'c', undefined)).toEqual({
      clusterName: 'c',
      region: 'eu-west-1',
    });
  });

  it("CloudOrch's own calls are its roles, and its target role in any account", () => {
    const own = ['arn:aws:iam::111122223333:role/apply', 'arn:aws:iam::*:role/cloudorch-target-write'];
    expect(isOwnCaller('arn:aws:iam::111122223333:role/apply', own)).toBe(true);
    expect(isOwnCaller('arn:aws:iam::222233334444:role/cloudorch-target-write', own)).toBe(true);
    expect(isOwnCaller('arn:aws:iam::222233334444:role/someone-else', own)).toBe(false);
    expect(isOwnCaller('arn:aws:iam::22223333:role/cloudorch-target-write', own)).toBe(false);
    expect(isOwnCaller('arn:aws:iam::222233334444:role/x/cloudorch-target-write', own)).toBe(false);
  });
});
