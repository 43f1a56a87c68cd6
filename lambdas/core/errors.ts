/**
 * The error tree. Every error CloudOrch throws is a {@link CloudOrchError}: it carries a `kind` (how
 * the pipeline treats it) and a `remediation` (what a human should do), so classification reads the
 * error instead of guessing from its name or message. The generic classes below classify someone
 * else's error (an AWS call's); domain errors (store, policy, provider) are subclasses with their own
 * name, kind and remediation. Errors are recognised by class or kind, never by message text.
 */
export type ErrorKind =
  /** A fact (the resource is gone), not a failure: callers decide what it means. */
  | 'NotFound'
  /** Retried with backoff: throttling, server faults, a busy resource. */
  | 'Transient'
  /** A concurrent writer won: re-running the step reads the newer state. */
  | 'Conflict'
  /**
   * Another execution holds the cluster now: this one stops. It leaves a step as PermanentError, so
   * the state machine retries it once, within 30 s (full jitter); that retry finds the same holder and fails alike.
   */
  | 'Superseded'
  /** Needs a human (a spec, quota, IAM or ownership change); retried once at most. */
  | 'Permanent'
  /** A broken invariant: a CloudOrch bug, never the user's input. */
  | 'Internal';

export interface CloudOrchErrorOptions {
  /** The provider's error code when there was one (e.g. `ThrottlingException`). */
  readonly code?: string | undefined;
  readonly cause?: unknown;
}

export abstract class CloudOrchError extends Error {
  abstract readonly kind: ErrorKind;
  /** What a human should do about it. Every error carries one. */
  abstract readonly remediation: string;
  readonly code: string | undefined;

  constructor(message: string, opts: CloudOrchErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = opts.code;
  }
}

/** The options of a generic class: what it classifies decides the remediation. */
export interface ClassifiedOptions extends CloudOrchErrorOptions {
  readonly remediation: string;
}

abstract class ClassifiedError extends CloudOrchError {
  readonly remediation: string;
  constructor(message: string, opts: ClassifiedOptions) {
    super(message, opts);
    this.remediation = opts.remediation;
  }
}

export class NotFoundError extends ClassifiedError {
  override readonly name = 'NotFoundError';
  readonly kind = 'NotFound';
}
export class TransientError extends ClassifiedError {
  override readonly name = 'TransientError';
  readonly kind = 'Transient';
}
export class PermanentError extends ClassifiedError {
  override readonly name = 'PermanentError';
  readonly kind = 'Permanent';
}

/**
 * The base of a domain error (store, policy, provider): its name, kind and remediation are fixed
 * where the class is declared, so the class says only what differs (extra fields, its message).
 * `cause` is passed through as for every CloudOrchError.
 */
export function domainError<N extends string, K extends ErrorKind>(name: N, kind: K, remediation: string) {
  return class extends CloudOrchError {
    override readonly name: N = name;
    readonly kind: K = kind;
    readonly remediation: string = remediation;
  };
}

const REPORT_BUG =
  'This is a CloudOrch bug: report it with the execution history. The next sweep retries with backoff.';

/** A broken invariant (a step called without its input, an impossible branch): a CloudOrch bug. */
export class InternalError extends CloudOrchError {
  override readonly name = 'InternalError';
  readonly kind = 'Internal';
  readonly remediation: string;
  constructor(message: string, opts: CloudOrchErrorOptions & { readonly remediation?: string } = {}) {
    super(message, opts);
    this.remediation = opts.remediation ?? REPORT_BUG;
  }
}

/**
 * The names of the generic classes. Step Functions matches errors by name: every kind leaves a step
 * as TransientError or PermanentError (handlers/envelope.ts), and the state machine's Retry clauses
 * match those two.
 */
export const ERROR_NAMES = {
  NotFound: 'NotFoundError',
  Transient: 'TransientError',
  Permanent: 'PermanentError',
} as const;

type Rule = { kind: 'NotFound' | 'Transient' | 'Permanent'; remediation: string };

const WAIT = 'Nothing to do: CloudOrch retries with backoff.';
/** The one hint for a foreign error no rule knows: only what no CloudOrch class describes gets it. */
const UNCLASSIFIED =
  'An error CloudOrch does not classify. Read the message and the execution logs; reconcile again once the cause is fixed.';
/** Throttling hint for codes EKS, DynamoDB and Step Functions share: the SDK error does not say which. */
const THROTTLED = `An AWS service throttled the call. ${WAIT}`;
const SERVER_FAULT = `An AWS service had a server-side fault. ${WAIT}`;

/**
 * Classification of the codes EKS really returns (model `...Exception` names plus the unmodeled
 * `TooManyRequestsException` that DescribeCluster returns at fleet scale), and the generic codes
 * the SDK reports for network and server faults. DynamoDB and Step Functions errors reach this table
 * too (a step's store or execution call), and an SDK error does not name its service, so a hint
 * names EKS only for a code EKS alone returns.
 */
const AWS_ERROR_RULES: Readonly<Record<string, Rule>> = {
  ResourceNotFoundException: { kind: 'NotFound', remediation: 'The resource does not exist.' },
  NotFoundException: { kind: 'NotFound', remediation: 'The resource ARN does not exist in EKS.' },
  ThrottlingException: { kind: 'Transient', remediation: THROTTLED },
  TooManyRequestsException: { kind: 'Transient', remediation: THROTTLED },
  Throttling: { kind: 'Transient', remediation: THROTTLED },
  RequestLimitExceeded: { kind: 'Transient', remediation: THROTTLED },
  ServerException: { kind: 'Transient', remediation: `EKS had a server-side fault. ${WAIT}` },
  ServiceUnavailableException: { kind: 'Transient', remediation: `An AWS service was unavailable. ${WAIT}` },
  InternalFailure: { kind: 'Transient', remediation: SERVER_FAULT },
  ResourceInUseException: {
    kind: 'Transient',
    remediation:
      'The resource is busy (in EKS: an update in progress, or node groups still attached). CloudOrch waits and retries.',
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
  InternalServerError: { kind: 'Transient', remediation: SERVER_FAULT },
  RequestTimeout: { kind: 'Transient', remediation: `The call timed out. ${WAIT}` },
  // The signed requests' code (aws/signed-http.ts) for a connection cut before a whole answer.
  ConnectionError: { kind: 'Transient', remediation: `A network error interrupted the AWS call. ${WAIT}` },
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
  // STS's code (EKS says AccessDeniedException): assuming a target account's role was refused.
  AccessDenied: {
    kind: 'Permanent',
    remediation:
      "AWS refused to let CloudOrch assume the target account's role. Create the role there, trusting CloudOrch's function role, and let that function assume it.",
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
    if (e instanceof CloudOrchError && e.kind === 'NotFound') return e;
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
        remediation: `A network error interrupted the AWS call. ${WAIT}`,
        cause: err,
      });
    }
  }
  const status = chain[0]?.$metadata?.httpStatusCode;
  const code = chain[0] ? codeOf(chain[0]) : undefined;
  if (typeof status === 'number' && (status >= 500 || status === 429)) {
    return new TransientError(`${code ?? 'HTTP ' + status}: ${messageOf(err)}`, {
      code,
      remediation: `The AWS service answered HTTP ${status}. ${WAIT}`,
      cause: err,
    });
  }
  return new PermanentError(`${code ?? 'Error'}: ${messageOf(err)}`, {
    code,
    remediation: UNCLASSIFIED,
    cause: err,
  });
}

/**
 * What Step Functions reports for a step that failed without a CloudOrch envelope: the invocation
 * could not run (a timeout or a Lambda service error, worth a retry), or something escaped a step.
 */
export function classifyStepFailure(errorName: string, detail: string): CloudOrchError {
  const message = `${errorName}: ${detail}`;
  if (errorName === 'States.Timeout' || errorName.startsWith('Lambda.'))
    return new TransientError(message, {
      code: errorName,
      remediation: 'The step could not run (timeout or Lambda service error). The next sweep retries.',
    });
  return new InternalError(message, {
    code: errorName,
    remediation:
      'An unexpected error escaped a step. Check the execution logs; the next sweep retries with backoff.',
  });
}
