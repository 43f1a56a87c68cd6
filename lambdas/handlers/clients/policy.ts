/** The WASM policy engine: the client of capability `policy:read`. */

import { environmentCredentials } from '../../aws/env-credentials.js';
import { parseEndpoint } from '../../aws/signed-http.js';
import { ENV, SETTING_DEFAULTS } from '../../config.js';
import { type ObjectGetter, type PolicyEngine, policyEngineFromEnv } from '../../policy/index.js';
import { signedObjectGetter, unconfiguredGetter } from '../../policy/signed-get.js';
import { envNumber, type Maker, type Wiring } from '../compose.js';
import type { PolicyEvaluator } from '../deps.js';

/** The policy engine as the pipeline sees it: always an answer, degraded when no bundle is loaded. */
export function engineEvaluator(engine: () => PolicyEngine): PolicyEvaluator {
  return {
    async evaluate(input) {
      const d = await engine().decide(input);
      return {
        allow: d.allow,
        violations: d.violations,
        approvals: d.approvals,
        degraded: d.bundleVersion === null,
      };
    },
  };
}

/** An evaluator over the engine its environment configures; the engine is there for health checks. */
export interface EnginePolicy extends PolicyEvaluator {
  readonly engine: PolicyEngine;
}

/** The engine over the bundle the environment names, reading an S3 bundle through `objectGetter`. */
export function wasmPolicyOver(objectGetter: (w: Wiring) => ObjectGetter): Maker<EnginePolicy> {
  return (w) => {
    // Zero is allowed: the bundle is checked on every decision.
    const reloadSeconds =
      envNumber(w.env, ENV.policyReloadSeconds, 0) ?? SETTING_DEFAULTS.policyReloadSeconds;
    // The reader is the composition's, so closing it closes its connections too.
    const engine = policyEngineFromEnv(w.env, reloadSeconds, () => w.own(objectGetter(w)));
    return { ...engineEvaluator(() => engine), engine };
  };
}

/**
 * The policy function's reader: a GET it signs with the function role's credentials, sent to the
 * bucket's regional endpoint the stack names (docs/performance.md, "Bundles").
 */
export function signedGetter(w: Wiring): ObjectGetter {
  const endpoint = w.env[ENV.policyBundleEndpoint];
  const region = w.endpoints?.region ?? w.env['AWS_REGION'];
  // A missing or bad setting leaves the engine degraded, saying which; it never fails the cold start.
  if (!endpoint) return unconfiguredGetter(`${ENV.policyBundleEndpoint} is not set (the stack sets it)`);
  const url = parseEndpoint(endpoint);
  if (typeof url === 'string') return unconfiguredGetter(`${ENV.policyBundleEndpoint}: ${url}`);
  if (!region) return unconfiguredGetter('AWS_REGION is not set (Lambda sets it)');
  const local = w.endpoints?.credentials;
  return signedObjectGetter(url, {
    region,
    credentials: local ? () => local : environmentCredentials(w.env),
  });
}

/** The policy function's engine (the CLI and the bridge read the bundle through the SDK's client). */
export const wasmPolicy: Maker<EnginePolicy> = wasmPolicyOver(signedGetter);
