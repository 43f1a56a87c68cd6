/**
 * The admission decision for a CloudRollout: the rollout spec schema, whose messages name the field
 * and the rule. No policy bundle: a rollout changes no cluster by itself; each cluster it writes
 * goes through the pipeline's policy check like any other change. Deletes, edits that leave the
 * spec alone and anything on an object being deleted are allowed, as for CloudClusters.
 */
import { isDnsLabel } from '../lambdas/core/record-id.js';
import { validateRolloutSpec } from '../lambdas/core/rollout/schema.js';
import { formatIssues } from '../lambdas/core/spec/validate.js';
import { type AdmissionRequest, type AdmissionResponse, allow, deny, specChange } from './admission.js';

/**
 * Kubernetes allows dotted names up to 253 characters; a rollout record id is two DNS labels
 * (`<namespace>/<name>`), as `cloudorch rollout` requires, so anything else could never be stored.
 */
export const ROLLOUT_NAME_RULE =
  'metadata.name: must be a DNS label (lowercase letters, digits and hyphens, at most 63 characters): it names the rollout record';

export function admitRollout(req: AdmissionRequest): AdmissionResponse {
  const change = specChange(req);
  if (!('obj' in change)) return change;
  const name = req.name ?? change.meta['name'];
  const problems = isDnsLabel(name) ? [] : [ROLLOUT_NAME_RULE];
  const v = validateRolloutSpec(change.obj['spec']);
  if (!v.ok) problems.push(formatIssues(v.issues));
  return problems.length === 0 ? allow(req.uid) : deny(req.uid, `spec is invalid: ${problems.join('; ')}`);
}
