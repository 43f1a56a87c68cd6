/** What the provider refuses to send, by who must act: a human (a missing setting) or a developer (a planner bug). */
import { InternalError, PermanentError } from '../core/errors.js';

/** A refused operation a human fixes (a spec or a deployment default is missing). */
export class ProviderRefusedError extends PermanentError {
  constructor(message: string, remediation: string) {
    super(message, { code: 'ProviderRefused', remediation });
  }
}

/**
 * A refused operation no spec can cause: the planner broke an invariant. Internal leaves a step as
 * PermanentError like Permanent (same retries); status reports it as a bug.
 */
export class ProviderBugError extends InternalError {
  constructor(message: string, remediation: string) {
    super(message, { code: 'ProviderRefused', remediation });
  }
}
