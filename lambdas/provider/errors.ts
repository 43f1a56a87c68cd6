/** What the provider refuses to send, by who must act: a human (a missing setting) or a developer (a planner bug). */
import { InternalError, PermanentError } from '../core/errors.js';
import type { MutatingOperation } from '../core/plan/types.js';

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

/**
 * IAM lets CloudOrch delete a node group it did not create only when the stack opts in, so the generic
 * "grant the permission" hint would send people to the wrong fix: say what the choices are. A cluster
 * deletion deletes every group first, foreign ones too (the provider cannot tell which it is).
 */
export function explainDenied(op: MutatingOperation, err: unknown): unknown {
  if (op.kind !== 'DeleteNodegroup' || (op.reason !== 'foreign' && op.reason !== 'cluster-deletion'))
    return err;
  if (!(err instanceof PermanentError) || err.code !== 'AccessDeniedException') return err;
  const group = `node group ${op.nodegroupName}`;
  const lead =
    op.reason === 'foreign'
      ? `CloudOrch did not create ${group}. `
      : `The cluster's deletion deletes ${group} first. If CloudOrch did not create it (no cloudorch.io ownership tags): `;
  return new PermanentError(err.message, {
    code: err.code,
    cause: err,
    remediation:
      `${lead}CloudOrch deletes a node group it did not create only when the stack sets ` +
      '`deleteForeignNodegroups` and the policy allows it (`foreignNodegroups.allowDeletion`); ' +
      `otherwise delete it yourself: aws eks delete-nodegroup --cluster-name ${op.clusterName} ` +
      `--nodegroup-name ${op.nodegroupName} --region ${op.region}.`,
  });
}
