/**
 * Builds the policy bundle once before the suite when it is missing or was built from other
 * sources, so `vitest run` works on its own. A policy that does not compile fails the whole run.
 */
import { join } from 'node:path';
import { ensurePolicyBundle, POLICY_DIR } from '../../policies/build.js';

export default async function setup(): Promise<void> {
  await ensurePolicyBundle({ outDir: join(POLICY_DIR, 'build') });
}
