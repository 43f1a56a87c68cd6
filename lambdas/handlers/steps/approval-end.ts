/**
 * How a wait for approval ended, read from what AwaitApproval's Catch passes on (`{Error, Cause}`):
 * SendTaskFailure's error and cause (`cloudorch deny`, on-change's cancel), States.Timeout, or the
 * cancel the waiting step raised itself. Pure.
 */
import { Reason } from '../../core/conditions.js';
import type { ApprovalEnd } from '../../core/status-approval.js';
import { APPROVAL_ERRORS, type CaughtError } from '../contracts.js';

/** A Cause is the sender's text, or Lambda's JSON report (`errorMessage`) of a raised error. */
export function causeText(caught: CaughtError): string {
  const cause = caught.Cause ?? '';
  try {
    const parsed: unknown = JSON.parse(cause);
    if (typeof parsed === 'object' && parsed !== null && 'errorMessage' in parsed)
      return String((parsed as { errorMessage: unknown }).errorMessage);
  } catch {
    // Not JSON: the sender's own text.
  }
  return cause;
}

/** Denied or timed out, with the status message; undefined for a cancel (a newer spec takes over). */
export function approvalEnding(
  caught: CaughtError,
): { readonly reason: ApprovalEnd; readonly message: string } | undefined {
  const text = causeText(caught).trim();
  if (caught.Error === APPROVAL_ERRORS.denied)
    return { reason: Reason.ApprovalDenied, message: `Approval denied: ${text || 'no reason given'}` };
  if (caught.Error === APPROVAL_ERRORS.cancelled) return undefined;
  // States.Timeout, and anything else that ended the wait: nobody approved in time.
  return {
    reason: Reason.ApprovalTimedOut,
    message: `Nobody approved or denied the held operations before the approval timeout${text ? ` (${text})` : ''}`,
  };
}
