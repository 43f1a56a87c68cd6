/** The error envelope that carries an error's kind, code and remediation across the Lambda boundary. */
import { describe, expect, it } from 'vitest';
import { TransientError } from '../../lambdas/core/errors.js';
import { readCaughtError, toStepError } from '../../lambdas/handlers/envelope.js';
import { ConflictError } from '../../lambdas/store/errors.js';

describe('error envelope', () => {
  it('carries kind, code and remediation across the Lambda boundary', () => {
    const step = toStepError(
      Object.assign(new Error('slow down'), {
        name: 'ThrottlingException',
        $metadata: { httpStatusCode: 429 },
      }),
    );
    expect(step.name).toBe('TransientError');
    // What Step Functions passes to the Catch state for a Lambda function error.
    const caught = {
      Error: step.name,
      Cause: JSON.stringify({ errorType: step.name, errorMessage: step.message }),
    };
    expect(readCaughtError(caught)).toMatchObject({
      kind: 'Transient',
      code: 'ThrottlingException',
      remediation: expect.stringMatching(/throttled/),
    });
  });

  it('treats a store conflict as transient and an unknown error as internal with a hint', () => {
    expect(toStepError(new ConflictError('version moved')).name).toBe('TransientError');
    expect(readCaughtError({ Error: 'TypeError', Cause: 'x is undefined' })).toMatchObject({
      kind: 'Internal',
      remediation: expect.any(String),
    });
    expect(readCaughtError({ Error: 'States.Timeout' }).kind).toBe('Transient');
  });

  it('passes an already classified error through', () => {
    const e = new TransientError('x', { remediation: 'r' });
    expect(toStepError(e).envelope.remediation).toBe('r');
  });
});
