import { describe, expect, it } from 'vitest';
import {
  CloudOrchError,
  classifyAwsError,
  ERROR_NAMES,
  InternalError,
  NotFoundError,
  PermanentError,
  TransientError,
} from '../../lambdas/core/errors.js';
import { applyOutcome } from '../../lambdas/core/status.js';
import type { ExecutionState } from '../../lambdas/handlers/contracts.js';
import { readCaughtError, toStepError } from '../../lambdas/handlers/envelope.js';
import { outcomeOf } from '../../lambdas/handlers/steps/outcome.js';
import {
  BundleSourceError,
  PolicyBuildError,
  PolicyBundleError,
  PolicyDecisionError,
} from '../../lambdas/policy/errors.js';
import { ProviderBugError, ProviderRefusedError } from '../../lambdas/provider/ops.js';
import { RetryBudgetExhausted } from '../../lambdas/provider/retry.js';
import { MalformedResponseError } from '../../lambdas/provider/to-observation.js';
import { buildDefinition } from '../../lambdas/statemachine/definition.js';
import {
  ConflictError,
  DeletionInProgressError,
  LeaseHeldError,
  LeaseLostError,
  RecordInvalidError,
  RecordNotFoundError,
  TargetChangeError,
  TargetClaimedError,
} from '../../lambdas/store/errors.js';

/** An error shaped like the SDK's ServiceException: the code is its name. */
function awsError(name: string, status: number, message = 'm'): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });
}

type Generic = typeof NotFoundError | typeof TransientError | typeof PermanentError;

/** Every code the classifier knows, with the class it must become. */
const CASES: ReadonlyArray<[code: string, status: number, cls: Generic]> = [
  ['ResourceNotFoundException', 404, NotFoundError],
  ['NotFoundException', 404, NotFoundError],
  ['ThrottlingException', 429, TransientError],
  ['TooManyRequestsException', 429, TransientError],
  ['Throttling', 400, TransientError],
  ['RequestLimitExceeded', 400, TransientError],
  ['ProvisionedThroughputExceededException', 400, TransientError],
  ['ServerException', 500, TransientError],
  ['InternalFailure', 500, TransientError],
  ['InternalServerError', 500, TransientError],
  ['ServiceUnavailableException', 503, TransientError],
  ['RequestTimeout', 408, TransientError],
  ['RequestTimeoutException', 408, TransientError],
  ['TimeoutError', 0, TransientError],
  ['ResourceInUseException', 409, TransientError],
  ['ResourcePropagationDelayException', 428, TransientError],
  ['InvalidRequestException', 400, TransientError],
  ['InvalidParameterException', 400, PermanentError],
  ['InvalidStateException', 400, PermanentError],
  ['ResourceLimitExceededException', 400, PermanentError],
  ['UnsupportedAvailabilityZoneException', 400, PermanentError],
  ['ClientException', 400, PermanentError],
  ['AccessDeniedException', 403, PermanentError],
  ['UnrecognizedClientException', 403, PermanentError],
  ['ExpiredTokenException', 403, PermanentError],
  ['BadRequestException', 400, PermanentError],
];

const UNCLASSIFIED = classifyAwsError(awsError('WeirdClientThing', 400)).remediation;

describe('classifyAwsError', () => {
  it.each(CASES)('%s (HTTP %i) is %o with its own remediation', (code, status, cls) => {
    const e = classifyAwsError(awsError(code, status));
    expect(e).toBeInstanceOf(cls);
    expect(e.code).toBe(code);
    expect(e.remediation.length).toBeGreaterThan(10);
    expect(e.remediation).not.toBe(UNCLASSIFIED);
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
  });

  it('does not read message text: a message saying "not found" is not a NotFoundError', () => {
    expect(classifyAwsError(new Error('not found'))).not.toBeInstanceOf(NotFoundError);
    expect(
      classifyAwsError(awsError('ClientException', 400, 'No cluster found for name: x')),
    ).not.toBeInstanceOf(NotFoundError);
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

  it('finds a CloudOrch error wrapped in a foreign one instead of the generic hint', () => {
    const lost = new LeaseLostError('team/a: lease is no longer held by run-1');
    expect(classifyAwsError(new Error('write failed', { cause: lost }))).toBe(lost);
  });

  it('uses the names Step Functions Retry and Catch match on', () => {
    expect(new TransientError('x', { remediation: 'r' }).name).toBe(ERROR_NAMES.Transient);
    expect(new PermanentError('x', { remediation: 'r' }).name).toBe(ERROR_NAMES.Permanent);
    expect(new NotFoundError('x', { remediation: 'r' }).name).toBe(ERROR_NAMES.NotFound);
  });

  it('names no service for codes EKS, DynamoDB and Step Functions share: the SDK error does not say which', () => {
    for (const code of [
      'ThrottlingException',
      'RequestLimitExceeded',
      'InternalServerError',
      'ResourceNotFoundException',
    ])
      expect(classifyAwsError(awsError(code, 400)).remediation, code).not.toMatch(/EKS/);
    const network = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classifyAwsError(network).remediation).not.toMatch(/EKS/);
    const status = classifyAwsError(awsError('WeirdServerThing', 502)).remediation;
    expect(status).toMatch(/HTTP 502/);
    expect(status).not.toMatch(/EKS/);
  });

  it('survives a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(classifyAwsError(a)).toBeInstanceOf(PermanentError);
  });
});

const cause = new Error('the DynamoDB call that failed');

/** Every domain error the product throws, and the step error name it must leave a step under. */
const DOMAIN: ReadonlyArray<[error: CloudOrchError, leavesAs: string]> = [
  [new ConflictError('team/a: version moved', { cause }), ERROR_NAMES.Transient],
  [new LeaseHeldError('team/a: lease held', 'run-0', undefined, { cause }), ERROR_NAMES.Permanent],
  [new LeaseLostError('team/a: lease is no longer held by run-1', { cause }), ERROR_NAMES.Permanent],
  [new RecordNotFoundError('team/a: no such record', { cause }), ERROR_NAMES.Permanent],
  [new DeletionInProgressError('team/a: deletion was requested', { cause }), ERROR_NAMES.Permanent],
  [new RecordInvalidError('team/a', 'spec is not an object', { cause }), ERROR_NAMES.Permanent],
  [new TargetClaimedError('000000000000/eu-west-1/dev', 'team/b', { cause }), ERROR_NAMES.Permanent],
  [new TargetChangeError('team/a: owns its cluster', { cause }), ERROR_NAMES.Permanent],
  [new PolicyBuildError('opa check failed', 'rego_parse_error', { cause }), ERROR_NAMES.Permanent],
  [new PolicyBundleError('bundle has no /data.json', { cause }), ERROR_NAMES.Permanent],
  [new BundleSourceError('cannot read policy bundle', { cause }), ERROR_NAMES.Permanent],
  [new PolicyDecisionError('the decision is not {allow, violations}', { cause }), ERROR_NAMES.Permanent],
  [new RetryBudgetExhausted('attempts exhausted', { cause }), ERROR_NAMES.Transient],
  [new InternalError('apply needs a planned operation', { cause }), ERROR_NAMES.Permanent],
];

/** A lost lease never reaches status (see the LeaseLostError test); every other domain error does. */
const REACHES_STATUS = DOMAIN.filter(([e]) => !(e instanceof LeaseLostError));

/** What the Catch state hands ClassifyError for a step that threw `err` (as Lambda reports it). */
function caughtFrom(err: unknown) {
  const step = toStepError(err);
  return { Error: step.name, Cause: JSON.stringify({ errorType: step.name, errorMessage: step.message }) };
}

/** The status an execution writes after a step threw `err` once EKS had been observed. */
function statusAfter(err: unknown) {
  const failure = readCaughtError(caughtFrom(err));
  const state: ExecutionState = {
    id: 'team/a',
    trigger: 'manual',
    owner: 'run-1',
    loop: 0,
    observed: { generation: 1, deletionRequested: false, trackedUpdates: [], deletionCalls: 0, applied: {} },
    failure,
  };
  return applyOutcome(undefined, outcomeOf(state), { generation: 1, now: new Date(0) });
}

describe('every error the product throws is a CloudOrchError with its own kind and remediation', () => {
  it.each(DOMAIN.map(([e, name]) => [e.name, e, name] as const))(
    '%s leaves a step as %s with its own remediation',
    (_, e, leavesAs) => {
      expect(e).toBeInstanceOf(CloudOrchError);
      expect(e.remediation.length).toBeGreaterThan(20);
      expect(toStepError(e).name).toBe(leavesAs);
    },
  );

  it.each(REACHES_STATUS.map(([e]) => [e.name, e] as const))(
    '%s reaches status with its own remediation',
    (_, e) => {
      const status = statusAfter(e);
      expect(status.remediation).toBe(e.remediation);
      expect(status.remediation).not.toBe(UNCLASSIFIED);
      expect(status.conditions.find((c) => c.type === 'Ready')?.message).toContain(e.message);
    },
  );

  it('passes ErrorOptions.cause through every domain error, and keeps the thrown error as the step error cause', () => {
    for (const [e] of DOMAIN) {
      expect(e.cause, e.name).toBe(cause);
      expect(toStepError(e).cause, e.name).toBe(e);
    }
  });

  // WriteFailure writes through the lease that was lost, so it fails too (store.test.ts: the old owner
  // cannot write status) and the execution ends FailedUnwritten. The classified failure, named, is
  // what the execution history carries; the newer holder writes the status.
  it('a LeaseLostError is classified named, with its own hint, for the execution history', () => {
    const failure = readCaughtError(
      caughtFrom(new LeaseLostError('team/a: lease is no longer held by run-1')),
    );
    expect(failure).toMatchObject({
      kind: 'Permanent',
      message: 'LeaseLostError: team/a: lease is no longer held by run-1',
      remediation: expect.stringMatching(/took over the lease/),
    });
  });

  it('a superseded step leaves as PermanentError: retried once, 30 s later, where it meets the same holder', () => {
    const retry = (buildDefinition().States as Record<string, { Retry?: Record<string, unknown>[] }>)[
      'Observe'
    ]?.Retry?.find((r) => (r['ErrorEquals'] as string[]).includes(ERROR_NAMES.Permanent));
    expect(toStepError(new LeaseLostError('lost')).name).toBe(ERROR_NAMES.Permanent);
    expect(retry).toMatchObject({ MaxAttempts: 1, IntervalSeconds: 30 });
  });

  it('the provider errors keep the generic names the state machine matches on', () => {
    expect(new MalformedResponseError('cluster').name).toBe(ERROR_NAMES.Permanent);
    expect(new ProviderRefusedError('refused', 'set spec.x').name).toBe(ERROR_NAMES.Permanent);
    // A planner bug is Internal, yet leaves a step under the same name (so the same retries).
    const bug = new ProviderBugError('refused', 'planner bug: report it');
    expect(bug.kind).toBe('Internal');
    expect(toStepError(bug).name).toBe(ERROR_NAMES.Permanent);
    expect(readCaughtError(caughtFrom(bug))).toMatchObject({ kind: 'Internal', message: 'refused' });
  });

  it('each kind leaves a step under a name some Retry clause of the state machine matches', () => {
    const matched = new Set(
      Object.values(buildDefinition().States as Record<string, { Retry?: { ErrorEquals: string[] }[] }>)
        .flatMap((s) => s.Retry ?? [])
        .flatMap((r) => r.ErrorEquals),
    );
    for (const [e] of DOMAIN) expect(matched).toContain(toStepError(e).name);
  });
});
