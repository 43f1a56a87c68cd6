/**
 * Lambda reports a thrown error to Step Functions as `{errorType, errorMessage}` only. So that the
 * classification (kind, code, remediation) survives that boundary as data, step handlers throw
 * errors whose name is the class Step Functions matches on and whose message is a JSON envelope.
 */
import { type CloudOrchError, classifyAwsError, TransientError } from '../core/errors.js';
import { ConflictError } from '../store/errors.js';
import type { CaughtError, ClassifiedFailure } from './contracts.js';

export interface Envelope {
  readonly cloudorch: 1;
  readonly kind: ClassifiedFailure['kind'];
  readonly message: string;
  readonly remediation: string;
  readonly code?: string;
}

export class StepError extends Error {
  constructor(
    override readonly name: string,
    readonly envelope: Envelope,
  ) {
    super(JSON.stringify(envelope));
  }
}

export function toStepError(err: unknown): StepError {
  if (err instanceof StepError) return err;
  // A concurrent spec write is worth an immediate retry; other store errors end the execution.
  const e: CloudOrchError =
    err instanceof ConflictError
      ? new TransientError(err.message, {
          remediation: 'A concurrent write changed the record; the step is retried.',
          cause: err,
        })
      : classifyAwsError(err);
  const kind = e.kind === 'NotFound' ? 'Permanent' : e.kind;
  return new StepError(e.name === 'NotFoundError' ? 'PermanentError' : e.name, {
    cloudorch: 1,
    kind,
    message: e.message,
    remediation: e.remediation,
    ...(e.code ? { code: e.code } : {}),
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isEnvelope(x: unknown): x is Envelope {
  return typeof x === 'object' && x !== null && (x as { cloudorch?: unknown }).cloudorch === 1;
}

/** Reads a caught error, whether Lambda wrapped it (`Cause` = JSON with errorMessage) or not. */
export function readCaughtError(caught: CaughtError | undefined): ClassifiedFailure {
  if (!caught)
    return {
      kind: 'Internal',
      message: 'no error was passed',
      remediation: 'This is a bug in the state machine; report it.',
    };
  const cause = parseJson(caught.Cause ?? '');
  const inner =
    typeof cause === 'object' && cause !== null && 'errorMessage' in cause
      ? (cause as { errorMessage: unknown }).errorMessage
      : caught.Cause;
  const env = typeof inner === 'string' ? parseJson(inner) : inner;
  if (isEnvelope(env))
    return {
      kind: env.kind,
      message: env.message,
      remediation: env.remediation,
      ...(env.code ? { code: env.code } : {}),
    };
  if (caught.Error === 'States.Timeout' || caught.Error.startsWith('Lambda.')) {
    return {
      kind: 'Transient',
      message: `${caught.Error}: ${String(inner ?? '')}`,
      remediation: 'The step could not run (timeout or Lambda service error). The next sweep retries.',
      code: caught.Error,
    };
  }
  return {
    kind: 'Internal',
    message: `${caught.Error}: ${String(inner ?? '')}`,
    remediation:
      'An unexpected error escaped a step. Check the execution logs; the next sweep retries with backoff.',
    code: caught.Error,
  };
}
