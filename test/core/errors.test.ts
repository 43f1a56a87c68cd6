import { describe, expect, it } from 'vitest';
import {
  AWS_ERROR_RULES,
  classifyAwsError,
  ERROR_NAMES,
  isNotFound,
  NotFoundError,
  PermanentError,
  TransientError,
} from '../../lambdas/core/errors.js';

/** An error shaped like the SDK's ServiceException: the code is its name. */
function awsError(name: string, status: number, message = 'm'): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });
}

const CASES: ReadonlyArray<
  [code: string, status: number, cls: typeof NotFoundError | typeof TransientError | typeof PermanentError]
> = [
  ['ResourceNotFoundException', 404, NotFoundError],
  ['NotFoundException', 404, NotFoundError],
  ['ThrottlingException', 429, TransientError],
  ['TooManyRequestsException', 429, TransientError],
  ['ServerException', 500, TransientError],
  ['ServiceUnavailableException', 503, TransientError],
  ['ResourceInUseException', 409, TransientError],
  ['ResourcePropagationDelayException', 428, TransientError],
  ['InvalidRequestException', 400, TransientError],
  ['InvalidParameterException', 400, PermanentError],
  ['InvalidStateException', 400, PermanentError],
  ['ResourceLimitExceededException', 400, PermanentError],
  ['UnsupportedAvailabilityZoneException', 400, PermanentError],
  ['ClientException', 400, PermanentError],
  ['AccessDeniedException', 403, PermanentError],
  ['BadRequestException', 400, PermanentError],
];

describe('classifyAwsError', () => {
  it.each(CASES)('%s (HTTP %i) is %o', (code, status, cls) => {
    const e = classifyAwsError(awsError(code, status));
    expect(e).toBeInstanceOf(cls);
    expect(e.code).toBe(code);
    expect(e.remediation.length).toBeGreaterThan(10);
  });

  it('covers every code it knows with a test case', () => {
    const tested = new Set(CASES.map(([c]) => c));
    const generic = [
      'ProvisionedThroughputExceededException',
      'InternalServerError',
      'Throttling',
      'RequestLimitExceeded',
      'InternalFailure',
      'RequestTimeout',
      'RequestTimeoutException',
      'TimeoutError',
      'UnrecognizedClientException',
      'ExpiredTokenException',
    ];
    expect(
      Object.keys(AWS_ERROR_RULES)
        .filter((c) => !tested.has(c))
        .sort(),
    ).toEqual(generic.sort());
  });

  it('never matches the bare names ACK used by mistake (EKS always says ...Exception)', () => {
    expect(classifyAwsError(awsError('ResourceInUse', 400))).toBeInstanceOf(PermanentError);
    expect(classifyAwsError(awsError('ResourceNotFound', 400))).toBeInstanceOf(PermanentError);
  });

  it('recognises a not-found wrapped in other errors', () => {
    const inner = awsError('ResourceNotFoundException', 404, 'No cluster found for name: demo.');
    const wrapped = new Error('describe cluster demo failed', {
      cause: new Error('observe failed', { cause: inner }),
    });
    expect(classifyAwsError(wrapped)).toBeInstanceOf(NotFoundError);
    expect(isNotFound(wrapped)).toBe(true);
  });

  it('does not read message text: a message saying "not found" is not a NotFoundError', () => {
    expect(isNotFound(new Error('not found'))).toBe(false);
    expect(isNotFound(awsError('ClientException', 400, 'No cluster found for name: x'))).toBe(false);
  });

  it('treats unknown 5xx and 429 as transient and unknown 4xx as permanent (no endless retries)', () => {
    expect(classifyAwsError(awsError('WeirdServerThing', 502))).toBeInstanceOf(TransientError);
    expect(classifyAwsError(awsError('WeirdThrottle', 429))).toBeInstanceOf(TransientError);
    expect(classifyAwsError(awsError('WeirdClientThing', 400))).toBeInstanceOf(PermanentError);
    expect(classifyAwsError('a string')).toBeInstanceOf(PermanentError);
  });

  it('treats network failures as transient', () => {
    const e = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classifyAwsError(e)).toBeInstanceOf(TransientError);
  });

  it('keeps the original error as the cause and passes classified errors through', () => {
    const original = awsError('ThrottlingException', 429);
    const e = classifyAwsError(original);
    expect(e.cause).toBe(original);
    expect(classifyAwsError(e)).toBe(e);
  });

  it('uses the names Step Functions Retry and Catch match on', () => {
    expect(new TransientError('x', { remediation: 'r' }).name).toBe(ERROR_NAMES.Transient);
    expect(new PermanentError('x', { remediation: 'r' }).name).toBe(ERROR_NAMES.Permanent);
    expect(new NotFoundError('x', { remediation: 'r' }).name).toBe(ERROR_NAMES.NotFound);
  });

  it('survives a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(classifyAwsError(a)).toBeInstanceOf(PermanentError);
  });
});
