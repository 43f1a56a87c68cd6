/**
 * The error hierarchy. Each class maps one-to-one onto a Step Functions Retry/Catch by its `name`:
 * TransientError is retried with backoff and jitter; PermanentError is surfaced with a remediation
 * hint; SpecInvalidError stops all calls until the spec changes; NotFoundError is a fact, not a failure.
 * Errors are recognised by class or name, never by message text.
 */
export type ErrorKind = 'NotFound' | 'Transient' | 'Permanent' | 'SpecInvalid';

export abstract class CloudOrchError extends Error {
  abstract readonly kind: ErrorKind;
  /** The provider's error code when there was one (e.g. `ThrottlingException`). */
  readonly code: string | undefined;
  /** What a human should do about it. Every failure carries one. */
  readonly remediation: string;

  constructor(message: string, opts: { code?: string | undefined; remediation: string; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = opts.code;
    this.remediation = opts.remediation;
  }
}

export class NotFoundError extends CloudOrchError {
  override readonly name = 'NotFoundError';
  readonly kind = 'NotFound';
}
export class TransientError extends CloudOrchError {
  override readonly name = 'TransientError';
  readonly kind = 'Transient';
}
export class PermanentError extends CloudOrchError {
  override readonly name = 'PermanentError';
  readonly kind = 'Permanent';
}
export class SpecInvalidError extends CloudOrchError {
  override readonly name = 'SpecInvalidError';
  readonly kind = 'SpecInvalid';
}

/** Step Functions matches errors by name: these are the names its Retry and Catch clauses use. */
export const ERROR_NAMES = {
  NotFound: 'NotFoundError',
  Transient: 'TransientError',
  Permanent: 'PermanentError',
  SpecInvalid: 'SpecInvalidError',
} as const satisfies Record<ErrorKind, string>;

type Rule = { kind: Exclude<ErrorKind, 'SpecInvalid'>; remediation: string };

const WAIT = 'Nothing to do: CloudOrch retries with backoff.';

/**
 * Classification of the codes EKS really returns (model `...Exception` names plus the unmodeled
 * `TooManyRequestsException` that DescribeCluster returns at fleet scale), and the generic codes
 * the SDK reports for network and server faults.
 */
export const AWS_ERROR_RULES: Readonly<Record<string, Rule>> = {
  ResourceNotFoundException: { kind: 'NotFound', remediation: 'The resource does not exist in EKS.' },
  NotFoundException: { kind: 'NotFound', remediation: 'The resource ARN does not exist in EKS.' },
  ThrottlingException: { kind: 'Transient', remediation: `EKS throttled the call. ${WAIT}` },
  TooManyRequestsException: { kind: 'Transient', remediation: `EKS throttled the call. ${WAIT}` },
  Throttling: { kind: 'Transient', remediation: `EKS throttled the call. ${WAIT}` },
  RequestLimitExceeded: { kind: 'Transient', remediation: `EKS throttled the call. ${WAIT}` },
  ServerException: { kind: 'Transient', remediation: `EKS had a server-side fault. ${WAIT}` },
  ServiceUnavailableException: { kind: 'Transient', remediation: `EKS was unavailable. ${WAIT}` },
  InternalFailure: { kind: 'Transient', remediation: `EKS had a server-side fault. ${WAIT}` },
  ResourceInUseException: {
    kind: 'Transient',
    remediation:
      'The resource is busy (an update in progress, or node groups still attached). CloudOrch waits and retries.',
  },
  ResourcePropagationDelayException: {
    kind: 'Transient',
    remediation: `Resources are still propagating. ${WAIT}`,
  },
  // DynamoDB and Step Functions share the pipeline's retry policy for their own throttling.
  ProvisionedThroughputExceededException: {
    kind: 'Transient',
    remediation: `DynamoDB throttled the call. ${WAIT}`,
  },
  InternalServerError: { kind: 'Transient', remediation: `An AWS service had a server-side fault. ${WAIT}` },
  RequestTimeout: { kind: 'Transient', remediation: `The call timed out. ${WAIT}` },
  RequestTimeoutException: { kind: 'Transient', remediation: `The call timed out. ${WAIT}` },
  TimeoutError: { kind: 'Transient', remediation: `The call timed out. ${WAIT}` },
  InvalidRequestException: {
    kind: 'Transient',
    remediation:
      "EKS refused the call in the resource's current state; CloudOrch re-observes and retries. If it persists, check the cluster status in the EKS console.",
  },
  InvalidParameterException: {
    kind: 'Permanent',
    remediation:
      'EKS rejected a parameter. Check the spec (and the role ARNs and subnets) against the message, then apply a corrected spec.',
  },
  InvalidStateException: {
    kind: 'Permanent',
    remediation:
      'EKS upgrade insights block this upgrade. Resolve the insights (aws eks list-insights) before the next version step.',
  },
  ResourceLimitExceededException: {
    kind: 'Permanent',
    remediation:
      'An EKS service quota was reached. Request a quota increase in Service Quotas or lower the spec.',
  },
  UnsupportedAvailabilityZoneException: {
    kind: 'Permanent',
    remediation:
      'A subnet is in an Availability Zone EKS does not support. Choose subnets in the zones the message lists.',
  },
  ClientException: {
    kind: 'Permanent',
    remediation:
      "EKS rejected the call (often permissions or an invalid id). Check the message and CloudOrch's IAM role.",
  },
  AccessDeniedException: {
    kind: 'Permanent',
    remediation:
      "CloudOrch's role lacks an IAM permission. Grant it (see the deploy guide) and reconcile again.",
  },
  UnrecognizedClientException: {
    kind: 'Permanent',
    remediation: 'The AWS credentials are invalid or expired. Fix the credentials and reconcile again.',
  },
  ExpiredTokenException: {
    kind: 'Permanent',
    remediation: 'The AWS credentials expired. Refresh them and reconcile again.',
  },
  BadRequestException: {
    kind: 'Permanent',
    remediation: 'EKS rejected the tag request. Check tag keys and values.',
  },
};

const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  Code?: unknown;
  message?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

function asErrorLike(e: unknown): ErrorLike | undefined {
  return typeof e === 'object' && e !== null ? (e as ErrorLike) : undefined;
}

/** The error and its causes, outermost first, bounded so a cyclic cause chain cannot hang us. */
function causeChain(err: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  let cur: unknown = err;
  for (let i = 0; i < 8 && cur !== undefined && cur !== null; i++) {
    const e = asErrorLike(cur);
    if (!e) break;
    chain.push(e);
    cur = e.cause;
  }
  return chain;
}

/** Candidate codes: the SDK puts the code in `name`; Node network errors put it in `code`. */
function codesOf(e: ErrorLike): string[] {
  return [e.name, e.Code, e.code].filter(
    (c): c is string => typeof c === 'string' && c.length > 0 && c !== 'Error',
  );
}

function codeOf(e: ErrorLike): string | undefined {
  return codesOf(e)[0];
}

function messageOf(err: unknown): string {
  const e = asErrorLike(err);
  return typeof e?.message === 'string' ? e.message : String(err);
}

/**
 * Maps any error from an AWS call into the hierarchy. A not-found anywhere in the cause chain wins,
 * so a wrapped `ResourceNotFoundException` is still recognised. Unknown errors are transient only
 * when the HTTP status says the server failed; otherwise they are permanent (never retried forever).
 */
export function classifyAwsError(err: unknown): CloudOrchError {
  if (err instanceof CloudOrchError) return err;
  const chain = causeChain(err);
  for (const e of chain) {
    if (e instanceof NotFoundError) return e;
    const code = codeOf(e);
    if (code && AWS_ERROR_RULES[code]?.kind === 'NotFound') {
      return new NotFoundError(messageOf(e), {
        code,
        remediation: AWS_ERROR_RULES[code].remediation,
        cause: err,
      });
    }
  }
  for (const e of chain) {
    if (e instanceof CloudOrchError) return e;
    const code = codeOf(e);
    const rule = code ? AWS_ERROR_RULES[code] : undefined;
    if (code && rule) {
      const Cls = rule.kind === 'Transient' ? TransientError : PermanentError;
      return new Cls(`${code}: ${messageOf(e)}`, { code, remediation: rule.remediation, cause: err });
    }
    if (code && TRANSIENT_NETWORK_CODES.has(code)) {
      return new TransientError(`${code}: ${messageOf(e)}`, {
        code,
        remediation: `A network error reached EKS. ${WAIT}`,
        cause: err,
      });
    }
  }
  const status = chain[0]?.$metadata?.httpStatusCode;
  const code = chain[0] ? codeOf(chain[0]) : undefined;
  if (typeof status === 'number' && (status >= 500 || status === 429)) {
    return new TransientError(`${code ?? 'HTTP ' + status}: ${messageOf(err)}`, {
      code,
      remediation: `EKS answered ${status}. ${WAIT}`,
      cause: err,
    });
  }
  return new PermanentError(`${code ?? 'Error'}: ${messageOf(err)}`, {
    code,
    remediation: 'An unexpected error occurred. Read the message; reconcile again once the cause is fixed.',
    cause: err,
  });
}

export function isNotFound(err: unknown): boolean {
  return classifyAwsError(err) instanceof NotFoundError;
}
