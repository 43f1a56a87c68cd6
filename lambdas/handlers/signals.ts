/**
 * Errors a step raises for the state machine to route by name, not failures: they leave the step
 * as they are (wrap.ts lets them past the classified envelope), and a Catch naming them handles them.
 */
import { APPROVAL_ERRORS } from './contracts.js';

export abstract class StateSignal extends Error {}

/**
 * The spec moved on before a wait for approval was stored: the wait is cancelled as on-change
 * cancels one (AwaitApproval's Catch takes both by this name), and the newest generation is next.
 */
export class ApprovalCancelledSignal extends StateSignal {
  override readonly name = APPROVAL_ERRORS.cancelled;
}
