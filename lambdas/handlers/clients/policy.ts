/** The WASM policy engine: the client of capability `policy:read`. */

import { S3Client } from '@aws-sdk/client-s3';
import { ENV, SETTING_DEFAULTS } from '../../config.js';
import { type PolicyEngine, policyEngineFromEnv } from '../../policy/index.js';
import { envNumber, sdkOptions, type Wiring } from '../compose.js';
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

export function wasmPolicy(w: Wiring): EnginePolicy {
  // Zero is allowed: the bundle is checked on every decision.
  const reloadSeconds = envNumber(w.env, ENV.policyReloadSeconds, 0) ?? SETTING_DEFAULTS.policyReloadSeconds;
  // The bucket's client is the composition's, so closing it closes this client too.
  const engine = policyEngineFromEnv(w.env, reloadSeconds, () => w.own(new S3Client(sdkOptions(w))));
  return { ...engineEvaluator(() => engine), engine };
}
