/**
 * Policy errors, one class per failure so callers branch on `instanceof` or `name`, never on message
 * text; each says what to do about it, and passes `cause` (what opa, S3 or the WebAssembly loader
 * threw) through. None of them is ever turned into an allow: the engine maps each to a deny.
 */
import { type CloudOrchErrorOptions, domainError } from '../core/errors.js';

/** Publishing a bundle that loads is the fix for every bundle problem; the engine keeps denying meanwhile. */
const REBUILD =
  'Rebuild the bundle (opa build -t wasm -e cloudorch/decision, or deploy the stack, which builds it) and publish it; until then the previous bundle keeps serving, or every plan is denied.';

/** `opa` rejected the policies (syntax, type, strict or capability error); `output` is opa's own text. */
export class PolicyBuildError extends domainError(
  'PolicyBuildError',
  'Permanent',
  'Fix the policies where opa says (its output is in the message), then build again.',
) {
  constructor(
    message: string,
    readonly output: string,
    opts?: Pick<CloudOrchErrorOptions, 'cause'>,
  ) {
    super(message, opts);
  }
}

/** The bundle is missing a part, is corrupt, or its WebAssembly module does not load. */
export class PolicyBundleError extends domainError('PolicyBundleError', 'Permanent', REBUILD) {}

/** The bundle could not be fetched (missing file, S3 error, nothing configured). */
export class BundleSourceError extends domainError(
  'BundleSourceError',
  'Permanent',
  'Configure the bundle as the message says, or check that it exists and that this function may read it; the engine checks again at its next reload.',
) {}

/** The policy returned something that is not a well-formed, self-consistent decision. */
export class PolicyDecisionError extends domainError(
  'PolicyDecisionError',
  'Permanent',
  `Make cloudorch/decision return {allow: boolean, violations: [{rule, message, severity}], approvals: [{rule, operation, reason}]}. ${REBUILD}`,
) {}
