/**
 * STS on the simulator's own endpoint (query protocol: a form-encoded POST to `/`, XML answers), so the
 * SDK's credential providers can assume a role in a simulated account: `AssumeRole` for roles created
 * through the admin API, and `GetCallerIdentity`. Issued credentials name their account; EKS requests
 * signed with them act in that account (accounts.ts).
 */
import type { Caller } from './accounts.js';
import type { SimState } from './state.js';

const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
/** IAM's default MaxSessionDuration of a role; AssumeRole may ask for 900 s up to it. */
const MAX_SESSION_SECONDS = 3600;
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;

/** An STS error: rendered as `ErrorResponse/Error{Type,Code,Message}` with its HTTP status. */
export class StsError extends Error {
  override readonly name = 'StsError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const el = (name: string, inner: string) => `<${name}>${inner}</${name}>`;

function response(action: string, result: string, requestId: string): string {
  return `<${action}Response xmlns="${XMLNS}">${el(`${action}Result`, result)}${el('ResponseMetadata', el('RequestId', requestId))}</${action}Response>`;
}

export function errorXml(e: StsError, requestId: string): string {
  const type = e.status >= 500 ? 'Receiver' : 'Sender';
  return `<ErrorResponse xmlns="${XMLNS}">${el('Error', el('Type', type) + el('Code', e.code) + el('Message', xmlEscape(e.message)))}${el('RequestId', requestId)}</ErrorResponse>`;
}

/** [real] AWS's validation text: `1 validation error detected: Value '...' at '...' failed to satisfy constraint: ...`. */
const invalid = (value: string, member: string, constraint: string) =>
  new StsError(
    400,
    'ValidationError',
    `1 validation error detected: Value '${value}' at '${member}' failed to satisfy constraint: ${constraint}`,
  );

function required(form: URLSearchParams, key: string): string {
  const v = form.get(key);
  if (v === null || v === '')
    throw new StsError(400, 'MissingParameter', `The request must contain the parameter ${key}`); // [real]
  return v;
}

function durationOf(form: URLSearchParams): number {
  const raw = form.get('DurationSeconds');
  if (raw === null) return MAX_SESSION_SECONDS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 900) {
    throw invalid(raw, 'durationSeconds', 'Member must have value greater than or equal to 900');
  }
  if (n > MAX_SESSION_SECONDS) {
    // [real] the answer when DurationSeconds exceeds the role's MaxSessionDuration.
    throw new StsError(
      400,
      'ValidationError',
      'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
    );
  }
  return n;
}

function assumeRole(state: SimState, caller: Caller, form: URLSearchParams): string {
  const arn = required(form, 'RoleArn');
  const session = required(form, 'RoleSessionName');
  if (!SESSION_NAME.test(session)) {
    throw invalid(session, 'roleSessionName', 'Member must satisfy regular expression pattern: [\\w+=,.@-]*');
  }
  const seconds = durationOf(form);
  const role = state.accounts.role(arn);
  const externalId = form.get('ExternalId') ?? undefined;
  if (!role || (role.externalId !== undefined && role.externalId !== externalId)) {
    // [real] IAM's form; STS does not say whether the role is missing or its trust policy refused.
    throw new StsError(
      403,
      'AccessDenied',
      `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${arn}`,
    );
  }
  const c = state.accounts.issue(role, session, state.now() + seconds * 1000, state.rng);
  const expiration = new Date(c.expiration).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return (
    el(
      'AssumedRoleUser',
      el('Arn', xmlEscape(c.caller.arn)) + el('AssumedRoleId', xmlEscape(c.caller.userId)),
    ) +
    el(
      'Credentials',
      el('AccessKeyId', c.accessKeyId) +
        el('SecretAccessKey', c.secretAccessKey) +
        el('SessionToken', c.sessionToken) +
        el('Expiration', expiration),
    )
  );
}

const getCallerIdentity = (caller: Caller) =>
  el('Arn', xmlEscape(caller.arn)) + el('UserId', xmlEscape(caller.userId)) + el('Account', caller.account);

/** Runs one STS action; returns the XML answer or throws an {@link StsError}. */
export function handleSts(state: SimState, caller: Caller, form: URLSearchParams, requestId: string): string {
  const action = form.get('Action') ?? '';
  const version = form.get('Version');
  if (version !== '2011-06-15') {
    throw new StsError(
      400,
      'InvalidAction',
      `Could not find operation ${action} for version ${version ?? 'NO_VERSION_SPECIFIED'}`,
    ); // [real]
  }
  switch (action) {
    case 'AssumeRole':
      return response(action, assumeRole(state, caller, form), requestId);
    case 'GetCallerIdentity':
      return response(action, getCallerIdentity(caller), requestId);
    default:
      // [real] STS's answer to an action it does not know (here: one the simulator does not serve).
      throw new StsError(400, 'InvalidAction', `Could not find operation ${action} for version ${version}`);
  }
}
