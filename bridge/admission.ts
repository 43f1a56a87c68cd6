/**
 * The admission decision for one AdmissionReview request: the spec schema first (messages name the
 * field and the rule), then the same WASM policy bundle the pipeline runs before every apply, with
 * an empty observation, the plan from nothing to this spec and the spec's cost estimate. The engine
 * fails closed, so a missing bundle denies. Warn violations, and operations the policies will hold
 * for approval, come back as admission warnings. Changes that cannot make a spec worse (deletes,
 * metadata or status edits, anything on an object being deleted) are allowed so a finalizer can
 * always go.
 */
import { estimateSpecCost } from '../lambdas/core/cost/estimate.js';
import { plan } from '../lambdas/core/plan/plan.js';
import {
  buildPolicyInput,
  emptyObservation,
  type PolicyDecision,
  type PolicyInput,
} from '../lambdas/core/policy-input.js';
import { formatIssues, validateSpec } from '../lambdas/core/spec/validate.js';
import { approveCommand } from '../lambdas/core/status-approval.js';

export interface AdmissionRequest {
  readonly uid: string;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  readonly namespace?: string;
  readonly name?: string;
  readonly object?: unknown;
  readonly oldObject?: unknown;
}

export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: { readonly code: number; readonly reason?: string; readonly message: string };
  readonly warnings?: string[];
}

export interface Decider {
  decide(input: PolicyInput): Promise<PolicyDecision>;
}

/** Who holds a cluster target: the store's claims, so a second CR naming the same cluster is refused. */
export interface ClaimLookup {
  claimHolder(target: { region: string; clusterName: string }): Promise<string | undefined>;
}

/**
 * How long admission waits for the claim lookup (a DynamoDB read). The webhook must answer within
 * the configuration's timeoutSeconds whatever DynamoDB does, so a slow or failing lookup is skipped.
 */
export const CLAIM_LOOKUP_TIMEOUT_MS = 1_500;

/** The holder, or undefined when the lookup fails or does not answer in time. */
async function claimHolderWithin(
  claims: ClaimLookup | undefined,
  target: { region: string; clusterName: string },
  timeoutMs: number,
): Promise<string | undefined> {
  if (!claims) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([claims.claimHolder(target).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

export class AdmissionReviewError extends Error {
  override readonly name = 'AdmissionReviewError';
}

export type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Parses an AdmissionReview v1 body; throws AdmissionReviewError when it is not one. */
export function parseReview(body: unknown): AdmissionRequest {
  if (!isObj(body) || body['kind'] !== 'AdmissionReview' || body['apiVersion'] !== 'admission.k8s.io/v1') {
    throw new AdmissionReviewError('expected an admission.k8s.io/v1 AdmissionReview');
  }
  const req = body['request'];
  if (!isObj(req) || typeof req['uid'] !== 'string' || typeof req['operation'] !== 'string') {
    throw new AdmissionReviewError('AdmissionReview.request needs uid and operation');
  }
  return req as unknown as AdmissionRequest;
}

export function reviewResponse(response: AdmissionResponse): Obj {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}

const canonical = (x: unknown): string =>
  JSON.stringify(x, (_k, v: unknown) =>
    isObj(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );

export const allow = (uid: string, warnings: string[] = []): AdmissionResponse => ({
  uid,
  allowed: true,
  ...(warnings.length > 0 ? { warnings } : {}),
});

export const deny = (uid: string, message: string): AdmissionResponse => ({
  uid,
  allowed: false,
  status: { code: 403, reason: 'Forbidden', message },
});

/**
 * The object and its metadata when the request changes a spec, or the allowed response when it
 * cannot make one worse (not a create or update, an object being deleted, the spec unchanged).
 */
export function specChange(req: AdmissionRequest): AdmissionResponse | { obj: Obj; meta: Obj } {
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return allow(req.uid);
  const obj = isObj(req.object) ? req.object : {};
  const meta = isObj(obj['metadata']) ? obj['metadata'] : {};
  if (meta['deletionTimestamp']) return allow(req.uid);
  if (
    req.operation === 'UPDATE' &&
    isObj(req.oldObject) &&
    canonical(req.oldObject['spec']) === canonical(obj['spec'])
  ) {
    return allow(req.uid);
  }
  return { obj, meta };
}

export async function admit(
  req: AdmissionRequest,
  engine: Decider,
  now: Date,
  claims?: ClaimLookup,
  claimTimeoutMs = CLAIM_LOOKUP_TIMEOUT_MS,
): Promise<AdmissionResponse> {
  const change = specChange(req);
  if (!('obj' in change)) return change;
  const { obj, meta } = change;
  const v = validateSpec(obj['spec']);
  if (!v.ok) return deny(req.uid, `spec is invalid: ${formatIssues(v.issues)}`);
  const namespace = req.namespace ?? (typeof meta['namespace'] === 'string' ? meta['namespace'] : 'default');
  const name = req.name ?? (typeof meta['name'] === 'string' ? meta['name'] : '');
  const desired = {
    id: `${namespace}/${name}`,
    spec: v.spec,
    generation: typeof meta['generation'] === 'number' ? meta['generation'] : 1,
    deletionRequested: false,
  };
  // The store's conditional claim is what guarantees one record per target; this only says so early.
  // A lookup that fails or is late does not deny (admission never depends on DynamoDB): the mirror
  // still refuses the write and says why on the CR.
  const holder = await claimHolderWithin(claims, v.spec, claimTimeoutMs);
  if (holder && holder !== desired.id)
    return deny(
      req.uid,
      `spec.clusterName: cluster ${v.spec.clusterName} in ${v.spec.region} is already managed by record ${holder}`,
    );
  const observation = emptyObservation(now);
  const decision = await engine.decide(
    buildPolicyInput({
      desired,
      observation,
      plan: plan(desired, observation),
      estimate: estimateSpecCost(v.spec, now),
      now,
    }),
  );
  const errors = decision.violations.filter((x) => x.severity === 'error');
  const warnings = decision.violations
    .filter((x) => x.severity !== 'error')
    .map((x) => `${x.rule}: ${x.message}`);
  if (!decision.allow || errors.length > 0) {
    const listed = errors.length > 0 ? errors : decision.violations;
    return deny(req.uid, `denied by policy: ${listed.map((x) => `${x.rule}: ${x.message}`).join('; ')}`);
  }
  // Admitted, but the pipeline will hold these operations until a human approves them.
  const approvals = decision.approvals.map(
    (a) =>
      `approval will be needed: ${a.operation} (${a.rule}): ${a.reason}; once the change is applied, approve it with ${approveCommand(desired.id)}`,
  );
  return allow(req.uid, [...warnings, ...approvals]);
}
