/**
 * Lambda reports a thrown error to Step Functions as `{errorType, errorMessage}` only. So that the
 * classification (kind, code, remediation) survives that boundary as data, step handlers throw
 * errors whose name is the class Step Functions matches on and whose message is a JSON envelope.
 */
import {
  CloudOrchError,
  classifyAwsError,
  classifyStepFailure,
  ERROR_NAMES,
  type ErrorKind,
  InternalError,
  NotFoundError,
  PermanentError,
  TransientError,
} from '../core/errors.js';
import type { CaughtError, ClassifiedFailure } from './contracts.js';

export interface Envelope {
  readonly cloudorch: 1;
  readonly kind: ClassifiedFailure['kind'];
  readonly message: string;
  readonly remediation: string;
  readonly code?: string;
}

type StepErrorName = (typeof ERROR_NAMES)['Transient' | 'Permanent'];

/**
 * How each kind leaves a step: the name the state machine's Retry clauses match (a conflict is
 * retried like a transient error; the rest once, late, so calls stay bounded: a superseded step's
 * retry finds the same holder) and the failure kind status reports.
 */
const LEAVES_AS = {
  NotFound: { name: ERROR_NAMES.Permanent, failure: 'Permanent' },
  Transient: { name: ERROR_NAMES.Transient, failure: 'Transient' },
  Conflict: { name: ERROR_NAMES.Transient, failure: 'Transient' },
  Superseded: { name: ERROR_NAMES.Permanent, failure: 'Permanent' },
  Permanent: { name: ERROR_NAMES.Permanent, failure: 'Permanent' },
  Internal: { name: ERROR_NAMES.Permanent, failure: 'Internal' },
} as const satisfies Record<ErrorKind, { name: StepErrorName; failure: ClassifiedFailure['kind'] }>;

/** The classified error as a step throws it: named for Retry, the envelope as its message. */
export class StepError extends CloudOrchError {
  override readonly name: StepErrorName;
  readonly remediation: string;
  constructor(
    readonly kind: ErrorKind,
    readonly envelope: Envelope,
    cause?: unknown,
  ) {
    super(JSON.stringify(envelope), { code: envelope.code, cause });
    this.name = LEAVES_AS[kind].name;
    this.remediation = envelope.remediation;
  }
}

/** Generic classes quote the code of the error they classify; a domain error is named in the message. */
function isGeneric(e: CloudOrchError): boolean {
  return (
    e instanceof NotFoundError ||
    e instanceof TransientError ||
    e instanceof PermanentError ||
    e instanceof InternalError ||
    e instanceof StepError
  );
}

function failureOf(e: CloudOrchError): ClassifiedFailure {
  return {
    kind: LEAVES_AS[e.kind].failure,
    message: isGeneric(e) ? e.message : `${e.name}: ${e.message}`,
    remediation: e.remediation,
    ...(e.code ? { code: e.code } : {}),
  };
}

export function toStepError(err: unknown): StepError {
  if (err instanceof StepError) return err;
  const e = classifyAwsError(err);
  return new StepError(e.kind, { cloudorch: 1, ...failureOf(e) }, err);
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
    return failureOf(
      new InternalError('no error was passed', {
        remediation: 'This is a bug in the state machine; report it.',
      }),
    );
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
  return failureOf(classifyStepFailure(caught.Error, String(inner ?? '')));
}
