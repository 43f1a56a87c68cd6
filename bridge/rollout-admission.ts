/**
 * The admission decision for a CloudRollout: the rollout spec schema, whose messages name the field
 * and the rule. No policy bundle: a rollout changes no cluster by itself; each cluster it writes
 * goes through the pipeline's policy check like any other change. Deletes, edits that leave the
 * spec alone and anything on an object being deleted are allowed, as for CloudClusters.
 */
import { validateRolloutSpec } from '../lambdas/core/rollout/schema.js';
import { formatIssues } from '../lambdas/core/spec/validate.js';
import { type AdmissionRequest, type AdmissionResponse, allow, deny, specChange } from './admission.js';

export function admitRollout(req: AdmissionRequest): AdmissionResponse {
  const change = specChange(req);
  if (!('obj' in change)) return change;
  const v = validateRolloutSpec(change.obj['spec']);
  return v.ok ? allow(req.uid) : deny(req.uid, `spec is invalid: ${formatIssues(v.issues)}`);
}
