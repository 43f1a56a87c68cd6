/**
 * The one place a Kubernetes API error becomes text. @kubernetes/client-node's ApiException message
 * is `HTTP-Code: 404 Message: Unknown API Status Code! Body: "{…escaped JSON…}"`; the bridge parses
 * the Status body instead and logs `status <code>, reason <Reason>, message <text>`. Every bridge
 * log line about an error goes through {@link describeError}.
 */
import { ApiException } from '@kubernetes/client-node';

/** The parts of a Kubernetes `Status` a reader needs. */
export interface KubeStatus {
  readonly code: number;
  /** `NotFound`, `Forbidden`, `Conflict`…; empty when the body was not a Status. */
  readonly reason: string;
  readonly message: string;
}

/** A failed Kubernetes API call, classified by its HTTP code and Status reason. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  constructor(
    readonly what: string,
    readonly status: KubeStatus,
  ) {
    super(`${what}: ${formatStatus(status)}`);
  }

  get code(): number {
    return this.status.code;
  }
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** A `Status` object (an error body, a watch ERROR event's object), or undefined if it is not one. */
export function statusFromObject(x: unknown, fallbackCode = 0): KubeStatus | undefined {
  if (!isObject(x) || x['kind'] !== 'Status') return undefined;
  return {
    code: typeof x['code'] === 'number' ? x['code'] : fallbackCode,
    reason: typeof x['reason'] === 'string' ? x['reason'] : '',
    message: typeof x['message'] === 'string' ? x['message'] : '',
  };
}

/** The Status of an ApiException (its body, when it is one), or undefined for anything else. */
export function kubeStatusOf(err: unknown): KubeStatus | undefined {
  if (err instanceof KubeApiError) return err.status;
  if (!(err instanceof ApiException)) return undefined;
  const body = parseBody(err.body);
  const status = statusFromObject(body, err.code);
  if (status) return status;
  // Not a Status (a proxy's HTML page, an empty body): keep a short, unescaped excerpt.
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
  return { code: err.code, reason: '', message: text.slice(0, 300) };
}

export function formatStatus(s: KubeStatus): string {
  return `status ${s.code}, reason ${s.reason || 'unknown'}, message ${s.message || '(none)'}`;
}

/** Wraps an ApiException into a KubeApiError naming the call; other errors pass through. */
export function asKubeApiError(what: string, err: unknown): unknown {
  if (err instanceof KubeApiError) return err;
  const status = kubeStatusOf(err);
  return status ? new KubeApiError(what, status) : err;
}

/** Error text for logs and health reasons; API errors as status, reason, message. */
export function describeError(err: unknown): string {
  if (err instanceof ApiException) {
    return `KubeApiError: ${formatStatus(kubeStatusOf(err) as KubeStatus)}`;
  }
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return typeof err === 'string' ? err : JSON.stringify(err);
}
