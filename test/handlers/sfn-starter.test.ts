/** A function without a state machine ARN is misconfigured, not buggy: the error says which variable to set. */
import { SFNClient } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/config.js';
import { PermanentError } from '../../lambdas/core/errors.js';
import { sfnStarter } from '../../lambdas/handlers/sfn-starter.js';

describe('sfnStarter', () => {
  it('refuses to start without a state machine ARN as configuration, naming the variable', async () => {
    const client = new SFNClient({ region: 'us-east-1' });
    try {
      const err = await sfnStarter(client, undefined)
        .start('n', { id: 'team/a', trigger: 'manual' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PermanentError);
      expect((err as PermanentError).kind).toBe('Permanent');
      expect((err as PermanentError).remediation).toContain(ENV.stateMachine);
    } finally {
      client.destroy();
    }
  });
});
