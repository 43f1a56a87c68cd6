/**
 * The policy layer: the WASM engine, its bundle sources, and the engine a function's environment
 * configures (the composition root builds one per process). Configuration (environment):
 * - `CLOUDORCH_POLICY_BUNDLE_S3=s3://bucket/key` in AWS (the policy function also reads
 *   `CLOUDORCH_POLICY_BUNDLE_ENDPOINT`, where it sends its signed GET), or
 * - `CLOUDORCH_POLICY_BUNDLE_FILE=path/to/bundle.tar.gz` in local mode;
 * - `CLOUDORCH_POLICY_RELOAD_SECONDS` (default 60, read by the composition root): how often the
 *   source is checked for a new bundle.
 * With neither source set the engine is degraded and denies everything.
 */
import { POLICY_ENV } from '../config.js';
import { PolicyEngine } from './engine.js';
import { parseS3Url } from './s3-url.js';
import {
  type BundleSource,
  FileBundleSource,
  type ObjectGetter,
  S3BundleSource,
  UnconfiguredSource,
} from './sources.js';

export * from './bundle.js';
export * from './decision.js';
export * from './engine.js';
export * from './errors.js';
export * from './s3-url.js';
export * from './sources.js';

/** `objectGetter` makes the bucket's reader, only when the environment names a bucket. */
export function bundleSourceFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  objectGetter: () => ObjectGetter,
): BundleSource {
  const s3 = env[POLICY_ENV.s3];
  if (s3) {
    const at = parseS3Url(s3);
    if (!at) return new UnconfiguredSource(`${POLICY_ENV.s3} must look like s3://bucket/key, got ${s3}`);
    return new S3BundleSource(objectGetter(), at.bucket, at.key);
  }
  const file = env[POLICY_ENV.file];
  if (file) return new FileBundleSource(file);
  return new UnconfiguredSource(`set ${POLICY_ENV.s3} or ${POLICY_ENV.file}`);
}

/** The engine over the bundle source `env` names, checked for a new bundle every `reloadSeconds`. */
export function policyEngineFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  reloadSeconds: number,
  objectGetter: () => ObjectGetter,
): PolicyEngine {
  return new PolicyEngine({
    source: bundleSourceFromEnv(env, objectGetter),
    reloadIntervalMs: reloadSeconds * 1000,
  });
}
